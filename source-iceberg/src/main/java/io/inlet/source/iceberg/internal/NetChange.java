package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;

/**
 * The net change of one key in one snapshot, from the rows the snapshot removed ({@code -D}) and
 * added ({@code +I}) for it: a removed and an added row give {@code -U}/{@code +U}, or nothing when
 * they are equal (a row written again with its values, files rewritten); a removed row alone gives
 * {@code -D}, an added row alone {@code +I}. A table that holds more than one row per key (written
 * without upserts) gets the rows that are in one side only, as deletes and inserts.
 */
@Internal
public final class NetChange {

    private NetChange() {}

    /**
     * The changes, in the order a changelog applies them; the rows' kinds are set on the way out. The
     * rows must be of one class (all binary, or all generic), as equality compares them.
     */
    public static List<RowData> of(List<RowData> tagged) {
        List<RowData> removed = new ArrayList<>(1);
        List<RowData> added = new ArrayList<>(1);
        for (RowData r : tagged) {
            (r.getRowKind() == RowKind.DELETE ? removed : added).add(r);
        }
        // Rows on both sides with the same values did not change.
        for (int i = removed.size() - 1; i >= 0; i--) {
            for (int j = 0; j < added.size(); j++) {
                if (sameValues(removed.get(i), added.get(j))) {
                    removed.remove(i);
                    added.remove(j);
                    break;
                }
            }
        }
        List<RowData> out = new ArrayList<>(removed.size() + added.size());
        if (removed.size() == 1 && added.size() == 1) {
            out.add(kind(removed.get(0), RowKind.UPDATE_BEFORE));
            out.add(kind(added.get(0), RowKind.UPDATE_AFTER));
            return out;
        }
        removed.forEach(r -> out.add(kind(r, RowKind.DELETE)));
        added.forEach(a -> out.add(kind(a, RowKind.INSERT)));
        return out;
    }

    private static boolean sameValues(RowData a, RowData b) {
        RowKind ka = a.getRowKind();
        RowKind kb = b.getRowKind();
        a.setRowKind(RowKind.INSERT);
        b.setRowKind(RowKind.INSERT);
        boolean same = a.equals(b);
        a.setRowKind(ka);
        b.setRowKind(kb);
        return same;
    }

    /** The row, with its kind set. */
    static RowData kind(RowData row, RowKind kind) {
        row.setRowKind(kind);
        return row;
    }
}
