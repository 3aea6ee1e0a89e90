package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * A row's primary key as a hash map key: the value itself for a key of one column (a {@code Long}, a
 * {@code StringData}, ...), an array of the values otherwise. Flink's data classes compare by value;
 * binary values are wrapped to.
 */
@Internal
final class RowKeys {

    private final RowData.FieldGetter[] getters;

    /** @param type the type of the rows; {@code primaryKey} names its key columns */
    RowKeys(RowType type, List<String> primaryKey) {
        getters = new RowData.FieldGetter[primaryKey.size()];
        for (int i = 0; i < getters.length; i++) {
            int index = type.getFieldIndex(primaryKey.get(i));
            if (index < 0) {
                throw new IllegalArgumentException(
                        "Primary key column " + primaryKey.get(i) + " is not a column of " + type);
            }
            getters[i] = RowData.createFieldGetter(type.getTypeAt(index), index);
        }
        if (getters.length == 0) {
            throw new IllegalArgumentException("A table without a primary key has no keys to coalesce by");
        }
    }

    /** The row's key. */
    Object of(RowData row) {
        if (getters.length == 1) {
            return value(getters[0].getFieldOrNull(row));
        }
        Object[] values = new Object[getters.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = value(getters[i].getFieldOrNull(row));
        }
        return new Composite(values);
    }

    private static Object value(Object v) {
        return v instanceof byte[] ? ByteBuffer.wrap((byte[]) v) : v;
    }

    /** A key of several columns. */
    private static final class Composite {
        private final Object[] values;
        private final int hash;

        Composite(Object[] values) {
            this.values = values;
            this.hash = Arrays.hashCode(values);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Composite
                    && hash == ((Composite) o).hash
                    && Arrays.equals(values, ((Composite) o).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
