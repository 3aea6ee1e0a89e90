package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.transform.MetadataTransform;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Appends the metadata columns to the rows of the selected tables. */
@Internal
public final class MetadataFunction extends RichMapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private static final StringData[] OPS = new StringData[RowKind.values().length];

    static {
        for (RowKind k : RowKind.values()) {
            OPS[k.ordinal()] = StringData.fromString(k.shortString());
        }
    }

    private final TableSelector selector;
    private final List<MetadataTransform.Kind> kinds;
    private final List<TableDescriptor> inputTables;

    private transient Map<TableId, RowData.FieldGetter[]> getters;

    public MetadataFunction(
            TableSelector selector, List<MetadataTransform.Kind> kinds, List<TableDescriptor> inputTables) {
        this.selector = selector;
        this.kinds = kinds;
        this.inputTables = inputTables;
    }

    @Override
    public void open(Configuration parameters) {
        getters = new HashMap<>();
        for (TableDescriptor t : inputTables) {
            if (selector.matches(t.tableId())) {
                RowType type = t.toRowType();
                RowData.FieldGetter[] g = new RowData.FieldGetter[type.getFieldCount()];
                for (int i = 0; i < g.length; i++) {
                    g[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
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
            throw UnfollowedSchemaChange.of("metadata", event);
        }
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
        return event.withRow(out, event.schemaVersion());
    }
}
