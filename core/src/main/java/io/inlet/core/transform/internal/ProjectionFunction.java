package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;

/**
 * Builds each selected table's projected row from the source row's fields, for every version of the
 * table: a schema change is checked against the projection and goes on as the change of the
 * projected table.
 */
@Internal
public final class ProjectionFunction extends RichMapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final FollowedTables<Projection.Work> tables;

    public ProjectionFunction(FollowedTables<Projection.Work> tables) {
        this.tables = tables;
    }

    @Override
    public void open(Configuration parameters) {
        tables.open();
    }

    @Override
    public ChangeEvent map(ChangeEvent event) {
        if (event.isSchemaChange()) {
            return tables.follow(event);
        }
        FollowedTables.Version<Projection.Work> v = tables.of(event);
        if (v == null) {
            return event;
        }
        int[] pos = v.work.positions;
        RowData in = event.row();
        GenericRowData out = new GenericRowData(in.getRowKind(), pos.length);
        for (int i = 0; i < pos.length; i++) {
            out.setField(i, v.inputGetters[pos[i]].getFieldOrNull(in));
        }
        return v.emit(event, out);
    }
}
