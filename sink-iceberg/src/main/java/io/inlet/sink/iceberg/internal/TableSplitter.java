package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;

import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Sends each event's row (with its kind), shaped by {@link IcebergRowConverter}, to its table's
 * side output, from which that table's Iceberg writer reads. The main output stays empty.
 */
@Internal
public final class TableSplitter extends ProcessFunction<ChangeEvent, RowData> {

    private static final long serialVersionUID = 1L;

    private static final RowData NO_FIELDS = new GenericRowData(0);

    private final HashMap<TableId, OutputTag<RowData>> tags;
    private final HashMap<TableId, IcebergRowConverter> converters;
    private final HashSet<TableId> upsertSnapshotRows;

    /**
     * @param upsertSnapshotRows tables written in changelog mode whose snapshot rows may repeat rows
     *     the table holds (it held rows when the job was built): each such row is written as a delete
     *     of its key and an insert, as upsert mode writes every row
     */
    public TableSplitter(
            Map<TableId, OutputTag<RowData>> tags,
            Map<TableId, IcebergRowConverter> converters,
            Set<TableId> upsertSnapshotRows) {
        this.tags = new HashMap<>(tags);
        this.converters = new HashMap<>(converters);
        this.upsertSnapshotRows = new HashSet<>(upsertSnapshotRows);
    }

    @Override
    public void processElement(ChangeEvent event, Context ctx, Collector<RowData> out) {
        OutputTag<RowData> tag = tags.get(event.tableId());
        if (tag == null) {
            throw new IllegalStateException(
                    "The Iceberg sink got an event of table " + event.tableId() + ", which it was not built for.");
        }
        RowData row = converters.get(event.tableId()).convert(event.row());
        if (event.position().kind() == SourcePosition.Kind.SNAPSHOT
                && event.kind() == RowKind.INSERT
                && upsertSnapshotRows.contains(event.tableId())) {
            // In changelog mode a delete removes the key's rows from earlier commits; the insert follows. The
            // delete is the row's values under another kind, not a copy: joined with a row of no fields.
            ctx.output(tag, new JoinedRowData(RowKind.DELETE, row, NO_FIELDS));
        }
        ctx.output(tag, row);
    }
}
