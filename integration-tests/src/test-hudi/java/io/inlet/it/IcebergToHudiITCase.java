package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Two Inlet pipelines in a row on real systems: MariaDB mirrored into Iceberg, and that Iceberg
 * table, through the {@code iceberg} ChangeSource, into a Hudi MERGE_ON_READ table read with Hudi's
 * own reader. The Hudi table equals MySQL through inserts, updates and deletes, and after the second
 * pipeline is stopped with a savepoint, MySQL changes (deletes included) while it is down, and it is
 * restored: its versions are ordered by the Iceberg snapshots' sequence numbers.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith(MariaDbExtension.class)
class IcebergToHudiITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static Pipeline icebergToHudi(Path warehouse, String db, HudiSink sink, Configuration conf) {
        return Pipeline.builder()
                .environment(Jobs.checkpointingEnvironment(conf, 1))
                .source(
                        "iceberg",
                        Map.of(
                                "catalog-type",
                                "hadoop",
                                "warehouse",
                                warehouse.toUri().toString(),
                                "catalog-table",
                                db + ".t",
                                "monitor-interval",
                                "200 ms"))
                .sink(sink)
                .build();
    }

    @Test
    void anIcebergMirrorFeedsHudiThroughChangesAndAStopAndRestore(
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path lake, @TempDir Path savepoints)
            throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, note VARCHAR(32))",
                "INSERT INTO t VALUES (1, 0, 'a'), (2, 0, 'b'), (3, 0, 'c')");
        Pipeline mirror = MySqlOptions.tableToIceberg(mysql, db, warehouse, Map.of());
        TableDescriptor source = mirror.sinkTables().get(0);
        JobClient mirrorJob = mirror.executeAsync();
        JobClient hudiJob = null;
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            TableIdentifier id = TableIdentifier.of(db, "t");
            Lakes.awaitIceberg(mirrorJob, catalog, id, () -> Canonical.mysqlAs(c, db, "t", source.toRowType()));

            HudiSink sink = HudiLakes.hudiSink(lake, 3);
            Pipeline first = icebergToHudi(warehouse, db, sink, new Configuration());
            TableDescriptor t = first.sinkTables().get(0);
            RowType type = sink.writeRowType(t);
            Path table = lake.resolve(db).resolve("t");
            Callable<List<String>> expected = () -> Canonical.mysqlAs(c, db, "t", t.toRowType());
            hudiJob = first.executeAsync();
            HudiLakes.awaitHudi(hudiJob, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);

            mysql.execute(
                    db,
                    "UPDATE t SET v = 1 WHERE id = 1",
                    "DELETE FROM t WHERE id = 2",
                    "INSERT INTO t VALUES (4, 0, 'd')",
                    "UPDATE t SET note = 'c2' WHERE id = 3");
            HudiLakes.awaitHudi(hudiJob, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);
            mysql.execute(db, "UPDATE t SET v = 2 WHERE id = 1", "UPDATE t SET v = 3 WHERE id = 1");
            HudiLakes.awaitHudi(hudiJob, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);

            String savepoint = Jobs.stopWithSavepoint(hudiJob, savepoints);
            hudiJob = null;
            mysql.execute(
                    db,
                    "UPDATE t SET v = 10, note = 'while down' WHERE id = 1",
                    "DELETE FROM t WHERE id = 3",
                    "INSERT INTO t VALUES (2, 5, 'b again')",
                    "INSERT INTO t VALUES (5, 0, 'e')");
            Lakes.awaitIceberg(mirrorJob, catalog, id, () -> Canonical.mysqlAs(c, db, "t", source.toRowType()));

            Configuration restore = new Configuration();
            restore.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
            hudiJob = icebergToHudi(warehouse, db, sink, restore).executeAsync();
            HudiLakes.awaitHudi(hudiJob, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);
        } finally {
            if (hudiJob != null) {
                Jobs.cancelIfRunning(hudiJob);
            }
            Jobs.cancelIfRunning(mirrorJob);
        }
    }
}
