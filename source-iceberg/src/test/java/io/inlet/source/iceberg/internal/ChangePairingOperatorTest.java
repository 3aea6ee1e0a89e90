package io.inlet.source.iceberg.internal;

import io.inlet.core.InletStopException;

import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The keyed pairing on Flink's operator harness: rows of an epoch that removes nothing pass at once
 * only when every earlier epoch is complete, so a key's changes still leave in commit order.
 */
class ChangePairingOperatorTest {

    private static final RowType WITH_COMMIT = CommitColumns.appendTo(FlinkSchemaUtil.convert(TestTables.SCHEMA));

    /** A tagged row of key (id, 0) as a reader emits it, with its commit columns. */
    private static StreamRecord<RowData> tagged(RowKind kind, long id, String v, long epoch) {
        JoinedRowData row = new JoinedRowData(
                kind, GenericRowData.of(id, 0, StringData.fromString(v)), CommitColumns.of(epoch, epoch, epoch));
        return new StreamRecord<>(row, epoch);
    }

    /** A key-only delete of key (id, 0) as a reader emits it with before-images STATE: no value. */
    private static StreamRecord<RowData> deletedKey(long id, long epoch) {
        JoinedRowData row = new JoinedRowData(
                RowKind.UPDATE_BEFORE, GenericRowData.of(id, 0, null), CommitColumns.of(epoch, epoch, epoch));
        return new StreamRecord<>(row, epoch);
    }

    private static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness() throws Exception {
        return harness(false, false, null);
    }

    @SuppressWarnings("unchecked")
    private static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness(
            boolean keysFromState, boolean keepCommit, OperatorSubtaskState restored) throws Exception {
        var selector = IdentifierKeys.of(TestTables.SCHEMA).selector();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new ChangePairingOperator(WITH_COMMIT, keepCommit, keysFromState),
                selector,
                ((ResultTypeQueryable<RowData>) selector).getProducedType());
        h.setup(new RowDataSerializer(keepCommit ? WITH_COMMIT : FlinkSchemaUtil.convert(TestTables.SCHEMA)));
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    private static List<String> changes(KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h) {
        List<String> out = new ArrayList<>();
        for (RowData r : h.extractOutputValues()) {
            out.add(r.getRowKind().shortString() + r.getLong(0) + "=" + r.getString(2) + "/" + r.getArity());
        }
        return out;
    }

    @Test
    void anAloneRowWaitsBehindAnEarlierEpochOfItsKey() throws Exception {
        try (var h = harness()) {
            h.processWatermark(new Watermark(0));
            // Epoch 1 deletes key 7; epoch 2 (an append) inserts it again, read first by another reader.
            h.processElement(tagged(RowKind.DELETE, 7, "old", 1));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 7, "new", 2));
            assertThat(changes(h)).as("nothing before epoch 1 is complete").isEmpty();
            h.processWatermark(new Watermark(2));
            assertThat(changes(h)).containsExactly("-D7=old/3", "+I7=new/3");
        }
    }

    @Test
    void anAloneRowPassesAtOnceWhenTheEpochsBeforeAreComplete() throws Exception {
        try (var h = harness()) {
            h.processWatermark(new Watermark(4));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 8, "a", 5));
            assertThat(changes(h)).as("no state, no timer").containsExactly("+I8=a/3");
            assertThat(h.numKeyedStateEntries()).isZero();
            // A row of an epoch that also removes rows waits for its epoch.
            h.processElement(tagged(RowKind.INSERT, 9, "b", 6));
            assertThat(changes(h)).containsExactly("+I8=a/3");
            h.processWatermark(new Watermark(6));
            assertThat(changes(h)).containsExactly("+I8=a/3", "+I9=b/3");
        }
    }

    @Test
    void withBeforeImagesFromStateAKeyOnlyDeleteTakesTheKeptRowWithItsOwnSnapshot() throws Exception {
        try (var h = harness(true, true, null)) {
            h.processWatermark(new Watermark(0));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 1, "a", 1));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 2, "b", 1));
            // Epoch 2: an upsert of key 1 (its key deleted, a row added), key 2 deleted, key 3 deleted
            // though never there, key 4 upserted for the first time.
            h.processElement(deletedKey(1, 2));
            h.processElement(tagged(RowKind.INSERT, 1, "a2", 2));
            h.processElement(deletedKey(2, 2));
            h.processElement(deletedKey(3, 2));
            h.processElement(deletedKey(4, 2));
            h.processElement(tagged(RowKind.INSERT, 4, "d", 2));
            // Epoch 3: key 1 written again with its values changes nothing.
            h.processElement(deletedKey(1, 3));
            h.processElement(tagged(RowKind.INSERT, 1, "a2", 3));
            h.processWatermark(new Watermark(3));
            List<String> out = new ArrayList<>();
            for (RowData r : h.extractOutputValues()) {
                out.add(r.getRowKind().shortString() + r.getLong(0) + "=" + r.getString(2) + "@"
                        + CommitColumns.snapshotId(r, 3));
            }
            assertThat(out)
                    .containsExactlyInAnyOrder("+I1=a@1", "+I2=b@1", "-U1=a@2", "+U1=a2@2", "-D2=b@2", "+I4=d@2");
            assertThat(h.numKeyedStateEntries()).as("the rows of keys 1 and 4").isEqualTo(2);
        }
    }

    @Test
    void aReadCannotSwitchWhereItsBeforeImagesComeFromOnRestore() throws Exception {
        OperatorSubtaskState files;
        try (var h = harness(false, false, null)) {
            h.processWatermark(new Watermark(0));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 1, "a", 1));
            files = h.snapshot(1, 1);
        }
        assertThatThrownBy(() -> harness(true, false, files))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("started with before-images FILES and is restored with STATE")
                .hasMessageContaining("new uid prefix");
        OperatorSubtaskState state;
        try (var h = harness(true, false, null)) {
            h.processWatermark(new Watermark(0));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 1, "a", 1));
            state = h.snapshot(1, 1);
        }
        assertThatThrownBy(() -> harness(false, false, state))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("started with before-images STATE and is restored with FILES");
        // A pairing with nothing of its own in a restored job (a new uid prefix) starts in its mode.
        try (var h = harness(true, false, OperatorSubtaskState.builder().build())) {
            h.processWatermark(new Watermark(0));
            h.processElement(tagged(RowKind.UPDATE_AFTER, 2, "b", 1));
            assertThat(changes(h)).containsExactly("+I2=b/3");
        }
        try (var h = harness(true, false, state)) {
            h.processElement(deletedKey(1, 2));
            h.processWatermark(new Watermark(2));
            assertThat(changes(h)).as("the kept row survives the restore").containsExactly("-D1=a/3");
        }
    }
}
