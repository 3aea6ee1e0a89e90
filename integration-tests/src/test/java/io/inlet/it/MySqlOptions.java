package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The options of a {@code mysql-cdc} source on the test server, as a map a test may extend. */
final class MySqlOptions {

    private MySqlOptions() {}

    /**
     * Table {@code t} of the database into Iceberg, at parallelism 1 with 300 ms checkpoints, and a
     * restart strategy of a thousand attempts: a job that should stop once and does not is seen
     * restarting, not failed.
     */
    static Pipeline tableToIceberg(MariaDbServer mysql, String db, Path warehouse, Map<String, String> extraSourceOptions) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(300);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1000, 100));
        Map<String, String> source = of(mysql, db, "t");
        source.putAll(extraSourceOptions);
        return Pipeline.builder().environment(env).source("mysql-cdc", source)
                .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()).build();
    }

    static Map<String, String> of(MariaDbServer mysql, String db, String tables) {
        return new HashMap<>(Map.of("hostname", mysql.host(), "port", String.valueOf(mysql.port()), "username", mysql.rootUser(),
                "password", mysql.rootPassword(), "database-name", db, "table-name", tables));
    }
}
