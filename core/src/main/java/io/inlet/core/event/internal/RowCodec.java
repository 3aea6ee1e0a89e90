package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.RowKind;

import java.io.IOException;

/**
 * Writes and reads the fields of one table's rows: a null bitmap, then each non-null field in its
 * most compact form. Atomic types are written field by field without going through a binary row;
 * nested types (ARRAY, MAP, ROW, MULTISET, RAW) use Flink's internal serializers. Rows are read as
 * {@link GenericRowData}.
 *
 * <p>Not thread-safe when nested serializers are stateful; {@link #duplicate()} gives an independent
 * copy.
 */
@Internal
public final class RowCodec {

    private static final byte BOOLEAN = 0;
    private static final byte TINYINT = 1;
    private static final byte SMALLINT = 2;
    private static final byte INT = 3;
    private static final byte BIGINT = 4;
    private static final byte FLOAT = 5;
    private static final byte DOUBLE = 6;
    private static final byte STRING = 7;
    private static final byte BYTES = 8;
    private static final byte DECIMAL_COMPACT = 9;
    private static final byte DECIMAL = 10;
    private static final byte TIMESTAMP_COMPACT = 11;
    private static final byte TIMESTAMP = 12;
    private static final byte NESTED = 13;
    private static final byte NULL = 14;

    private final RowType rowType;
    private final int arity;
    private final int bitmapBytes;
    private final byte[] codes;
    private final int[] precisions;
    private final int[] scales;
    private final TypeSerializer<Object>[] nested;
    private final RowData.FieldGetter[] nestedGetters;
    private final boolean stateless;

    @SuppressWarnings({"unchecked", "rawtypes"})
    public RowCodec(RowType rowType) {
        this.rowType = rowType;
        this.arity = rowType.getFieldCount();
        this.bitmapBytes = (arity + 7) >>> 3;
        this.codes = new byte[arity];
        this.precisions = new int[arity];
        this.scales = new int[arity];
        this.nested = new TypeSerializer[arity];
        this.nestedGetters = new RowData.FieldGetter[arity];
        boolean allStateless = true;
        for (int i = 0; i < arity; i++) {
            LogicalType t = rowType.getTypeAt(i);
            codes[i] = codeOf(t, i);
            if (codes[i] == NESTED) {
                nested[i] = InternalSerializers.create(t);
                nestedGetters[i] = RowData.createFieldGetter(t, i);
                allStateless &= nested[i].duplicate() == nested[i];
            }
        }
        this.stateless = allStateless;
    }

