package io.inlet.source.iceberg.internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
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
 * NetChange}. The keyed operator and the watermarks are what the ITCases add on top.
 */
final class SnapshotChanges {

    private final Table table;
    private final ChangeSplitReader reader;
    private final IdentifierKeys keys;
    private final RowDataSerializer copier;

    SnapshotChanges(Table table) {
        this.table = table;
        this.reader = new ChangeSplitReader(table, table.schema());
        this.keys = IdentifierKeys.of(table.schema());
        this.copier = new RowDataSerializer(FlinkSchemaUtil.convert(table.schema()));
    }

    /** The snapshot's changes, in no particular order across keys. */
    List<RowData> of(Snapshot snapshot) throws Exception {
        return pair(SnapshotPlanner.changes(table, snapshot, 1));
    }

    /** Every row of the table at the snapshot, as inserts. */
    List<RowData> rows(Snapshot snapshot) throws Exception {
        return pair(SnapshotPlanner.scan(table, snapshot, 1));
    }

    private List<RowData> pair(List<ChangeSplit> splits) throws Exception {
        Map<IdentifierKeys.Key, List<RowData>> byKey = new LinkedHashMap<>();
        for (ChangeSplit split : splits) {
            try (CloseableIterator<RowData> rows = reader.open(split)) {
                while (rows.hasNext()) {
                    RowData row = rows.next();
                    RowData copy = copier.copy(row);
                    copy.setRowKind(row.getRowKind());
                    byKey.computeIfAbsent(keys.of(copy), k -> new ArrayList<>()).add(copy);
                }
            }
        }
        List<RowData> out = new ArrayList<>();
        byKey.values().forEach(rows -> out.addAll(NetChange.of(rows)));
        return out;
    }
}
