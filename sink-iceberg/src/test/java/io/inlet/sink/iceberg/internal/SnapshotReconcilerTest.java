package io.inlet.sink.iceberg.internal;

import io.inlet.core.spi.SnapshotSignal;
import io.inlet.iceberg.IcebergCatalogConfig;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.StreamSink;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What the reconciler drops and when it sees a checkpoint committed, on a real Hadoop-catalog table. */
class SnapshotReconcilerTest {

    private static final Schema SCHEMA =
            new Schema(List.of(Types.NestedField.required(1, "id", Types.LongType.get())), Set.of(1));

    private static HadoopCatalog catalog(Path warehouse) {
        return new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
    }

    private static DataFile file(String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath("/lake/" + name + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(3)
                .build();
    }

    private static void append(Table table, String name, Map<String, String> summary) {
        AppendFiles append = table.newAppend().appendFile(file(name));
        summary.forEach(append::set);
        append.commit();
    }

    private static List<String> files(Table table) throws Exception {
        table.refresh();
        List<String> out = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> out.add(t.file().path().toString()));
        }
        return out;
    }

    @Test
    void dropsTheFilesWrittenUpToTheBaseOnceAndKeepsTheRest(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            Table table = c.createTable(
                    TableIdentifier.of("lake", "orders"),
                    SCHEMA,
                    PartitionSpec.unpartitioned(),
                    Map.of("format-version", "2"));
            append(table, "old-1", Map.of());
            append(table, "old-2", Map.of());
            long base = table.currentSnapshot().sequenceNumber();
            append(table, "new-1", Map.of());

            assertThat(SnapshotReconciler.dropOlderThan(table, base)).isEqualTo(2);
            assertThat(files(table)).containsExactly("/lake/new-1.parquet");
            assertThat(table.currentSnapshot().operation()).isEqualTo("delete");
            assertThat(table.currentSnapshot().summary())
                    .containsEntry("inlet.snapshot-reconciled-base", String.valueOf(base));
            // A second run (a restore before the reconciler's state forgot the table) finds nothing.
            assertThat(SnapshotReconciler.dropOlderThan(table, base)).isZero();
            assertThat(files(table)).containsExactly("/lake/new-1.parquet");
        }
    }

    @Test
    void seesACheckpointCommittedOnlyByThisJobsCommitter(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            Table table = c.createTable(
                    TableIdentifier.of("lake", "orders"),
                    SCHEMA,
                    PartitionSpec.unpartitioned(),
                    Map.of("format-version", "2"));
            assertThat(SnapshotReconciler.committedThrough(table, "job", 1)).isFalse();
            append(table, "a", Map.of("flink.job-id", "job", "flink.max-committed-checkpoint-id", "5"));
            append(table, "b", Map.of("flink.job-id", "other", "flink.max-committed-checkpoint-id", "9"));
            append(table, "c", Map.of());
            table.refresh();
            assertThat(SnapshotReconciler.committedThrough(table, "job", 5)).isTrue();
            assertThat(SnapshotReconciler.committedThrough(table, "job", 6)).isFalse();
            assertThat(SnapshotReconciler.committedThrough(table, "other", 9)).isTrue();
            assertThat(SnapshotReconciler.committedThrough(table, "third", 1)).isFalse();
        }
    }

    @Test
    void shipsToTaskManagers(@TempDir Path warehouse) throws Exception {
        SnapshotReconciler r = new SnapshotReconciler(
                IcebergCatalogConfig.of(
                                "c",
                                "hadoop",
                                null,
                                Map.of("warehouse", warehouse.toUri().toString()),
                                Map.of())
                        .loader(),
                List.of("lake.orders"));
        assertThat(InstantiationUtil.clone(r)).isNotNull().isNotSameAs(r);
    }

    private static OneInputStreamOperatorTestHarness<SnapshotSignal, Object> harness(Path warehouse) throws Exception {
        SnapshotReconciler reconciler = new SnapshotReconciler(
                IcebergCatalogConfig.of(
                                "c",
                                "hadoop",
                                null,
                                Map.of("warehouse", warehouse.toUri().toString()),
                                Map.of())
                        .loader(),
                List.of("lake.orders"));
        return new OneInputStreamOperatorTestHarness<>(new StreamSink<>(reconciler));
    }

    private static Table ordersWithAnOldFile(HadoopCatalog c) {
        Table table = c.createTable(
                TableIdentifier.of("lake", "orders"),
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("format-version", "2"));
        append(table, "old", Map.of());
        return table;
    }

    private static void committedBy(Table table, String name, String jobId, long checkpointId) {
        append(
                table,
                name,
                Map.of("flink.job-id", jobId, "flink.max-committed-checkpoint-id", String.valueOf(checkpointId)));
    }

    @Test
    void takesTheBaseFromWhenItOpenedAndDropsOnlyOnceTheSnapshotIsCommitted(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse);
                OneInputStreamOperatorTestHarness<SnapshotSignal, Object> h = harness(warehouse)) {
            Table table = ordersWithAnOldFile(c);
            h.open();
            String job = h.getEnvironment().getJobID().toString();
            // A commit of this run before STARTED reaches the reconciler (an unaligned checkpoint overtook it).
            committedBy(table, "snapshot-early", job, 1);
            h.processElement(new StreamRecord<>(SnapshotSignal.STARTED));
            h.processElement(new StreamRecord<>(SnapshotSignal.COMPLETED));
            h.snapshot(2L, 0L);
            h.notifyOfCompletedCheckpoint(2L);
            h.notifyOfCompletedCheckpoint(3L);
            assertThat(files(table))
                    .as("checkpoint 3, which holds every snapshot row, is not committed yet")
                    .hasSize(2);
            committedBy(table, "snapshot-late", job, 3);
            h.notifyOfCompletedCheckpoint(3L);
            assertThat(files(table))
                    .containsExactlyInAnyOrder("/lake/snapshot-early.parquet", "/lake/snapshot-late.parquet");
        }
    }

    @Test
    void aNewSnapshotOverARestoredOneTakesTheNewBase(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            Table table = ordersWithAnOldFile(c);
            OperatorSubtaskState unfinished;
            try (OneInputStreamOperatorTestHarness<SnapshotSignal, Object> first = harness(warehouse)) {
                first.open();
                first.processElement(new StreamRecord<>(SnapshotSignal.STARTED));
                unfinished = first.snapshot(1L, 0L);
            }
            // That snapshot wrote rows, then the job stopped; a savepoint without the source's state brings it back.
            append(table, "first-snapshot", Map.of());
            try (OneInputStreamOperatorTestHarness<SnapshotSignal, Object> second = harness(warehouse)) {
                second.initializeState(unfinished);
                second.open();
                String job = second.getEnvironment().getJobID().toString();
                second.processElement(new StreamRecord<>(SnapshotSignal.STARTED));
                committedBy(table, "second-snapshot", job, 2);
                second.processElement(new StreamRecord<>(SnapshotSignal.COMPLETED));
                second.snapshot(1L, 0L);
                second.notifyOfCompletedCheckpoint(2L);
                assertThat(files(table))
                        .as("rows of the unfinished snapshot are older than this one too")
                        .containsExactly("/lake/second-snapshot.parquet");
            }
        }
    }

    @Test
    void aRestoredBinlogPhaseRemovesNothing(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse);
                OneInputStreamOperatorTestHarness<SnapshotSignal, Object> h = harness(warehouse)) {
            Table table = ordersWithAnOldFile(c);
            h.open();
            // No STARTED: a COMPLETED alone (a restarted reader) must not act on a base nobody confirmed.
            h.processElement(new StreamRecord<>(SnapshotSignal.COMPLETED));
            h.snapshot(1L, 0L);
            h.notifyOfCompletedCheckpoint(5L);
            assertThat(files(table)).containsExactly("/lake/old.parquet");
        }
    }
}