    private byte codeOf(LogicalType t, int i) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return BOOLEAN;
            case TINYINT:
                return TINYINT;
            case SMALLINT:
                return SMALLINT;
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
                return INT;
            case BIGINT:
            case INTERVAL_DAY_TIME:
                return BIGINT;
            case FLOAT:
                return FLOAT;
            case DOUBLE:
                return DOUBLE;
            case CHAR:
            case VARCHAR:
                return STRING;
            case BINARY:
            case VARBINARY:
                return BYTES;
            case DECIMAL:
                DecimalType d = (DecimalType) t;
                precisions[i] = d.getPrecision();
                scales[i] = d.getScale();
                return DecimalData.isCompact(d.getPrecision()) ? DECIMAL_COMPACT : DECIMAL;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                precisions[i] = ((TimestampType) t).getPrecision();
                return TimestampData.isCompact(precisions[i]) ? TIMESTAMP_COMPACT : TIMESTAMP;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                precisions[i] = ((LocalZonedTimestampType) t).getPrecision();
                return TimestampData.isCompact(precisions[i]) ? TIMESTAMP_COMPACT : TIMESTAMP;
            case NULL:
                return NULL;
            case ARRAY:
            case MAP:
            case MULTISET:
            case ROW:
            case RAW:
            case STRUCTURED_TYPE:
            case DISTINCT_TYPE:
                return NESTED;
            default:
                throw new IllegalArgumentException("Column '"
                        + rowType.getFieldNames().get(i)
                        + "' has the type "
                        + t
                        + ", which Flink cannot hold in a row at runtime. Map it to"
                        + " another type (TIMESTAMP_LTZ instead of TIMESTAMP WITH TIME ZONE).");
        }
    }

    private RowCodec(RowCodec other) {
        this.rowType = other.rowType;
        this.arity = other.arity;
        this.bitmapBytes = other.bitmapBytes;
        this.codes = other.codes;
        this.precisions = other.precisions;
        this.scales = other.scales;
        this.nestedGetters = other.nestedGetters;
        this.stateless = other.stateless;
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializer<Object>[] copies = new TypeSerializer[arity];
        for (int i = 0; i < arity; i++) {
            copies[i] = other.nested[i] == null ? null : other.nested[i].duplicate();
        }
        this.nested = copies;
    }

    public RowType rowType() {
        return rowType;
    }

    /** This codec when it holds no state, otherwise an independent copy. */
    public RowCodec duplicate() {
        return stateless ? this : new RowCodec(this);
    }

    public void write(RowData row, DataOutputView out) throws IOException {
        if (row.getArity() != arity) {
            throw new IllegalArgumentException("The row has "
                    + row.getArity()
                    + " fields but its table's row type "
                    + rowType
                    + " has "
                    + arity
                    + ".");
        }
        // Null bitmap, 8 fields a byte.
        for (int b = 0; b < bitmapBytes; b++) {
            int bits = 0;
            int base = b << 3;
            int end = Math.min(arity, base + 8);
            for (int i = base; i < end; i++) {
                if (row.isNullAt(i)) {
                    bits |= 1 << (i - base);
                }
            }
            out.writeByte(bits);
        }
        for (int i = 0; i < arity; i++) {
            if (row.isNullAt(i)) {
                continue;
            }
            switch (codes[i]) {
                case BOOLEAN:
                    out.writeBoolean(row.getBoolean(i));
                    break;
                case TINYINT:
                    out.writeByte(row.getByte(i));
                    break;
                case SMALLINT:
                    out.writeShort(row.getShort(i));
                    break;
                case INT:
                    out.writeInt(row.getInt(i));
                    break;
                case BIGINT:
                    out.writeLong(row.getLong(i));
                    break;
                case FLOAT:
                    out.writeFloat(row.getFloat(i));
                    break;
                case DOUBLE:
                    out.writeDouble(row.getDouble(i));
                    break;
                case STRING:
                    writeBytes(row.getString(i).toBytes(), out);
                    break;
                case BYTES:
                    writeBytes(row.getBinary(i), out);
                    break;
                case DECIMAL_COMPACT:
                    out.writeLong(row.getDecimal(i, precisions[i], scales[i]).toUnscaledLong());
                    break;
                case DECIMAL:
                    writeBytes(row.getDecimal(i, precisions[i], scales[i]).toUnscaledBytes(), out);
                    break;
                case TIMESTAMP_COMPACT:
                    out.writeLong(row.getTimestamp(i, precisions[i]).getMillisecond());
                    break;
                case TIMESTAMP:
                    TimestampData ts = row.getTimestamp(i, precisions[i]);
                    out.writeLong(ts.getMillisecond());
                    out.writeInt(ts.getNanoOfMillisecond());
                    break;
                case NESTED:
                    nested[i].serialize(nestedGetters[i].getFieldOrNull(row), out);
                    break;
                case NULL:
                    break;
                default:
                    throw new IllegalStateException("Unknown field code " + codes[i]);
            }
        }
    }

    public GenericRowData read(RowKind kind, DataInputView in) throws IOException {
        GenericRowData row = new GenericRowData(kind, arity);
        long bits = 0; // the first 64 fields' null bits; wider rows read the rest on the way
        byte[] wideBits = null;
        if (bitmapBytes <= 8) {
            for (int b = 0; b < bitmapBytes; b++) {
                bits |= (long) in.readUnsignedByte() << (b << 3);
            }
        } else {
            wideBits = new byte[bitmapBytes];
            in.readFully(wideBits);
        }
        for (int i = 0; i < arity; i++) {
            boolean isNull = wideBits == null ? (bits & (1L << i)) != 0 : (wideBits[i >>> 3] & (1 << (i & 7))) != 0;
            if (isNull) {
                continue; // the field stays null
            }
            switch (codes[i]) {
                case BOOLEAN:
                    row.setField(i, in.readBoolean());
                    break;
                case TINYINT:
                    row.setField(i, in.readByte());
                    break;
                case SMALLINT:
                    row.setField(i, in.readShort());
                    break;
                case INT:
                    row.setField(i, in.readInt());
                    break;
                case BIGINT:
                    row.setField(i, in.readLong());
                    break;
                case FLOAT:
                    row.setField(i, in.readFloat());
                    break;
                case DOUBLE:
                    row.setField(i, in.readDouble());
                    break;
                case STRING:
                    row.setField(i, StringData.fromBytes(readBytes(in)));
                    break;
                case BYTES:
                    row.setField(i, readBytes(in));
                    break;
                case DECIMAL_COMPACT:
                    row.setField(i, DecimalData.fromUnscaledLong(in.readLong(), precisions[i], scales[i]));
                    break;
                case DECIMAL:
                    row.setField(i, DecimalData.fromUnscaledBytes(readBytes(in), precisions[i], scales[i]));
                    break;
                case TIMESTAMP_COMPACT:
                    row.setField(i, TimestampData.fromEpochMillis(in.readLong()));
                    break;
                case TIMESTAMP:
                    long millis = in.readLong();
                    row.setField(i, TimestampData.fromEpochMillis(millis, in.readInt()));
                    break;
                case NESTED:
                    row.setField(i, nested[i].deserialize(in));
                    break;
                case NULL:
                    break;
                default:
                    throw new IllegalStateException("Unknown field code " + codes[i]);
            }
        }
        return row;
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        VarInts.write(bytes.length, out);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        byte[] bytes = new byte[VarInts.read(in)];
        in.readFully(bytes);
        return bytes;
    }
}
