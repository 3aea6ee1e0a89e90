package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

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
    /** Per target field, the source field it takes its value from; -1 for none (its default, or NULL). */
    private final int[] from;

    /**
     * Per target field the source lacks, the value the rows get: a column's default for rows before it.
     * Transient: Flink's internal values are not serializable, and the converters the job graph carries have
     * none (only the writers make converters with defaults, on the task manager).
     */
    private final transient Object[] constants;

    private final byte[] ops;
    private final int[] precisions;
    private final int[] scales;
    private final boolean identity;

    /** Rows whose fields are the target's, in its order (a table the job was built with). */
    public IcebergRowConverter(RowType source, RowType target) {
        this(source, target, positions(source, target), Map.of());
    }

    private static int[] positions(RowType source, RowType target) {
        if (source.getFieldCount() != target.getFieldCount()) {
            throw new IllegalArgumentException("Rows of " + source + " cannot be written as " + target);
        }
        int[] from = new int[target.getFieldCount()];
        for (int i = 0; i < from.length; i++) {
            from[i] = i;
        }
        return from;
    }

    /**
     * Rows of another version of the table (before or after a schema change), matched to the table's
     * columns by name: a column the rows lack is NULL, one the table lacks is left out.
     */
    public static IcebergRowConverter byName(RowType source, RowType target) {
        return byName(source, target, Map.of());
    }

    /**
     * As {@link #byName(RowType, RowType)}, a column the rows lack taking its value from {@code defaults}
     * (by column name, in Flink's internal form) where it has one: rows of the shape before the column
     * was added with a default ({@link IcebergDefaults}).
     */
    public static IcebergRowConverter byName(RowType source, RowType target, Map<String, Object> defaults) {
        int[] from = new int[target.getFieldCount()];
        for (int i = 0; i < from.length; i++) {
            from[i] = source.getFieldIndex(target.getFieldNames().get(i));
        }
        return new IcebergRowConverter(source, target, from, defaults);
    }

    /**
     * Rows written for an earlier Iceberg schema of the table, whose columns have that schema's names:
     * matched to the table's current columns by field id, so a column renamed since keeps its values.
     */
    public static IcebergRowConverter byFieldId(
            RowType source, Schema written, Schema current, Map<String, Object> defaults) {
        RowType target = FlinkSchemaUtil.convert(current);
        int[] from = new int[target.getFieldCount()];
        List<Types.NestedField> columns = current.columns();
        for (int i = 0; i < from.length; i++) {
            Types.NestedField then = written.findField(columns.get(i).fieldId());
            from[i] = then == null ? -1 : source.getFieldIndex(then.name());
        }
        return new IcebergRowConverter(source, target, from, defaults);
    }

    private IcebergRowConverter(RowType source, RowType target, int[] from, Map<String, Object> defaults) {
        this.source = source;
        this.from = from;
        int n = target.getFieldCount();
        this.constants = new Object[n];
        for (int i = 0; i < n; i++) {
            if (from[i] < 0) {
                constants[i] = defaults.get(target.getFieldNames().get(i));
            }
        }
        this.ops = new byte[n];
        this.precisions = new int[n];
        this.scales = new int[n];
        boolean same = n == source.getFieldCount();
        for (int i = 0; i < n; i++) {
            same &= from[i] == i;
            if (from[i] < 0) {
                continue;
            }
            LogicalType fromType = source.getTypeAt(from[i]);
            LogicalType to = target.getTypeAt(i);
            LogicalTypeRoot f = fromType.getTypeRoot();
            switch (to.getTypeRoot()) {
                case INTEGER:
                    // TINYINT, SMALLINT (Iceberg has no narrower int), or INT.
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
                    DecimalType s = (DecimalType) fromType;
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

    /** The type of the rows it converts. */
    public RowType source() {
        return source;
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
            int j = from[i];
            if (j < 0) {
                out.setField(i, constants == null ? null : constants[i]);
                continue;
            }
            if (row.isNullAt(j)) {
                continue;
            }
            switch (ops[i]) {
                case TO_INT:
                    out.setField(
                            i,
                            source.getTypeAt(j).getTypeRoot() == LogicalTypeRoot.TINYINT
                                    ? (int) row.getByte(j)
                                    : (int) row.getShort(j));
                    break;
                case TO_BIGINT:
                    out.setField(i, widenToLong(row, j));
                    break;
                case TO_DOUBLE:
                    out.setField(i, (double) row.getFloat(j));
                    break;
                case TO_DECIMAL:
                    DecimalType s = (DecimalType) source.getTypeAt(j);
                    DecimalData d = row.getDecimal(j, s.getPrecision(), s.getScale());
                    out.setField(i, DecimalData.fromBigDecimal(d.toBigDecimal(), precisions[i], scales[i]));
                    break;
                default:
                    out.setField(
                            i, RowData.createFieldGetter(source.getTypeAt(j), j).getFieldOrNull(row));
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
