package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.transform.FilterTransform;
import io.inlet.core.transform.ProjectionTransform;
import io.inlet.sink.iceberg.WriteMode;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A filtered mirror is the filtered table: rows that an update moves out of the filter leave the
 * lake, rows it moves in arrive, a primary-key change moves the row, in Iceberg upsert mode, Iceberg
 * changelog mode and Hudi (in the Flink 1.17 build) alike, each read with its own reader and
 * compared with the same query on MySQL.
 */
@Tag("hudi") // mirrors into Hudi too on 1.17: the Hudi execution there (integration-tests/pom.xml)
@ExtendWith(MariaDbExtension.class)
class FilteredUpdatesITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static final String CONDITION = "status IN ('paid', 'shipped')";

    @Test
    void updatesAcrossTheFilterLeaveTheLakeEqualToTheFilteredTable(
            MariaDbServer mysql,
            @TempDir Path upsertWarehouse,
            @TempDir Path changelogWarehouse,
            @TempDir Path hudiLake)
            throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, status VARCHAR(16) NOT"
                        + " NULL, amount DECIMAL(10,2) NOT NULL," + " note VARCHAR(64))",
                "INSERT INTO orders VALUES (1, 'paid', 10.00, 'in, will leave'), (2, 'new', 20.00, 'out, will enter'),"
                        + " (3, 'paid', 30.00, 'in, stays in'), (4, 'new', 40.00, 'out, stays out'),"
                        + " (5, 'shipped', 50.00, 'in, key moves'), (6, 'shipped', 60.00, 'in, key moves out'),"
                        + " (7, 'paid', 70.00, 'in, deleted'), (8, 'new', 80.00, 'out, key moves in')");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        List<MirrorLake> lakes = new ArrayList<>(List.of(
                MirrorLake.iceberg(upsertWarehouse, WriteMode.UPSERT),
                MirrorLake.iceberg(changelogWarehouse, WriteMode.CHANGELOG)));
        MirrorLake.hudi(hudiLake, 2).ifPresent(lakes::add);
        Pipeline.Builder builder = Pipeline.builder()
                .environment(env)
                .source(MySqlOptions.builder(mysql, db, "orders").build())
                .transform(FilterTransform.builder()
                        .sourceTable(db + "\\.orders")
                        .filter(CONDITION)
                        .build())
                // a projection that renames the key column keeps the key, and so the pairing, intact
                .transform(ProjectionTransform.builder()
                        .projection("id AS order_id, *")
                        .build());
        lakes.forEach(lake -> builder.sink(lake.sink()));
        Pipeline pipeline = builder.build();
        TableDescriptor orders = pipeline.sinkTables().get(0);
        JobClient job = pipeline.executeAsync();
        try (Connection c = mysql.connection(db)) {
            Callable<List<String>> filtered = () -> Canonical.mysqlQuery(
                    c,
                    "SELECT id AS order_id, status, amount, note FROM orders WHERE " + CONDITION,
                    orders.toRowType());
            awaitAll(job, lakes, orders, filtered);

            mysql.execute(
                    db,
                    "UPDATE orders SET status = 'cancelled' WHERE id = 1",
                    "UPDATE orders SET status = 'paid' WHERE id = 2",
                    "UPDATE orders SET amount = 31.00 WHERE id = 3",
                    "UPDATE orders SET amount = 41.00 WHERE id = 4",
                    "UPDATE orders SET id = 50 WHERE id = 5",
                    "UPDATE orders SET id = 60, status = 'new' WHERE id = 6",
                    "DELETE FROM orders WHERE id = 7",
                    "UPDATE orders SET id = 80, status = 'shipped' WHERE id = 8",
                    // in one transaction: out, in, out again, and in, out, in again
                    "START TRANSACTION",
                    "UPDATE orders SET status = 'paid' WHERE id = 4",
                    "UPDATE orders SET status = 'new' WHERE id = 4",
                    "UPDATE orders SET status = 'new' WHERE id = 3",
                    "UPDATE orders SET status = 'shipped' WHERE id = 3",
                    "COMMIT");
            awaitAll(job, lakes, orders, filtered);
        } finally {
            Jobs.cancelAndAwait(job);
        }
    }

    private static void awaitAll(
            JobClient job, List<MirrorLake> lakes, TableDescriptor orders, Callable<List<String>> expected)
            throws Exception {
        for (MirrorLake lake : lakes) {
            lake.await(job, orders, expected);
        }
    }
}
