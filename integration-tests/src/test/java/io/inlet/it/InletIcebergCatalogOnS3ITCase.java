package io.inlet.it;

import io.inlet.core.testing.MiniClusters;
import io.inlet.shim.IcebergCatalogs;
import io.inlet.testing.HiveMetastoreExtension;
import io.inlet.testing.HiveMetastoreServer;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.RestCatalogExtension;
import io.inlet.testing.RestCatalogServer;
import io.inlet.testing.TestNames;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.FlinkSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.apache.flink.table.api.Expressions.$;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code inlet-iceberg} catalog type on the catalogs users run against S3, an Iceberg REST catalog,
 * a Hive Metastore and a catalog named by its class ({@code catalog-impl}): a table made, upserted and
 * deleted from through Flink SQL, read back through SQL, the Table API, the DataStream API (Iceberg's
 * {@code FlinkSource} on {@link IcebergCatalogs#tableLoader}) and as a streaming changelog, updates and
 * deletes included.
 */
// What is under test, S3 and the catalog servers through Iceberg's core and AWS modules, is the same
// on every Flink line: 1.17 alone runs it (pom.xml); the Flink parts run on every line in other tests.
@Tag("line-independent")
@ExtendWith({MariaDbExtension.class, RestCatalogExtension.class, HiveMetastoreExtension.class})
class InletIcebergCatalogOnS3ITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @Test
    @Timeout(240)
    void theRestCatalogServesSqlTheTableApiAndDataStreams(RestCatalogServer rest) throws Exception {
        Map<String, String> options = new HashMap<>(rest.clientProperties());
        options.put("catalog-type", "rest");
        everyApiReadsWhatSqlWrote(options);
    }

    @Test
    @Timeout(240)
    void theHiveCatalogServesSqlTheTableApiAndDataStreams(HiveMetastoreServer hms) throws Exception {
        Map<String, String> options = new HashMap<>(hms.s3().icebergProperties());
        options.put("catalog-type", "hive");
        options.put("uri", hms.uri());
        options.put("warehouse", hms.warehouse());
        everyApiReadsWhatSqlWrote(options);
    }

    /** A catalog named by its class: Iceberg's JDBC catalog in MariaDB, its tables in a bucket of the test's own. */
    @Test
    @Timeout(240)
    void aCatalogImplServesSqlTheTableApiAndDataStreams(MariaDbServer mysql, RestCatalogServer rest) throws Exception {
        Map<String, String> options = new HashMap<>(rest.s3().icebergProperties());
        options.put("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        // Without it MySQL's driver reads a null catalog as every database: Iceberg's JdbcCatalog then finds
        // another catalog's iceberg_tables and never makes its own ("Table '<db>.iceberg_tables' doesn't exist").
        options.put("uri", mysql.jdbcUrl(mysql.createDatabase()) + "&nullCatalogMeansCurrent=true");
        options.put("jdbc.user", mysql.rootUser());
        options.put("jdbc.password", mysql.rootPassword());
        options.put("warehouse", "s3://" + rest.s3().newBucket("jdbc-catalog") + "/lake");
        everyApiReadsWhatSqlWrote(options);
    }

    private static void everyApiReadsWhatSqlWrote(Map<String, String> options) throws Exception {
        String db = TestNames.unique("shop");
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.getConfig().set("parallelism.default", "1");
        batch.executeSql(createCatalog(options));
        batch.executeSql("CREATE DATABASE lake." + db);
        batch.executeSql("CREATE TABLE lake." + db + ".orders (id BIGINT, customer STRING, PRIMARY KEY (id) NOT"
                + " ENFORCED) WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
        batch.executeSql("INSERT INTO lake." + db + ".orders VALUES (1, 'anna'), (2, 'bob'), (3, 'cleo')")
                .await();
        batch.executeSql("INSERT INTO lake." + db + ".orders VALUES (2, 'bea')").await(); // an upsert of key 2

        // A streaming SELECT reads the table as it is, then follows its changes.
        TableEnvironment streaming = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        streaming.getConfig().set("execution.checkpointing.interval", "200 ms");
        streaming.getConfig().set("parallelism.default", "1");
        streaming.executeSql(createCatalog(options));
        try (CloseableIterator<Row> changes = streaming
                .executeSql("SELECT * FROM lake." + db + ".orders /*+ OPTIONS('streaming' = 'true',"
                        + " 'monitor-interval' = '100ms') */")
                .collect()) {
            assertThat(take(changes, 3)).containsExactlyInAnyOrder("+I[1, anna]", "+I[2, bea]", "+I[3, cleo]");
            batch.executeSql("INSERT INTO lake." + db + ".orders VALUES (1, 'ada')")
                    .await();
            assertThat(take(changes, 2)).containsExactly("-U[1, anna]", "+U[1, ada]");
            deleteKey(options, db, 3L, "cleo");
            assertThat(take(changes, 1)).containsExactly("-D[3, cleo]");
        }

        assertThat(collect(batch, "SELECT id, customer FROM lake." + db + ".orders"))
                .as("SQL")
                .containsExactlyInAnyOrder("+I[1, ada]", "+I[2, bea]");
        assertThat(collect(batch.from("lake." + db + ".orders")
                        .where($("id").isEqual(2L))
                        .select($("customer"))
                        .execute()
                        .collect()))
                .as("the Table API")
                .containsExactly("+I[bea]");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        TableLoader orders = IcebergCatalogs.tableLoader("lake", options, db, "orders");
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it = FlinkSource.forRowData()
                .env(env)
                .tableLoader(orders)
                .streaming(false)
                .build()
                .executeAndCollect("read " + db + ".orders")) {
            it.forEachRemaining(r -> rows.add(r.getLong(0) + "=" + r.getString(1)));
        }
        assertThat(rows).as("the DataStream API").containsExactlyInAnyOrder("1=ada", "2=bea");
    }

    private static String createCatalog(Map<String, String> options) {
        return "CREATE CATALOG lake WITH ('type' = 'inlet-iceberg', 'cache-enabled' = 'false', "
                + options.entrySet().stream()
                        .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                        .collect(Collectors.joining(", "))
                + ")";
    }

    /** A delete by key, written by Iceberg's upsert sink from a changelog (Flink SQL has no DELETE here). */
    private static void deleteKey(Map<String, String> options, String db, long id, String customer) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // Without it Flink puts a SinkUpsertMaterializer before the sink, which drops a -D for a row it never saw.
        tEnv.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        tEnv.executeSql(createCatalog(options));
        tEnv.fromChangelogStream(env.fromElements(Row.ofKind(RowKind.DELETE, id, customer))
                        .returns(Types.ROW_NAMED(new String[] {"id", "customer"}, Types.LONG, Types.STRING)))
                .executeInsert("lake." + db + ".orders")
                .await();
    }

    private static List<String> take(CloseableIterator<Row> rows, int n) {
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            out.add(rows.next().toString());
        }
        return out;
    }

    private static List<String> collect(TableEnvironment tEnv, String query) throws Exception {
        return collect(tEnv.executeSql(query).collect());
    }

    private static List<String> collect(CloseableIterator<Row> it) throws Exception {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        return out;
    }
}
