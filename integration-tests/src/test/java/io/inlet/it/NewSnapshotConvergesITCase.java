package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
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

    static void createTables(MariaDbServer mysql, String db) {
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
    static void changeWhileDown(MariaDbServer mysql, String db) {
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
}
