package io.inlet.source.iceberg.internal;

import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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

    @SuppressWarnings("unchecked")
    private static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness() throws Exception {
        var selector = IdentifierKeys.of(TestTables.SCHEMA).selector();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new ChangePairingOperator(WITH_COMMIT, false),
                selector,
                ((ResultTypeQueryable<RowData>) selector).getProducedType());
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
}
