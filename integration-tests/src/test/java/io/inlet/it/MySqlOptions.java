package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** A {@code mysql-cdc} source on the test server: its options as a map a test may extend, or its builder. */
final class MySqlOptions {

    private MySqlOptions() {}

    /** Table {@code t} of the database into Iceberg, on {@link Jobs#restartingEnvironment()}. */
    static Pipeline tableToIceberg(
            MariaDbServer mysql, String db, Path warehouse, Map<String, String> extraSourceOptions) {
        StreamExecutionEnvironment env = Jobs.restartingEnvironment();
        Map<String, String> source = of(mysql, db, "t");
        source.putAll(extraSourceOptions);
        return Pipeline.builder()
                .environment(env)
                .source("mysql-cdc", source)
                .sink(IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .build())
                .build();
    }

    /** A source builder of the tables (a regular expression) of the database, as root. */
    static MySqlCdcSource.Builder builder(MariaDbServer mysql, String db, String tables) {
        return MySqlCdcSource.builder()
                .hostname(mysql.host())
                .port(mysql.port())
                .username(mysql.rootUser())
                .password(mysql.rootPassword())
                .databaseList(db)
                .tableList(tables);
    }

    /** The options of the tables (a regular expression) of the database, as root. */
    static Map<String, String> of(MariaDbServer mysql, String db, String tables) {
        return new HashMap<>(Map.of(
                "hostname",
                mysql.host(),
                "port",
                String.valueOf(mysql.port()),
                "username",
                mysql.rootUser(),
                "password",
                mysql.rootPassword(),
                "database-name",
                db,
                "table-name",
                tables));
    }
}
