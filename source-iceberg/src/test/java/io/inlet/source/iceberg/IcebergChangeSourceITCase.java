package io.inlet.source.iceberg;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.iceberg.internal.TestTables;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An Iceberg table feeds another Inlet pipeline: {@code source("iceberg", ...)} into Inlet's Iceberg
 * sink in another warehouse, while Iceberg's own upsert writer keeps changing the source table; the
 * copy equals the source after every snapshot.
 */
@Tag("every-flink-line") // run on Flink 1.18 too (see the README, Run the tests)
class IcebergChangeSourceITCase {

    /** One cluster for the class's jobs: starting one per job cost seconds each. */
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @TempDir
    Path upstream;

    @TempDir
    Path downstream;

    @Test
    @Timeout(300)
    void aPipelineFromAnIcebergTableKeepsItsCopyEqualThroughUpdatesAndDeletes() throws Exception {
        Table source = TestTables.create(upstream, "orders", true);
        TestTables.Churn churn = new TestTables.Churn(source, true, new Random(29), 25, 3);
        churn.commit(0, 40);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        JobClient job = Pipeline.builder()
                .environment(env)
                .source(
                        "iceberg",
                        Map.of(
                                "catalog-type", "hadoop",
                                "warehouse", upstream.toUri().toString(),
                                "catalog-table", "db.orders",
                                "monitor-interval", "100 ms"))
                .sink(IcebergSink.builder()
                        .warehouse(downstream.toUri().toString())
                        .build())
                .jobName("iceberg to iceberg")
                .build()
                .executeAsync();
        try (HadoopCatalog target = TestTables.catalog(downstream)) {
            for (int snapshot = 1; snapshot <= 6; snapshot++) {
                awaitEqual(source, target, snapshot);
                churn.commit(snapshot, 15);
            }
            awaitEqual(source, target, 7);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitEqual(Table source, HadoopCatalog target, int round) throws Exception {
        Map<String, String> expected = TestTables.current(source);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Map<String, String> copy = Map.of();
        while (System.nanoTime() < deadline) {
            if (target.tableExists(TableIdentifier.of("db", "orders"))) {
                Table t = target.loadTable(TableIdentifier.of("db", "orders"));
                if (t.currentSnapshot() != null) {
                    copy = TestTables.current(t);
                    if (copy.equals(expected)) {
                        return;
                    }
                }
            }
            Thread.sleep(200);
        }
        assertThat(copy).as("the copy after round %s", round).isEqualTo(expected);
    }
}
