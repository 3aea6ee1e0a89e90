package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.sink.iceberg.WriteMode;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job started without state over tables that already hold rows (the job jar killed and started
 * again with the same arguments) takes a new snapshot; the lake must end equal to MySQL, rows
 * deleted while no job ran included, and a job that resumes from a savepoint must not remove
 * anything.
 */
@ExtendWith(MariaDbExtension.class)
class NewSnapshotConvergesITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static JobClient start(MariaDbServer mysql, String db, Path warehouse, WriteMode mode, Configuration conf)
            throws Exception {
        Map<String, String> source = MySqlOptions.of(mysql, db, "orders|gone");
        // Chunks of five rows: both readers take part in the snapshot.
        source.put("scan.incremental.snapshot.chunk.size", "5");
        return Pipeline.builder()
                .environment(Jobs.checkpointingEnvironment(conf, 2))
                .source("mysql-cdc", source)
                .sink(IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .writeMode(mode)
                        .build())
                .build()
                .executeAsync();
    }

    private static Pipeline toHudi(MariaDbServer mysql, String db, HudiSink sink) {
        Map<String, String> source = MySqlOptions.of(mysql, db, "orders|gone");
        source.put("scan.incremental.snapshot.chunk.size", "5");
        return Pipeline.builder()
                .environment(Jobs.checkpointingEnvironment(new Configuration(), 2))
                .source("mysql-cdc", source)
                .sink(sink)
                .build();
    }

    private static void awaitEqual(
            JobClient job, HudiSink sink, List<TableDescriptor> tables, Path lake, Connection c, String db)
            throws Exception {
        for (TableDescriptor t : tables) {
            Lakes.awaitHudi(
                    job,
                    lake.resolve(db).resolve(t.tableId().table()),
                    sink.writeRowType(t),
                    t.primaryKey(),
                    () -> Canonical.mysqlAs(c, db, t.tableId().table(), t.toRowType()),
                    HudiOrdering.COLUMNS);
        }
    }

    private static void awaitEqual(JobClient job, HadoopCatalog catalog, Connection c, String db) throws Exception {
        for (String table : List.of("orders", "gone")) {
            Lakes.awaitIceberg(job, catalog, TableIdentifier.of(db, table), () -> Canonical.mysql(c, db, table));
        }
    }

    /** The snapshots of a table that removed the rows a new snapshot no longer found. */
    private static List<Long> reconciliations(HadoopCatalog catalog, String db, String table) {
        List<Long> out = new ArrayList<>();
        for (Snapshot s : catalog.loadTable(TableIdentifier.of(db, table)).snapshots()) {
            if (s.summary().containsKey("inlet.snapshot-reconciled-base")) {
                out.add(s.snapshotId());
            }
        }
        return out;
    }

    private static void createTables(MariaDbServer mysql, String db) {
        StringBuilder rows = new StringBuilder();
        for (int id = 1; id <= 20; id++) {
            rows.append(id == 1 ? "" : ", ")
                    .append('(')
                    .append(id)
                    .append(", ")
                    .append(id)
                    .append(')');
        }
        mysql.execute(
                db,
                "CREATE TABLE orders (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO orders VALUES " + rows,
                "CREATE TABLE gone (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO gone VALUES (1, 1), (2, 2), (3, 3)");
    }

    /** While no job runs: deletes in several chunks, updates, an insert, and a table emptied. */
    private static void changeWhileDown(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "DELETE FROM orders WHERE id IN (2, 7, 13, 20)",
                "UPDATE orders SET v = v + 100 WHERE id IN (3, 14)",
                "INSERT INTO orders VALUES (21, 21)",
                "DELETE FROM gone");
    }

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"AUTO", "UPSERT"})
    void aFreshStartOverExistingTablesRemovesRowsDeletedWhileNoJobRan(
            WriteMode mode, MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path savepoints) throws Exception {
        String db = mysql.createDatabase();
        createTables(mysql, db);
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            JobClient first = start(mysql, db, warehouse, mode, new Configuration());
            try {
                awaitEqual(first, catalog, c, db);
            } finally {
                Jobs.cancelAndAwait(first);
            }

            changeWhileDown(mysql, db);

            JobClient second = start(mysql, db, warehouse, mode, new Configuration());
            String savepoint;
            try {
                awaitEqual(second, catalog, c, db);
                assertThat(reconciliations(catalog, db, "orders"))
                        .as("commits that removed rows the snapshot no longer found")
                        .hasSize(1);
                assertThat(reconciliations(catalog, db, "gone")).hasSize(1);
                // The binlog phase goes on as before.
                mysql.execute(
                        db,
                        "DELETE FROM orders WHERE id = 4",
                        "INSERT INTO orders VALUES (22, 22)",
                        "UPDATE orders SET v = 0 WHERE id = 5",
                        "INSERT INTO gone VALUES (9, 9)");
                awaitEqual(second, catalog, c, db);
                savepoint = Jobs.stopWithSavepoint(second, savepoints);
            } finally {
                Jobs.cancelIfRunning(second);
            }

            // Resumed from the savepoint, the source takes no snapshot: nothing may be removed.
            mysql.execute(db, "DELETE FROM orders WHERE id = 6", "INSERT INTO orders VALUES (23, 23)");
            Configuration restore = new Configuration();
            restore.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
            JobClient third = start(mysql, db, warehouse, mode, restore);
            try {
                awaitEqual(third, catalog, c, db);
                mysql.execute(db, "UPDATE orders SET v = 1 WHERE id = 1");
                awaitEqual(third, catalog, c, db);
                assertThat(reconciliations(catalog, db, "orders")).hasSize(1);
            } finally {
                Jobs.cancelAndAwait(third);
            }
        }
    }

    @Test
    void aFreshStartOverExistingHudiTablesDeletesRowsDeletedWhileNoJobRan(MariaDbServer mysql, @TempDir Path lake)
            throws Exception {
        String db = mysql.createDatabase();
        createTables(mysql, db);
        // Two writer tasks and no small-file reuse: the rows spread over several file groups, which a job
        // started without state must find again (its index is empty). Compaction after every second delta
        // commit: deletes meet rows in base files too.
        HudiSink sink = HudiSink.builder()
                .path(lake.toUri().toString())
                .option("write.tasks", "2")
                .option("hoodie.parquet.small.file.limit", "0")
                .option("compaction.delta_commits", "2")
                .option("hoodie.embed.timeline.server", "false")
                .build();
        try (Connection c = mysql.connection(db)) {
            Pipeline first = toHudi(mysql, db, sink);
            List<TableDescriptor> tables = first.sinkTables();
            JobClient job = first.executeAsync();
            try {
                awaitEqual(job, sink, tables, lake, c, db);
            } finally {
                Jobs.cancelAndAwait(job);
            }

            changeWhileDown(mysql, db);
            JobClient second = toHudi(mysql, db, sink).executeAsync();
            try {
                awaitEqual(second, sink, tables, lake, c, db);
                // A deleted key comes back, others change; compactions fold the deletes into base files.
                mysql.execute(
                        db,
                        "INSERT INTO orders VALUES (2, 200)",
                        "DELETE FROM orders WHERE id = 4",
                        "UPDATE orders SET v = 0 WHERE id = 5",
                        "INSERT INTO gone VALUES (2, 22)");
                awaitEqual(second, sink, tables, lake, c, db);
                Path orders = lake.resolve(db).resolve("orders");
                // Changes until a compaction completes after the deletes (every second delta commit schedules one).
                int compactions = HudiReads.instants(orders, "commit").size();
                for (int i = 0; i < 20 && HudiReads.instants(orders, "commit").size() <= compactions; i++) {
                    mysql.execute(db, "UPDATE orders SET v = " + i + " WHERE id = 1");
                    awaitEqual(second, sink, tables, lake, c, db);
                }
                assertThat(HudiReads.instants(orders, "commit"))
                        .as("compactions of %s", orders)
                        .hasSizeGreaterThan(compactions);
                awaitEqual(second, sink, tables, lake, c, db);
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }
}
