package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.transform.MetadataTransform;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;

/** Appends the metadata columns to the rows of the selected tables, in every version of the table. */
@Internal
public final class MetadataFunction extends RichMapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private static final StringData[] OPS = new StringData[RowKind.values().length];

    static {
        for (RowKind k : RowKind.values()) {
            OPS[k.ordinal()] = StringData.fromString(k.shortString());
        }
    }

    private final List<MetadataTransform.Kind> kinds;
    private final FollowedTables<Void> tables;

    public MetadataFunction(List<MetadataTransform.Kind> kinds, FollowedTables<Void> tables) {
        this.kinds = new ArrayList<>(kinds);
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
        FollowedTables.Version<Void> v = tables.of(event);
        if (v == null) {
            return event;
        }
        RowData.FieldGetter[] g = v.inputGetters;
        RowData in = event.row();
        GenericRowData out = new GenericRowData(in.getRowKind(), g.length + kinds.size());
        for (int i = 0; i < g.length; i++) {
            out.setField(i, g[i].getFieldOrNull(in));
        }
        int pos = g.length;
        for (MetadataTransform.Kind k : kinds) {
            switch (k) {
                case OP:
                    out.setField(pos, OPS[in.getRowKind().ordinal()]);
                    break;
                case SOURCE_TS:
                    out.setField(
                            pos,
                            event.hasSourceTimestamp() ? TimestampData.fromEpochMillis(event.sourceTimestamp()) : null);
                    break;
                default:
                    out.setField(pos, TimestampData.fromEpochMillis(System.currentTimeMillis()));
            }
            pos++;
        }
        return v.emit(event, out);
    }
}
