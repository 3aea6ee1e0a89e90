package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

/**
 * Compares the primary-key values of two rows of one table. Sinks that write upserts apply an
 * update by its new row's key, so a {@code -U}/{@code +U} pair whose keys differ (a primary-key
 * change) must reach them as {@code -D} of the old key and {@code +I} of the new one: sources and
 * transforms use this to tell.
 *
 * <pre>{@code
 * RowKeys keys = RowKeys.of(orders);
 * if (!keys.sameKey(before, after)) { ... emit -D(before), +I(after) ... }
 * }</pre>
 *
 * <p>Values are compared as Flink's internal data structures ({@code StringData}, {@code
 * DecimalData}, {@code TimestampData}, {@code byte[]} by content). A table without a primary key has
 * no key to change: {@link #sameKey} is then always true.
 */
@PublicEvolving
public final class RowKeys implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int[] keyIndexes;
    private transient RowData.FieldGetter[] getters;

    private RowKeys(RowType rowType, int[] keyIndexes) {
        this.rowType = rowType;
        this.keyIndexes = keyIndexes;
    }

    /** The key of a table's rows, as its descriptor declares it. */
    public static RowKeys of(TableDescriptor table) {
        return new RowKeys(table.toRowType(), table.primaryKeyIndexes());
    }

    /** Whether the table has a primary key at all. */
    public boolean hasKey() {
        return keyIndexes.length > 0;
    }

    /** Whether both rows carry the same primary-key values. */
    public boolean sameKey(RowData a, RowData b) {
        if (getters == null) {
            RowData.FieldGetter[] g = new RowData.FieldGetter[keyIndexes.length];
            for (int i = 0; i < g.length; i++) {
                g[i] = RowData.createFieldGetter(rowType.getTypeAt(keyIndexes[i]), keyIndexes[i]);
            }
            getters = g;
        }
        for (RowData.FieldGetter g : getters) {
            Object x = g.getFieldOrNull(a);
            Object y = g.getFieldOrNull(b);
            if (x instanceof byte[] && y instanceof byte[]) {
                if (!Arrays.equals((byte[]) x, (byte[]) y)) {
                    return false;
                }
            } else if (!Objects.equals(x, y)) {
                return false;
            }
        }
        return true;
    }
}
