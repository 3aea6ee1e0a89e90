package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.transform.FilterTransform;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

/**
 * Jobs restored from savepoints after the user changed them: a savepoint that holds none of the
 * source's state, a sink and a transform added in front of the others, a table added to the table
 * pattern. Each ends with the lake equal to MySQL: nothing duplicated, nothing lost.
 */
@ExtendWith(MariaDbExtension.class)
class RestoreITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static Map<String, String> source(MariaDbServer mysql, String db, String tables) {
        return MySqlOptions.of(mysql, db, tables);
    }

    private static StreamExecutionEnvironment env(Configuration conf) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(300);
        return env;
    }

    private static Configuration restoring(String savepoint, boolean allowNonRestored) {
        Configuration conf = new Configuration();
        conf.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
        conf.set(SavepointConfigOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, allowNonRestored);
        return conf;
    }

    private static void createOrders(MariaDbServer mysql, String db) {
        mysql.execute(db, "CREATE TABLE orders (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO orders VALUES (1, 1), (2, 2), (3, 3)");
    }

    private static HadoopCatalog catalog(Path warehouse) {
        return new HadoopCatalog(new org.apache.hadoop.conf.Configuration(false), warehouse.toUri().toString());
    }

    private static void awaitEqual(JobClient job, HadoopCatalog catalog, Connection c, String db, String table) throws Exception {
        Lakes.awaitIceberg(job, catalog, TableIdentifier.of(db, table), () -> Canonical.mysql(c, db, table));
    }

    /** A savepoint of a job that has nothing to do with the pipeline. */
    private static String savepointOfAnotherJob(Path savepoints) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.addSource(new Idle(), Types.LONG).uid("another-job-source").addSink(new DiscardingSink<>());
        JobClient other = env.executeAsync("another job");
        Thread.sleep(500); // let its task start; stopWithSavepoint retries until it can
        return other.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL).get();
    }

    /** An unbounded source that emits nothing. */
    private static final class Idle implements SourceFunction<Long> {
        private volatile boolean running = true;

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            while (running) {
                Thread.sleep(20); // idling until cancelled
            }
        }

        @Override
        public void cancel() {
            running = false;
        }
    }

    @Test
    void aSavepointWithoutTheSourcesStateTakesANewSnapshotWithoutDuplicates(
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path savepoints) throws Exception {
        String db = mysql.createDatabase();
        createOrders(mysql, db);
        try (HadoopCatalog catalog = catalog(warehouse); Connection c = mysql.connection(db)) {
            JobClient first = Pipeline.builder().environment(env(new Configuration())).source("mysql-cdc", source(mysql, db, "orders"))
                    .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()).build().executeAsync();
            try {
                awaitEqual(first, catalog, c, db, "orders");
            } finally {
                Jobs.cancelAndAwait(first);
            }
            mysql.execute(db, "UPDATE orders SET v = 20 WHERE id = 2", "INSERT INTO orders VALUES (4, 4)");
            // A savepoint is named, but none of its state belongs to this pipeline: the source takes a new
            // snapshot over the table, which already holds every row once.
            String savepoint = savepointOfAnotherJob(savepoints);
            JobClient second = Pipeline.builder().environment(env(restoring(savepoint, true))).source("mysql-cdc", source(mysql, db, "orders"))
                    .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()).build().executeAsync();
            try {
                awaitEqual(second, catalog, c, db, "orders");
                mysql.execute(db, "UPDATE orders SET v = 30 WHERE id = 3");
                awaitEqual(second, catalog, c, db, "orders");
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }

    @Test
    void aSinkAndATransformAddedInFrontKeepTheStateOfTheOthers(
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path added, @TempDir Path savepoints) throws Exception {
        String db = mysql.createDatabase();
        createOrders(mysql, db);
        try (HadoopCatalog catalog = catalog(warehouse); HadoopCatalog addedCatalog = catalog(added); Connection c = mysql.connection(db)) {
            // Checkpoints every 2 s: the savepoint below then holds files the sink's committer has not yet
            // committed, in its state, which a restored job must hand to the same sink (and to no other).
            StreamExecutionEnvironment firstEnv = env(new Configuration());
            firstEnv.enableCheckpointing(2000);
            JobClient first = Pipeline.builder().environment(firstEnv).source("mysql-cdc", source(mysql, db, "orders"))
                    .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()).build().executeAsync();
            String savepoint;
            try {
                awaitEqual(first, catalog, c, db, "orders");
                long committed = catalog.loadTable(TableIdentifier.of(db, "orders")).currentSnapshot().snapshotId();
                while (catalog.loadTable(TableIdentifier.of(db, "orders")).currentSnapshot().snapshotId() == committed) {
                    Jobs.assertRunning(first);
                    Thread.sleep(20); // waiting for the next commit, right after which no checkpoint is in flight
                }
                mysql.execute(db, "UPDATE orders SET v = 10 WHERE id = 1");
                Thread.sleep(300); // read by the source, written by the sink's writer, not yet checkpointed
                savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL).get();
            } catch (Exception e) {
                Jobs.cancelIfRunning(first);
                throw e;
            }
            mysql.execute(db, "UPDATE orders SET v = 20 WHERE id = 2", "DELETE FROM orders WHERE id = 3");
            // Restored without dropping any state: every operator of the first job must be found again.
            JobClient second = Pipeline.builder().environment(env(restoring(savepoint, false)))
                    .source("mysql-cdc", source(mysql, db, "orders"))
                    .transform(FilterTransform.builder().filter("v >= 0").build())
                    .sink(IcebergSink.builder().warehouse(added.toUri().toString()).build())
                    .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build())
                    .build().executeAsync();
            try {
                mysql.execute(db, "INSERT INTO orders VALUES (5, 5)");
                awaitEqual(second, catalog, c, db, "orders");
                // The added sink gets the changes from the savepoint on (it needs its own backfill for the rest).
                Lakes.awaitIceberg(second, addedCatalog, TableIdentifier.of(db, "orders"),
                        () -> List.of("id=2, v=20", "id=5, v=5"));
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }

    @Test
    void aTableAddedToThePatternGetsItsSnapshotThenItsChanges(MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path savepoints)
            throws Exception {
        String db = mysql.createDatabase();
        createOrders(mysql, db);
        Map<String, String> src = source(mysql, db, "orders|items");
        src.put("scan.newly-added-table.enabled", "true");
        try (HadoopCatalog catalog = catalog(warehouse); Connection c = mysql.connection(db)) {
            JobClient first = Pipeline.builder().environment(env(new Configuration())).source("mysql-cdc", src)
                    .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()).build().executeAsync();
            String savepoint;
            try {
                awaitEqual(first, catalog, c, db, "orders");
                savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL).get();
            } catch (Exception e) {
                Jobs.cancelIfRunning(first);
                throw e;
            }
            mysql.execute(db, "CREATE TABLE items (id INT NOT NULL PRIMARY KEY, sku VARCHAR(8))",
                    "INSERT INTO items VALUES (1, 'a'), (2, 'b')", "UPDATE orders SET v = 7 WHERE id = 1");
            JobClient second = Pipeline.builder().environment(env(restoring(savepoint, false))).source("mysql-cdc", src)
                    .sink(IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()).build().executeAsync();
            try {
                awaitEqual(second, catalog, c, db, "items");
                mysql.execute(db, "UPDATE items SET sku = 'bb' WHERE id = 2", "INSERT INTO items VALUES (3, 'c')");
                awaitEqual(second, catalog, c, db, "items");
                awaitEqual(second, catalog, c, db, "orders");
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }
}
