package io.inlet.sink.iceberg;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ValuesChangeSource;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The committer's metrics per table, under the names of Iceberg's own committer. */
class CommitMetricsITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            MiniClusters.extension(2, REPORTER.addToConfiguration(new Configuration()));

    @TempDir
    Path warehouse;

    private static TableDescriptor table(String db, String name) {
        return TableDescriptor.builder(TableId.of(db, name))
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .build();
    }

    @Test
    void countsCommittedFilesAndRecordsPerTable() throws Exception {
        String db = "metrics_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        TableDescriptor a = table(db, "a");
        TableDescriptor b = table(db, "b");
        ValuesChangeSource source = ValuesChangeSource.builder()
                .insert(a, 1, "x")
                .insert(a, 2, "y")
                .insert(a, 3, "z")
                .insert(b, 1, "p")
                .insert(b, 2, "q")
                .update(b, new Object[] {1, "p"}, new Object[] {1, "p2"})
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(100);
        JobID job = Pipeline.builder()
                .environment(env)
                .source(source)
                .sink(IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .writeMode(WriteMode.UPSERT)
                        .tableProperty("write.format.default", "avro")
                        .build())
                .build()
                .execute()
                .getJobID();

        Map<String, Metric> ma = REPORTER.findMetrics(job, "IcebergFilesCommitter.table." + db + ".a.");
        assertThat(counter(ma, "committedDataFilesRecordCount")).isEqualTo(3);
        assertThat(counter(ma, "committedDataFilesCount")).isPositive();
        assertThat(counter(ma, "committedDataFilesByteCount")).isPositive();
        // Upserts: each key is deleted before its row, in case the table holds it already.
        assertThat(counter(ma, "committedDeleteFilesRecordCount")).isEqualTo(3);
        assertThat(counter(ma, "failedCommits")).isZero();
        assertThat(gauge(ma, "lastCommitDurationMs")).isGreaterThanOrEqualTo(0L);
        assertThat(gauge(ma, "elapsedSecondsSinceLastSuccessfulCommit")).isGreaterThanOrEqualTo(0L);

        Map<String, Metric> mb = REPORTER.findMetrics(job, "IcebergFilesCommitter.table." + db + ".b.");
        // Two keys: the update of the first came before the barrier and replaced its insert in the writer.
        assertThat(counter(mb, "committedDataFilesRecordCount")).isEqualTo(2);
        assertThat(counter(mb, "committedDeleteFilesRecordCount")).isEqualTo(2);
        assertThat(counter(mb, "committedDeleteFilesCount")).isPositive();
        // The update's -U and +U each replaced the held insert of key 1 instead of reaching a file.
        assertThat(counter(REPORTER.findMetrics(job, "changesCoalesced"), "changesCoalesced"))
                .isEqualTo(2);
    }

    private static long counter(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + name))
                .mapToLong(e -> ((Counter) e.getValue()).getCount())
                .reduce(Long::sum)
                .orElseThrow(() -> new AssertionError("No metric " + name + " among " + metrics.keySet()));
    }

    private static long gauge(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + name))
                .mapToLong(e -> (Long) ((Gauge<?>) e.getValue()).getValue())
                .max()
                .orElseThrow(() -> new AssertionError("No metric " + name + " among " + metrics.keySet()));
    }
}
