package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NewSnapshotConvergesITCase} into Hudi: a job started without state over Hudi tables that
 * already hold rows deletes the rows deleted while no job ran, and compaction folds the deletes in.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith(MariaDbExtension.class)
class NewSnapshotConvergesHudiITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static Pipeline toHudi(MariaDbServer mysql, String db, HudiSink sink) {
        Map<String, String> source = MySqlOptions.of(mysql, db, "orders|gone");
        source.put("scan.incremental.snapshot.chunk.size", "5");
        return Pipeline.builder()
                .environment(Jobs.checkpointingEnvironment(new Configuration(), 2))
                .source("mysql-cdc", source)
                .sink(sink)
                .build();
    }

    @Test
    void aFreshStartOverExistingHudiTablesDeletesRowsDeletedWhileNoJobRan(MariaDbServer mysql, @TempDir Path lake)
            throws Exception {
        String db = mysql.createDatabase();
        NewSnapshotConvergesITCase.createTables(mysql, db);
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
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, tables);
            } finally {
                Jobs.cancelAndAwait(job);
            }

            NewSnapshotConvergesITCase.changeWhileDown(mysql, db);
            JobClient second = toHudi(mysql, db, sink).executeAsync();
            try {
                HudiLakes.awaitEqualToMySql(second, c, db, lake, sink, tables);
                // A deleted key comes back, others change; compactions fold the deletes into base files.
                mysql.execute(
                        db,
                        "INSERT INTO orders VALUES (2, 200)",
                        "DELETE FROM orders WHERE id = 4",
                        "UPDATE orders SET v = 0 WHERE id = 5",
                        "INSERT INTO gone VALUES (2, 22)");
                HudiLakes.awaitEqualToMySql(second, c, db, lake, sink, tables);
                Path orders = lake.resolve(db).resolve("orders");
                // Changes until a compaction completes after the deletes (every second delta commit schedules one).
                int compactions = HudiReads.instants(orders, "commit").size();
                for (int i = 0; i < 20 && HudiReads.instants(orders, "commit").size() <= compactions; i++) {
                    mysql.execute(db, "UPDATE orders SET v = " + i + " WHERE id = 1");
                    HudiLakes.awaitEqualToMySql(second, c, db, lake, sink, tables);
                }
                assertThat(HudiReads.instants(orders, "commit"))
                        .as("compactions of %s", orders)
                        .hasSizeGreaterThan(compactions);
                HudiLakes.awaitEqualToMySql(second, c, db, lake, sink, tables);
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }
}
