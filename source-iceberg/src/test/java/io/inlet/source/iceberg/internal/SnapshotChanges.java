package io.inlet.source.iceberg.internal;

import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.CloseableIterator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes of one snapshot the way the distributed read makes them, in one place: the planner's
 * splits, each read by the split reader, the tagged rows grouped by key and paired by {@link
 * NetChange}. The keyed operator and the watermarks are what the ITCases add on top. With
 * before-images STATE the tagged rows go through the keyed {@link ChangePairingOperator} itself, on
 * Flink's operator harness, one epoch per snapshot read, so its state carries from one snapshot to
 * the next as in a job.
 */
final class SnapshotChanges implements AutoCloseable {

    private final Table table;
    private final boolean keysFromState;
    private final ChangeSplitReader reader;
    private final IdentifierKeys keys;
    private final RowDataSerializer copier;

    private KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness;
    private long epoch;
    private int taken;

    SnapshotChanges(Table table) {
        this(table, false);
    }

    SnapshotChanges(Table table, boolean keysFromState) {
        this.table = table;
        this.keysFromState = keysFromState;
        this.reader = new ChangeSplitReader(table, table.schema());
        this.keys = IdentifierKeys.of(table.schema());
        this.copier = new RowDataSerializer(ChangePairingOperator.tagged(FlinkSchemaUtil.convert(table.schema())));
    }

    /** The snapshot's changes, in no particular order across keys. */
    List<RowData> of(Snapshot snapshot) throws Exception {
        return pair(SnapshotPlanner.changes(table, snapshot, epoch + 1, table.schema(), keysFromState), snapshot);
    }

    /** Every row of the table at the snapshot, as inserts. */
    List<RowData> rows(Snapshot snapshot) throws Exception {
        return pair(SnapshotPlanner.scan(table, snapshot, epoch + 1), snapshot);
    }

    private List<RowData> pair(List<ChangeSplit> splits, Snapshot snapshot) throws Exception {
        epoch++;
        if (keysFromState) {
            return throughOperator(splits, snapshot);
        }
        Map<IdentifierKeys.Key, List<RowData>> byKey = new LinkedHashMap<>();
        for (ChangeSplit split : splits) {
            try (CloseableIterator<RowData> rows = reader.open(split)) {
                while (rows.hasNext()) {
                    RowData copy = copy(rows.next());
                    byKey.computeIfAbsent(keys.of(copy), k -> new ArrayList<>()).add(copy);
                }
            }
        }
        List<RowData> out = new ArrayList<>();
        byKey.values().forEach(rows -> out.addAll(NetChange.of(rows)));
        return out;
    }

    private RowData copy(RowData row) {
        RowData copy = copier.copy(row);
        copy.setRowKind(row.getRowKind());
        return copy;
    }

    @SuppressWarnings("unchecked")
    private List<RowData> throughOperator(List<ChangeSplit> splits, Snapshot snapshot) throws Exception {
        if (harness == null) {
            RowType rowType = FlinkSchemaUtil.convert(table.schema());
            var selector = keys.selector();
            harness = new KeyedOneInputStreamOperatorTestHarness<>(
                    new ChangePairingOperator(CommitColumns.appendTo(rowType), false, true),
                    selector,
                    ((ResultTypeQueryable<RowData>) selector).getProducedType());
            harness.setup(new RowDataSerializer(rowType));
            harness.open();
            harness.processWatermark(new Watermark(0));
        }
        RowData commit = CommitColumns.of(snapshot.snapshotId(), snapshot.sequenceNumber(), snapshot.timestampMillis());
        for (ChangeSplit split : splits) {
            try (CloseableIterator<RowData> rows = reader.open(split)) {
                while (rows.hasNext()) {
                    RowData copy = copy(rows.next());
                    harness.processElement(
                            new StreamRecord<>(new JoinedRowData(copy.getRowKind(), copy, commit), epoch));
                }
            }
        }
        harness.processWatermark(new Watermark(epoch));
        List<RowData> all = harness.extractOutputValues();
        List<RowData> out = new ArrayList<>(all.subList(taken, all.size()));
        taken = all.size();
        return out;
    }

    /** The rows the operator keeps with before-images STATE: one per live key. */
    int keptRows() {
        return harness == null ? 0 : harness.numKeyedStateEntries();
    }

    @Override
    public void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }
}
