package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds each selected table's projected row from the source row's fields. */
@Internal
public final class ProjectionFunction extends RichMapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final List<TableDescriptor> inputTables;
    private final Map<TableId, int[]> positions;

    private transient Map<TableId, RowData.FieldGetter[]> getters;

    public ProjectionFunction(List<TableDescriptor> inputTables, Map<TableId, int[]> positions) {
        this.inputTables = inputTables;
        this.positions = new HashMap<>(positions);
    }

    @Override
    public void open(Configuration parameters) {
        getters = new HashMap<>();
        for (TableDescriptor t : inputTables) {
            int[] pos = positions.get(t.tableId());
            if (pos != null) {
                RowType type = t.toRowType();
                RowData.FieldGetter[] g = new RowData.FieldGetter[pos.length];
                for (int i = 0; i < pos.length; i++) {
                    g[i] = RowData.createFieldGetter(type.getTypeAt(pos[i]), pos[i]);
                }
                getters.put(t.tableId(), g);
            }
        }
    }

    @Override
    public ChangeEvent map(ChangeEvent event) {
        RowData.FieldGetter[] g = getters.get(event.tableId());
        if (g == null) {
            return event;
        }
        if (event.isSchemaChange()) {
            throw UnfollowedSchemaChange.of("projection", event);
        }
        RowData in = event.row();
        GenericRowData out = new GenericRowData(in.getRowKind(), g.length);
        for (int i = 0; i < g.length; i++) {
            out.setField(i, g[i].getFieldOrNull(in));
        }
        return event.withRow(out, event.schemaVersion());
    }
}
