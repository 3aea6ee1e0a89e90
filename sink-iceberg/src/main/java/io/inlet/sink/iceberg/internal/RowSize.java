package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Estimates the bytes a row holds in an Iceberg delta writer until its files are closed: its values
 * as written (before any compression, so the estimate errs high) and the key the writer keeps to
 * delete the row by position. Measures one row in {@value #SAMPLE_EVERY} and uses the running mean
 * for the others, so that a wide table does not cost a walk of every row.
 */
@Internal
final class RowSize {

    static final int SAMPLE_EVERY = 32;

    /** A row's own overhead, and the key and position a delta writer keeps for it. */
    private static final long PER_ROW = 64;

    private final RowData.FieldGetter[] getters;
    private long rows;
    private long sampled;
    private long sampledBytes;
    private long mean;

    RowSize(RowType type) {
        int n = type.getFieldCount();
        getters = new RowData.FieldGetter[n];
        for (int i = 0; i < n; i++) {
            getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
        }
    }

    /** The estimated bytes of the row. */
    long of(RowData row) {
        if (rows++ % SAMPLE_EVERY == 0) {
            sampledBytes += measure(row);
            sampled++;
            mean = sampledBytes / sampled;
        }
        return mean;
    }

    private long measure(RowData row) {
        long bytes = PER_ROW;
        for (int i = 0; i < getters.length; i++) {
            bytes += value(getters[i].getFieldOrNull(row));
        }
        return bytes;
    }

    private static long value(Object v) {
        if (v == null) {
            return 1;
        }
        if (v instanceof StringData) {
            return v instanceof BinaryStringData ? ((BinaryStringData) v).getSizeInBytes() + 4 : 32;
        }
        if (v instanceof byte[]) {
            return ((byte[]) v).length + 4;
        }
        if (v instanceof RowData) {
            return 8L * ((RowData) v).getArity() + 16;
        }
        if (v instanceof ArrayData) {
            return 8L * ((ArrayData) v).size() + 16;
        }
        if (v instanceof MapData) {
            return 16L * ((MapData) v).size() + 16;
        }
        // Numbers, decimals, timestamps, booleans: at most 16 bytes as Iceberg writes them.
        return 12;
    }
}
