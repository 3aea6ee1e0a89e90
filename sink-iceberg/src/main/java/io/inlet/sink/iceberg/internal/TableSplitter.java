package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableId;

import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.HashMap;
import java.util.Map;

/**
 * Sends each event's row (with its kind), shaped by {@link IcebergRowConverter}, to its table's
 * side output, from which that table's Iceberg writer reads. The main output stays empty.
 */
@Internal
public final class TableSplitter extends ProcessFunction<ChangeEvent, RowData> {

    private static final long serialVersionUID = 1L;

    private final HashMap<TableId, OutputTag<RowData>> tags;
    private final HashMap<TableId, IcebergRowConverter> converters;

    public TableSplitter(Map<TableId, OutputTag<RowData>> tags, Map<TableId, IcebergRowConverter> converters) {
        this.tags = new HashMap<>(tags);
        this.converters = new HashMap<>(converters);
    }

    @Override
    public void processElement(ChangeEvent event, Context ctx, Collector<RowData> out) {
        OutputTag<RowData> tag = tags.get(event.tableId());
        if (tag == null) {
            throw new IllegalStateException("The Iceberg sink got an event of table " + event.tableId() + ", which it was not built for.");
        }
        ctx.output(tag, converters.get(event.tableId()).convert(event.row()));
    }
}
