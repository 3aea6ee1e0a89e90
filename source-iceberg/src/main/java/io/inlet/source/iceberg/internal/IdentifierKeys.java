package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A table's key: its identifier fields (the whole row for a table without them), the one definition
 * the split reader and the keyed pairing share.
 */
@Internal
public final class IdentifierKeys implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int[] positions;

    private transient RowData.FieldGetter[] getters;

    private IdentifierKeys(RowType rowType, int[] positions) {
        this.rowType = rowType;
        this.positions = positions;
    }

    public static IdentifierKeys of(Schema schema) {
        RowType rowType = FlinkSchemaUtil.convert(schema);
        Set<Integer> ids = schema.identifierFieldIds();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < schema.columns().size(); i++) {
            if (ids.contains(schema.columns().get(i).fieldId())) {
                positions.add(i);
            }
        }
        if (positions.isEmpty()) {
            for (int i = 0; i < rowType.getFieldCount(); i++) {
                positions.add(i);
            }
        }
        return new IdentifierKeys(
                rowType, positions.stream().mapToInt(Integer::intValue).toArray());
    }

    private RowData.FieldGetter[] getters() {
        if (getters == null) {
            RowData.FieldGetter[] g = new RowData.FieldGetter[positions.length];
            for (int i = 0; i < g.length; i++) {
                g[i] = RowData.createFieldGetter(rowType.getTypeAt(positions[i]), positions[i]);
            }
            getters = g;
        }
        return getters;
    }

    /** The row's key, compared by value. */
    public Key of(RowData row) {
        RowData.FieldGetter[] g = getters();
        Object[] values = new Object[g.length];
        for (int i = 0; i < g.length; i++) {
            values[i] = g[i].getFieldOrNull(row);
        }
        return new Key(values);
    }

    /** The keyed pairing's key selector: the key fields as a binary row, whose hash is the same in every JVM. */
    public KeySelector<RowData, RowData> selector() {
        return new Selector(this);
    }

    /** A row's key: its identifier fields' values, compared by value (arrays by content). */
    public static final class Key {
        private final Object[] values;
        private final int hash;

        Key(Object[] values) {
            this.values = values;
            this.hash = Arrays.deepHashCode(values);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && hash == ((Key) o).hash && Arrays.deepEquals(values, ((Key) o).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * Binary rows, not generic ones: keys restored from a checkpoint are binary rows, and the key group
     * of a key is its hash, so the live key must hash the same way.
     */
    private static final class Selector implements KeySelector<RowData, RowData>, ResultTypeQueryable<RowData> {
        private static final long serialVersionUID = 1L;

        private final IdentifierKeys keys;
        private final RowType keyType;

        private transient RowDataSerializer serializer;

        Selector(IdentifierKeys keys) {
            this.keys = keys;
            LogicalType[] types = new LogicalType[keys.positions.length];
            String[] names = new String[types.length];
            for (int i = 0; i < types.length; i++) {
                types[i] = keys.rowType.getTypeAt(keys.positions[i]);
                names[i] = keys.rowType.getFieldNames().get(keys.positions[i]);
            }
            this.keyType = RowType.of(types, names);
        }

        @Override
        public RowData getKey(RowData row) {
            if (serializer == null) {
                serializer = new RowDataSerializer(keyType);
            }
            RowData.FieldGetter[] g = keys.getters();
            GenericRowData key = new GenericRowData(g.length);
            for (int i = 0; i < g.length; i++) {
                key.setField(i, g[i].getFieldOrNull(row));
            }
            // toBinaryRow reuses its row: copy it.
            BinaryRowData binary = serializer.toBinaryRow(key);
            return binary.copy();
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return InternalTypeInfo.of(keyType);
        }
    }
}
