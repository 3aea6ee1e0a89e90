package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableId;

import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.HashMap;
import java.util.Map;

/**
 * Sends each event's row, in the Hudi table's row type, to its table's side output, from which that
 * table's Hudi writer reads: TINYINT and SMALLINT values widened to INT, the change's source
 * position ({@link io.inlet.core.event.SourcePosition#order()}) appended where the sink added the
 * precombine column, and an empty soft-delete flag after it where the sink added that. Drops {@code -U} unless the
 * table keeps a
 * changelog (Hudi's writer would otherwise upsert the old row image).
 */
@Internal
public final class HudiRowShaper extends ProcessFunction<ChangeEvent, RowData> {

    private static final long serialVersionUID = 1L;

    private final HashMap<TableId, OutputTag<RowData>> tags;
    private final HashMap<TableId, RowType> sourceTypes;
    private final HashMap<TableId, RowType> writeTypes;
    private final HashMap<TableId, Boolean> changelog;

    private transient Map<TableId, Shape> shapes;

    public HudiRowShaper(
            Map<TableId, OutputTag<RowData>> tags,
            Map<TableId, RowType> sourceTypes,
            Map<TableId, RowType> writeTypes,
            Map<TableId, Boolean> changelog) {
        this.tags = new HashMap<>(tags);
        this.sourceTypes = new HashMap<>(sourceTypes);
        this.writeTypes = new HashMap<>(writeTypes);
        this.changelog = new HashMap<>(changelog);
    }

    /** How one table's rows are reshaped. */
    private static final class Shape {
        final RowData.FieldGetter[] getters;
        final boolean[] widen;
        final int extra;
        final boolean identity;

        Shape(RowType source, RowType write) {
            getters = new RowData.FieldGetter[source.getFieldCount()];
            widen = new boolean[source.getFieldCount()];
            boolean same = write.getFieldCount() == source.getFieldCount();
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(source.getTypeAt(i), i);
                LogicalTypeRoot from = source.getTypeAt(i).getTypeRoot();
                widen[i] = (from == LogicalTypeRoot.TINYINT || from == LogicalTypeRoot.SMALLINT)
                        && write.getTypeAt(i).getTypeRoot() == LogicalTypeRoot.INTEGER;
                same &= !widen[i];
            }
            // The sink adds the ordering column, then possibly the soft-delete flag (left empty here).
            extra = write.getFieldCount() - source.getFieldCount();
            identity = same && extra == 0;
        }
    }

    @Override
    public void processElement(ChangeEvent event, Context ctx, Collector<RowData> out) {
        TableId id = event.tableId();
        OutputTag<RowData> tag = tags.get(id);
        if (tag == null) {
            throw new IllegalStateException(
                    "The Hudi sink got an event of table " + id + ", which it was not built for.");
        }
        if (event.isSchemaChange()) {
            // Hudi 0.14's Flink writer fixes its schema when it opens (issue 13: a supervised restart is planned).
            throw new InletStopException("The Hudi sink cannot follow the schema change of table " + id
                    + " while the job runs yet: " + event.schemaChange().changes()
                    + event.schemaChange().statement().map(s -> " (" + s + ")").orElse("") + " at "
                    + event.position() + ". The job stops before any row of the new shape is written. Bring the"
                    + " Hudi table to the new schema and start the job again, or set 'schema-change.behavior' ="
                    + " 'fail' on the source for pipelines into Hudi.");
        }
        RowData row = event.row();
        if (row.getRowKind() == RowKind.UPDATE_BEFORE && !changelog.get(id)) {
            return; // the +U that follows carries the row; Hudi applies upserts by key
        }
        if (shapes == null) {
            shapes = new HashMap<>();
        }
        Shape shape = shapes.computeIfAbsent(id, k -> new Shape(sourceTypes.get(k), writeTypes.get(k)));
        if (!shape.identity) {
            row = reshape(shape, row, event.position().order());
        }
        ctx.output(tag, row);
    }

    private static RowData reshape(Shape shape, RowData row, long order) {
        int n = shape.getters.length;
        GenericRowData out = new GenericRowData(row.getRowKind(), n + shape.extra);
        for (int i = 0; i < n; i++) {
            Object v = shape.getters[i].getFieldOrNull(row);
            out.setField(i, v != null && shape.widen[i] ? (Object) ((Number) v).intValue() : v);
        }
        if (shape.extra > 0) {
            out.setField(n, order);
        }
        return out;
    }
}
