package io.inlet.sink.iceberg.internal;

import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.sink.iceberg.FaultyCatalog;
import io.inlet.sink.iceberg.TestFiles;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.WriteResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The committer against real Iceberg tables, through Flink's operator test harness. */
class TablesCommitterTest {

    @TempDir
    Path warehouse;

    private HadoopCatalog catalog;
    private Table orders;
    private Table items;
    private final GenericAppenderFactory files = TestFiles.appenders();

    @BeforeEach
    void tables() {
        catalog = new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
        orders = catalog.createTable(
                TableIdentifier.of("lake", "orders"),
                TestFiles.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("format-version", "2"));
        items = catalog.createTable(
                TableIdentifier.of("lake", "items"),
                TestFiles.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("format-version", "2"));
    }

    private TablesCommitter committer() {
        return new TablesCommitter(
                IcebergCatalogConfig.of(
                                "c",
                                "hadoop",
                                null,
                                Map.of("warehouse", warehouse.toUri().toString()),
                                Map.of())
                        .loader(),
                List.of("lake.orders", "lake.items"));
    }

    private OneInputStreamOperatorTestHarness<TableCommittable, Void> harness() throws Exception {
        return new OneInputStreamOperatorTestHarness<>(committer(), 1, 1, 0);
    }

    private OneInputStreamOperatorTestHarness<TableCommittable, Void> harness(FaultyCatalog.Faults faults)
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new TablesCommitter(faults.catalog(warehouse.toUri().toString()).loader(), List.of()), 1, 1, 0);
    }

    private StreamRecord<TableCommittable> insert(Table table, long checkpoint, int id, String v) throws Exception {
        return new StreamRecord<>(TableCommittable.of(
                table.name().replaceFirst("^[^.]+\\.", ""),
                checkpoint,
                WriteResult.builder()
                        .addDataFiles(TestFiles.dataFile(table, files, id, v))
                        .build()));
    }

    private StreamRecord<TableCommittable> update(Table table, long checkpoint, int id, String v) throws Exception {
        return new StreamRecord<>(TableCommittable.of(
                table.name().replaceFirst("^[^.]+\\.", ""),
                checkpoint,
                WriteResult.builder()
                        .addDeleteFiles(TestFiles.deleteOfKey(table, files, id))
                        .addDataFiles(TestFiles.dataFile(table, files, id, v))
                        .build()));
    }

    /** The checkpoint's notification, and its commits awaited: they run off the task thread. */
    private static void completed(OneInputStreamOperatorTestHarness<TableCommittable, Void> h, long checkpointId)
            throws Exception {
        h.notifyOfCompletedCheckpoint(checkpointId);
        ((TablesCommitter) h.getOperator()).awaitCommitted();
    }

    private int snapshots(Table table) {
        table.refresh();
        int n = 0;
        for (Object s : table.snapshots()) {
            n++;
        }
        return n;
    }

    @Test
    void anAbortedCheckpointIsCommittedOnItsOwnBeforeTheNext() throws Exception {
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness()) {
            h.open();
            h.processElement(insert(orders, 1, 1, "v1"));
            // Checkpoint 1 aborted before its barrier reached the committer; checkpoint 2 updates the row.
            h.processElement(update(orders, 2, 1, "v2"));
            h.snapshot(2L, 2L);
            completed(h, 2L);
        }
        assertThat(TestFiles.rows(orders)).containsExactly("1=v2");
        assertThat(snapshots(orders)).as("one snapshot per checkpoint").isEqualTo(2);
        assertThat(orders.currentSnapshot().summary()).containsEntry(TablesCommitter.CHECKPOINT, "2");
    }

    @Test
    void restoredFilesAreCommittedExactlyOnceAlsoIntoANewJob() throws Exception {
        OperatorSubtaskState beforeCommit;
        OperatorSubtaskState afterCommit;
        String lineage;
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness()) {
            h.open();
            h.processElement(insert(orders, 1, 1, "v1"));
            h.processElement(insert(items, 1, 7, "a"));
            beforeCommit = h.snapshot(1L, 1L);
            completed(h, 1L);
            h.processElement(update(orders, 2, 1, "v2"));
            afterCommit = h.snapshot(2L, 2L);
            // The job dies before checkpoint 2's notification: its files are only in the state.
            lineage = ((TablesCommitter) h.getOperator()).lineage();
        }
        assertThat(TestFiles.rows(orders)).containsExactly("1=v1");
        // Restored from checkpoint 1 (whose commit happened): nothing is committed twice.
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness()) {
            h.initializeState(beforeCommit);
            h.open();
            assertThat(((TablesCommitter) h.getOperator()).lineage()).isEqualTo(lineage);
        }
        assertThat(TestFiles.rows(orders)).containsExactly("1=v1");
        assertThat(TestFiles.rows(items)).containsExactly("7=a");
        assertThat(snapshots(orders)).isEqualTo(1);
        // Restored from checkpoint 2 (a new job id, the same lineage): its files go in once, at the restore.
        for (int attempt = 0; attempt < 2; attempt++) {
            try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness()) {
                h.initializeState(afterCommit);
                h.open();
            }
        }
        assertThat(TestFiles.rows(orders)).containsExactly("1=v2");
        assertThat(snapshots(orders)).isEqualTo(2);
        assertThat(snapshots(items))
                .as("a table with nothing new gets no snapshot")
                .isEqualTo(1);
    }

    @Test
    @Timeout(120)
    void theTaskGoesOnWhileCommitsRunAndWaitsOnlyForTheCheckpointTwoBefore() throws Exception {
        FaultyCatalog.Faults faults = FaultyCatalog.faults().stallNextCommit();
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness(faults)) {
            h.open();
            h.processElement(insert(orders, 1, 1, "a"));
            h.snapshot(1L, 1L);
            h.notifyOfCompletedCheckpoint(1L);
            assertThat(faults.awaitStalled(60, TimeUnit.SECONDS)).isTrue();
            // Checkpoint 1's commit hangs in the catalog: the next files, barrier and notification go on.
            h.processElement(insert(orders, 2, 2, "b"));
            h.snapshot(2L, 2L);
            h.notifyOfCompletedCheckpoint(2L);
            assertThat(TestFiles.rows(orders)).isEmpty();
            // Checkpoint 3's barrier waits for checkpoint 1's commit.
            CompletableFuture<OperatorSubtaskState> third = CompletableFuture.supplyAsync(() -> {
                try {
                    return h.snapshot(3L, 3L);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() -> third.get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            faults.release();
            assertThat(third.get(60, TimeUnit.SECONDS)).isNotNull();
            completed(h, 3L);
            assertThat(TestFiles.rows(orders)).containsExactly("1=a", "2=b");
            assertThat(snapshots(orders)).as("one snapshot per checkpoint").isEqualTo(2);
        }
    }

    @Test
    void aTableThatCannotCommitHoldsUpNoOther() throws Exception {
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness()) {
            h.open();
            h.processElement(insert(orders, 1, 1, "v1"));
            h.processElement(new StreamRecord<>(TableCommittable.of(
                    "lake.gone",
                    1,
                    WriteResult.builder()
                            .addDataFiles(TestFiles.dataFile(orders, files, 9, "x"))
                            .build())));
            h.snapshot(1L, 1L);
            completed(h, 1L);
            assertThat(TestFiles.rows(orders)).containsExactly("1=v1");
            // The failed table's files stay pending, in the state.
            OperatorSubtaskState state = h.snapshot(2L, 2L);
            assertThat(state.getManagedOperatorState()).isNotEmpty();
        }
    }

    @Test
    void aCommitThatFailsAfterChangingTheTableIsNotRepeated() throws Exception {
        FaultyCatalog.Faults faults = FaultyCatalog.faults().failCommitsAfterApplying(1);
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness(faults)) {
            h.open();
            h.processElement(insert(orders, 1, 1, "v1"));
            h.snapshot(1L, 1L);
            // The commit is in the table, but the committer is told it failed (a timeout after the commit).
            completed(h, 1L);
            assertThat(faults.failed()).isEqualTo(1);
            h.processElement(insert(orders, 2, 2, "v2"));
            h.snapshot(2L, 2L);
            completed(h, 2L);
        }
        assertThat(TestFiles.rows(orders)).containsExactly("1=v1", "2=v2");
        assertThat(snapshots(orders)).isEqualTo(2);
    }

    @Test
    void aCommitThatFailsBeforeChangingTheTableIsRetriedInOrder() throws Exception {
        FaultyCatalog.Faults faults = FaultyCatalog.faults().failCommitsBeforeApplying(2);
        // Iceberg retries a failed commit itself; here each attempt of the committer fails once.
        orders.updateProperties().set("commit.retry.num-retries", "0").commit();
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness(faults)) {
            h.open();
            h.processElement(insert(orders, 1, 1, "v1"));
            h.snapshot(1L, 1L);
            completed(h, 1L);
            h.processElement(update(orders, 2, 1, "v2"));
            h.snapshot(2L, 2L);
            completed(h, 2L);
            assertThat(TestFiles.rows(orders)).isEmpty();
            h.snapshot(3L, 3L);
            completed(h, 3L);
        }
        assertThat(faults.failed()).isEqualTo(2);
        // Checkpoint 1, then 2: each its own snapshot, so that 2's delete applies to 1's row.
        assertThat(TestFiles.rows(orders)).containsExactly("1=v2");
        assertThat(snapshots(orders)).isEqualTo(2);
    }

    @Test
    void aRestoreBetweenTwoPartsOfACheckpointCommitsOnlyTheRest() throws Exception {
        FaultyCatalog.Faults faults = FaultyCatalog.faults().crashCommit(2, true);
        OperatorSubtaskState state;
        OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness(faults);
        h.open();
        // Three writers of one table in checkpoint 1 (two closed early): three parts.
        h.processElement(part(insert(orders, 1, 1, "v1"), 0));
        h.processElement(part(update(orders, 1, 1, "v2"), 1));
        h.processElement(part(insert(orders, 1, 2, "y"), 2));
        state = h.snapshot(1L, 1L);
        // The task dies right after the catalog took part 1.
        assertThatThrownBy(() -> completed(h, 1L)).isInstanceOf(FaultyCatalog.InjectedCrash.class);
        assertThat(TestFiles.rows(orders)).containsExactly("1=v2");
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> restored = harness()) {
            restored.initializeState(state);
            restored.open();
        }
        assertThat(TestFiles.rows(orders)).containsExactly("1=v2", "2=y");
        assertThat(snapshots(orders)).isEqualTo(3);
        assertThat(orders.currentSnapshot().summary())
                .containsEntry(TablesCommitter.PART, "2")
                .containsEntry(TablesCommitter.PARTS, "3");
    }

    @Test
    void aRestoredOlderCheckpointDoesNotMoveTheTablesPositionBack() throws Exception {
        FaultyCatalog.Faults faults = FaultyCatalog.faults().crashCommit(3, true);
        OperatorSubtaskState state;
        OneInputStreamOperatorTestHarness<TableCommittable, Void> h = harness(faults);
        h.open();
        h.processElement(part(insert(orders, 1, 1, "a"), 0));
        h.processElement(part(insert(orders, 1, 2, "b"), 1));
        h.snapshot(1L, 1L);
        h.processElement(part(insert(orders, 2, 3, "c"), 0));
        h.processElement(part(insert(orders, 2, 4, "d"), 1));
        // Checkpoint 2 is taken before checkpoint 1's notification: its state still holds checkpoint 1's files.
        state = h.snapshot(2L, 2L);
        completed(h, 1L);
        // The task dies right after the catalog took checkpoint 2's first part.
        assertThatThrownBy(() -> completed(h, 2L)).isInstanceOf(FaultyCatalog.InjectedCrash.class);
        assertThat(TestFiles.rows(orders)).containsExactly("1=a", "2=b", "3=c");
        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> restored = harness()) {
            restored.initializeState(state);
            restored.open();
        }
        // Checkpoint 1 is skipped, then checkpoint 2's first part: only its second part is new.
        assertThat(TestFiles.rows(orders)).containsExactly("1=a", "2=b", "3=c", "4=d");
        assertThat(snapshots(orders)).isEqualTo(4);
    }

    private static StreamRecord<TableCommittable> part(StreamRecord<TableCommittable> r, int part) {
        TableCommittable c = r.getValue();
        return new StreamRecord<>(TableCommittable.of(c.table(), c.checkpointId(), part, c.result()));
    }

    @Test
    void shipsToTaskManagers() throws Exception {
        TablesCommitter committer = committer();
        assertThat(InstantiationUtil.clone(committer)).isNotNull();
        TableCommittable c = TableCommittable.of(
                "lake.orders",
                3,
                WriteResult.builder()
                        .addDataFiles(TestFiles.dataFile(orders, files, 1, "v"))
                        .build());
        TableCommittable copy = InstantiationUtil.clone(c);
        assertThat(copy.table()).isEqualTo("lake.orders");
        assertThat(copy.checkpointId()).isEqualTo(3);
        assertThat(copy.result().dataFiles()).hasSize(1);

        // From writer to committer: Inlet's serializer, not Kryo.
        TypeSerializer<TableCommittable> serializer =
                TableCommittableSerializer.TYPE.createSerializer(new ExecutionConfig());
        assertThat(serializer).isSameAs(TableCommittableSerializer.INSTANCE);
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(c, out);
        serializer.serialize(c, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        DataOutputSerializer copied = new DataOutputSerializer(16 * 1024);
        serializer.copy(in, copied);
        TableCommittable back = serializer.deserialize(in);
        assertThat(in.available()).isZero();
        assertThat(copied.getCopyOfBuffer()).hasSize(out.length() / 2);
        assertThat(back.table()).isEqualTo("lake.orders");
        assertThat(back.checkpointId()).isEqualTo(3);
        assertThat(back.result().dataFiles()[0].path())
                .isEqualTo(c.result().dataFiles()[0].path());
        assertThat(back.result().dataFiles()[0].recordCount()).isEqualTo(1);

        DataOutputSerializer snapshot = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(snapshot, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<TableCommittable> restored = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(snapshot.getCopyOfBuffer()),
                getClass().getClassLoader());
        assertThat(restored.resolveSchemaCompatibility(serializer).isCompatibleAsIs())
                .isTrue();
    }
}
