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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jobs restored from savepoints after the user changed them: a savepoint that holds none of the
 * source's state, a sink and a transform added in front of the others, a table added to the table
 * pattern. Each ends with the lake equal to MySQL: nothing duplicated, nothing lost.
 */
@ExtendWith(MariaDbExtension.class)
class RestoreITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static Configuration restoring(String savepoint, boolean allowNonRestored) {
        Configuration conf = new Configuration();
        conf.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
        conf.set(SavepointConfigOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, allowNonRestored);
        return conf;
    }

    private static void createOrders(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "CREATE TABLE orders (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO orders VALUES (1, 1), (2, 2), (3, 3)");
    }

    private static void awaitEqual(JobClient job, HadoopCatalog catalog, Connection c, String db, String table)
            throws Exception {
        Lakes.awaitIceberg(job, catalog, TableIdentifier.of(db, table), () -> Canonical.mysql(c, db, table));
    }

    private static long files(Path table) throws IOException {
        try (Stream<Path> all = Files.walk(table)) {
            return all.filter(Files::isRegularFile).count();
        }
    }

    /** Waits until the table's directory holds more files: a writer opens its file with the first row it gets. */
    private static void awaitMoreFiles(JobClient job, Path table, long before) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (files(table) <= before) {
            Jobs.assertRunning(job);
            assertThat(System.nanoTime())
                    .as("a file the writer of %s opened for the change", table)
                    .isLessThan(deadline);
            Thread.sleep(20); // polling the table's directory; the deadline above decides
        }
    }

    /** A savepoint of a job that has nothing to do with the pipeline. */
    private static String savepointOfAnotherJob(Path savepoints) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.addSource(new Idle(), Types.LONG).uid("another-job-source").addSink(new DiscardingSink<>());
        return Jobs.stopWithSavepoint(env.executeAsync("another job"), savepoints);
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
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            JobClient first = Pipeline.builder()
                    .environment(Jobs.checkpointingEnvironment(new Configuration(), 1))
                    .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
            try {
                awaitEqual(first, catalog, c, db, "orders");
            } finally {
                Jobs.cancelAndAwait(first);
            }
            mysql.execute(db, "UPDATE orders SET v = 20 WHERE id = 2", "INSERT INTO orders VALUES (4, 4)");
            // A savepoint is named, but none of its state belongs to this pipeline: the source takes a new
            // snapshot over the table, which already holds every row once.
            String savepoint = savepointOfAnotherJob(savepoints);
            JobClient second = Pipeline.builder()
                    .environment(Jobs.checkpointingEnvironment(restoring(savepoint, true), 1))
                    .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
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
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path added, @TempDir Path savepoints)
            throws Exception {
        String db = mysql.createDatabase();
        createOrders(mysql, db);
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                HadoopCatalog addedCatalog = Lakes.hadoopCatalog(added);
                Connection c = mysql.connection(db)) {
            // Checkpoints every 2 s: the savepoint below then holds files the sink's committer has not yet
            // committed, in its state, which a restored job must hand to the same sink (and to no other).
            StreamExecutionEnvironment firstEnv = Jobs.checkpointingEnvironment(new Configuration(), 1);
            firstEnv.enableCheckpointing(2000);
            JobClient first = Pipeline.builder()
                    .environment(firstEnv)
                    .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
            String savepoint;
            try {
                awaitEqual(first, catalog, c, db, "orders");
                // A checkpoint may be in flight when the savepoint is taken: an aborted one's files are committed
                // on their own, before the savepoint's (Inlet's committer).
                Path orders = warehouse.resolve(db).resolve("orders");
                long files = files(orders);
                mysql.execute(db, "UPDATE orders SET v = 10 WHERE id = 1");
                awaitMoreFiles(
                        first, orders, files); // read by the source, written by the sink's writer, not yet checkpointed
                savepoint = Jobs.stopWithSavepoint(first, savepoints);
            } catch (Exception e) {
                Jobs.cancelIfRunning(first);
                throw e;
            }
            mysql.execute(db, "UPDATE orders SET v = 20 WHERE id = 2", "DELETE FROM orders WHERE id = 3");
            // Restored without dropping any state: every operator of the first job must be found again.
            JobClient second = Pipeline.builder()
                    .environment(Jobs.checkpointingEnvironment(restoring(savepoint, false), 1))
                    .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                    .transform(FilterTransform.builder().filter("v >= 0").build())
                    .sink(IcebergSink.builder()
                            .warehouse(added.toUri().toString())
                            .build())
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
            try {
                mysql.execute(db, "INSERT INTO orders VALUES (5, 5)");
                awaitEqual(second, catalog, c, db, "orders");
                // The added sink gets the changes from the savepoint on (it needs its own backfill for the rest).
                Lakes.awaitIceberg(
                        second,
                        addedCatalog,
                        TableIdentifier.of(db, "orders"),
                        () -> List.of("id=2, v=20", "id=5, v=5"));
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }

    @Test
    void aTableAddedToThePatternGetsItsSnapshotThenItsChanges(
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path savepoints) throws Exception {
        String db = mysql.createDatabase();
        createOrders(mysql, db);
        Map<String, String> src = MySqlOptions.of(mysql, db, "orders|items");
        src.put("scan.newly-added-table.enabled", "true");
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            JobClient first = Pipeline.builder()
                    .environment(Jobs.checkpointingEnvironment(new Configuration(), 1))
                    .source("mysql-cdc", src)
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
            String savepoint;
            try {
                awaitEqual(first, catalog, c, db, "orders");
                savepoint = Jobs.stopWithSavepoint(first, savepoints);
            } catch (Exception e) {
                Jobs.cancelIfRunning(first);
                throw e;
            }
            mysql.execute(
                    db,
                    "CREATE TABLE items (id INT NOT NULL PRIMARY KEY, sku VARCHAR(8))",
                    "INSERT INTO items VALUES (1, 'a'), (2, 'b')",
                    "UPDATE orders SET v = 7 WHERE id = 1");
            JobClient second = Pipeline.builder()
                    .environment(Jobs.checkpointingEnvironment(restoring(savepoint, false), 1))
                    .source("mysql-cdc", src)
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
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
