package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;

/**
 * Shapes rows for Iceberg's Flink writer. The writer reads rows with the Flink type of the Iceberg
 * table (TINYINT and SMALLINT as INT, timestamps at precision 6, the table's own widths), also for
 * equality deletes, whatever the stream's declared type. Rows serialized in the stream's type (a
 * compact TIMESTAMP(3), a one-byte TINYINT) would be misread there, so each row is converted to the
 * table's type before it leaves the splitter: integers and floats widened, decimals re-scaled to the
 * table's precision. Everything else already has the table's internal form.
 */
@Internal
public final class IcebergRowConverter implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final byte SAME = 0;
    private static final byte TO_INT = 1;
    private static final byte TO_BIGINT = 2;
    private static final byte TO_DOUBLE = 3;
    private static final byte TO_DECIMAL = 4;

    private final RowType source;
    private final byte[] ops;
    private final int[] precisions;
    private final int[] scales;
    private final boolean identity;

    public IcebergRowConverter(RowType source, RowType target) {
        if (source.getFieldCount() != target.getFieldCount()) {
            throw new IllegalArgumentException("Rows of " + source + " cannot be written as " + target);
        }
        this.source = source;
        int n = source.getFieldCount();
        this.ops = new byte[n];
        this.precisions = new int[n];
        this.scales = new int[n];
        boolean same = true;
        for (int i = 0; i < n; i++) {
            LogicalType from = source.getTypeAt(i);
            LogicalType to = target.getTypeAt(i);
            LogicalTypeRoot f = from.getTypeRoot();
            switch (to.getTypeRoot()) {
                case INTEGER:
                    ops[i] = f == LogicalTypeRoot.TINYINT || f == LogicalTypeRoot.SMALLINT ? TO_INT : SAME;
                    break;
                case BIGINT:
                    ops[i] = f == LogicalTypeRoot.BIGINT ? SAME : TO_BIGINT;
                    break;
                case DOUBLE:
                    ops[i] = f == LogicalTypeRoot.DOUBLE ? SAME : TO_DOUBLE;
                    break;
                case DECIMAL:
                    DecimalType d = (DecimalType) to;
                    DecimalType s = (DecimalType) from;
                    ops[i] = d.getPrecision() == s.getPrecision() && d.getScale() == s.getScale() ? SAME : TO_DECIMAL;
                    precisions[i] = d.getPrecision();
                    scales[i] = d.getScale();
                    break;
                default:
                    ops[i] = SAME;
            }
            same &= ops[i] == SAME;
        }
        this.identity = same;
    }

    /** Whether rows pass as they are. */
    public boolean isIdentity() {
        return identity;
    }

    public RowData convert(RowData row) {
        if (identity) {
            return row;
        }
        int n = ops.length;
        GenericRowData out = new GenericRowData(row.getRowKind(), n);
        for (int i = 0; i < n; i++) {
            if (row.isNullAt(i)) {
                continue;
            }
            switch (ops[i]) {
                case TO_INT:
                    out.setField(
                            i,
                            source.getTypeAt(i).getTypeRoot() == LogicalTypeRoot.TINYINT
                                    ? (int) row.getByte(i)
                                    : (int) row.getShort(i));
                    break;
                case TO_BIGINT:
                    out.setField(i, widenToLong(row, i));
                    break;
                case TO_DOUBLE:
                    out.setField(i, (double) row.getFloat(i));
                    break;
                case TO_DECIMAL:
                    DecimalType s = (DecimalType) source.getTypeAt(i);
                    DecimalData d = row.getDecimal(i, s.getPrecision(), s.getScale());
                    out.setField(i, DecimalData.fromBigDecimal(d.toBigDecimal(), precisions[i], scales[i]));
                    break;
                default:
                    out.setField(
                            i, RowData.createFieldGetter(source.getTypeAt(i), i).getFieldOrNull(row));
            }
        }
        return out;
    }

    private long widenToLong(RowData row, int i) {
        switch (source.getTypeAt(i).getTypeRoot()) {
            case TINYINT:
                return row.getByte(i);
            case SMALLINT:
                return row.getShort(i);
            default:
                return row.getInt(i);
        }
    }
}
