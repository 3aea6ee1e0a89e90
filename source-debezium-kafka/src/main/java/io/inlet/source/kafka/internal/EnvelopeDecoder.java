package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.Column;
import io.inlet.core.table.ColumnDefaults;
import io.inlet.core.table.TableDescriptor;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Decodes the Avro binary body of one Debezium envelope, written with one writer schema, straight
 * into the rows of one table: no GenericRecord in between. Fields are matched to the table's columns
 * by name, so a writer schema with a column the table does not have (a later schema version) is read
 * against the table's current schema and the extra column reported; a column the writer lacks reads
 * as NULL. Everything else in the envelope (source block, transaction) is skipped, but for the
 * source timestamp.
 */
@Internal
public final class EnvelopeDecoder {

    /** One decoded envelope. */
    public static final class Envelope {
        /** The value was an Avro null (a nullable envelope left empty): no change. */
        public boolean empty;

        public char op;
        public GenericRowData before;
        public GenericRowData after;
        /** source.ts_ms, else the envelope's ts_ms, else -1. */
        public long sourceTimestamp;
        /** The MySQL binlog file of the change (source.file), or null. */
        public String sourceFile;
        /** source.pos, or -1. */
        public long sourcePosition;
        /** source.row, or 0. */
        public int sourceRow;
        /** PostgreSQL's source.lsn, or -1. */
        public long sourceLsn;
        /** Whether source.snapshot says the row was read in a snapshot. */
        public boolean snapshot;
    }

    private interface FieldReader {
        Object read(BinaryDecoder in) throws IOException;
    }

    private static final int BEFORE = 0;
    private static final int AFTER = 1;
    private static final int OP = 2;
    private static final int SOURCE = 3;
    private static final int TS = 4;
    private static final int SKIP = -1;

    private final Schema[] envelopeFields;
    private final int[] envelopeRoles;
    /** For a writer schema that is a nullable union: the union branch of the envelope record, else -1. */
    private final int envelopeBranch;

    private final RowPlan beforePlan;
    private final RowPlan afterPlan;
    private final SourcePlan sourcePlan;
    private final List<String> addedColumns;

    /**
     * @throws IllegalArgumentException when the writer schema is no Debezium envelope, or a column
     *     cannot be read as the table's type
     */
    public EnvelopeDecoder(Schema writerValue, TableDescriptor table) {
        this(writerValue, table, null, TimePrecisionMode.TIME);
    }

    /**
     * @param excluded columns left out ({@code exclude-columns} over {@code database.table.column}):
     *     skipped, never converted
     */
    public EnvelopeDecoder(
            Schema writerValue, TableDescriptor table, @Nullable Pattern excluded, TimePrecisionMode timeMode) {
        this(writerValue, table, excluded, timeMode, Map.of());
    }

    /**
     * @param defaults by column, the value (as {@link ColumnDefaults} text) a row gets for a column the
     *     writer schema lacks, where the column was added with a default: the record is from before that
     *     change, when the source's row had that value already (MySQL fills existing rows with it)
     */
    public EnvelopeDecoder(
            Schema writerValue,
            TableDescriptor table,
            @Nullable Pattern excluded,
            TimePrecisionMode timeMode,
            Map<String, String> defaults) {
        Schema writer = EnvelopeSchemas.envelopeRecord(writerValue);
        envelopeBranch = writerValue.getType() == Schema.Type.UNION
                ? writerValue.getTypes().indexOf(writer)
                : -1;
        if (writer.getType() != Schema.Type.RECORD
                || writer.getField("op") == null
                || (writer.getField("after") == null && writer.getField("before") == null)) {
            throw new IllegalArgumentException("the writer schema " + writer.getFullName()
                    + " is no Debezium envelope (it needs 'before', 'after' and 'op' fields)");
        }
        List<Schema.Field> fields = writer.getFields();
        envelopeFields = new Schema[fields.size()];
        envelopeRoles = new int[fields.size()];
        RowPlan b = null;
        RowPlan a = null;
        SourcePlan src = null;
        List<String> added = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            Schema.Field f = fields.get(i);
            envelopeFields[i] = f.schema();
            switch (f.name()) {
                case "before":
                    envelopeRoles[i] = BEFORE;
                    b = new RowPlan(f.schema(), table, added, excluded, timeMode, defaults);
                    break;
                case "after":
                    envelopeRoles[i] = AFTER;
                    a = new RowPlan(f.schema(), table, added, excluded, timeMode, defaults);
                    break;
                case "op":
                    envelopeRoles[i] = OP;
                    break;
                case "source":
                    envelopeRoles[i] = SOURCE;
                    src = new SourcePlan(f.schema());
                    break;
                case "ts_ms":
                    envelopeRoles[i] = TS;
                    break;
                default:
                    envelopeRoles[i] = SKIP;
            }
        }
        beforePlan = b;
        afterPlan = a;
        sourcePlan = src;
        addedColumns = Collections.unmodifiableList(new ArrayList<>(new java.util.LinkedHashSet<>(added)));
    }

    /** Columns the writer schema has and the table does not: a schema change to report. */
    public List<String> addedColumns() {
        return addedColumns;
    }

    public void decode(BinaryDecoder in, Envelope out) throws IOException {
        out.op = 0;
        out.before = null;
        out.after = null;
        out.empty = false;
        if (envelopeBranch >= 0 && in.readIndex() != envelopeBranch) {
            out.empty = true;
            out.sourceTimestamp = -1;
            return;
        }
        long envelopeTs = -1;
        long sourceTs = -1;
        out.sourceFile = null;
        out.sourcePosition = -1;
        out.sourceRow = 0;
        out.sourceLsn = -1;
        out.snapshot = false;
        for (int i = 0; i < envelopeRoles.length; i++) {
            switch (envelopeRoles[i]) {
                case BEFORE:
                    out.before = beforePlan.readNullable(in, RowKind.INSERT);
                    break;
                case AFTER:
                    out.after = afterPlan.readNullable(in, RowKind.INSERT);
                    break;
                case OP:
                    String op = readNullableString(in, envelopeFields[i]);
                    out.op = op == null || op.isEmpty() ? 0 : op.charAt(0);
                    break;
                case SOURCE:
                    sourceTs = sourcePlan.read(in, out);
                    break;
                case TS:
                    Object ts = readNullableLong(in, envelopeFields[i]);
                    envelopeTs = ts == null ? -1 : (Long) ts;
                    break;
                default:
                    Skipper.skip(envelopeFields[i], in);
            }
        }
        out.sourceTimestamp = sourceTs > 0 ? sourceTs : envelopeTs;
    }

    private static String readNullableString(BinaryDecoder in, Schema s) throws IOException {
        if (s.getType() == Schema.Type.UNION) {
            Schema branch = s.getTypes().get(in.readIndex());
            return branch.getType() == Schema.Type.NULL ? null : readString(in, branch);
        }
        return readString(in, s);
    }

    private static String readString(BinaryDecoder in, Schema s) throws IOException {
        if (s.getType() == Schema.Type.ENUM) {
            return s.getEnumSymbols().get(in.readEnum());
        }
        return in.readString();
    }

    private static Object readNullableLong(BinaryDecoder in, Schema s) throws IOException {
        if (s.getType() == Schema.Type.UNION) {
            Schema branch = s.getTypes().get(in.readIndex());
            if (branch.getType() == Schema.Type.NULL) {
                return null;
            }
            return in.readLong();
        }
        return in.readLong();
    }

    /** Reads the source block's time and position (ts_ms; file, pos, row or lsn; snapshot), skipping the rest. */
    private static final class SourcePlan {
        private static final int OTHER = 0;
        private static final int TS_MS = 1;
        private static final int FILE = 2;
        private static final int POS = 3;
        private static final int ROW = 4;
        private static final int LSN = 5;
        private static final int SNAPSHOT = 6;

        private final boolean union;
        private final int recordBranch;
        private final Schema[] fields;
        private final int[] roles;

        SourcePlan(Schema schema) {
            Schema record = schema;
            int branch = -1;
            if (schema.getType() == Schema.Type.UNION) {
                for (int i = 0; i < schema.getTypes().size(); i++) {
                    if (schema.getTypes().get(i).getType() == Schema.Type.RECORD) {
                        record = schema.getTypes().get(i);
                        branch = i;
                    }
                }
            }
            this.union = schema.getType() == Schema.Type.UNION;
            this.recordBranch = branch;
            List<Schema.Field> fs = record.getType() == Schema.Type.RECORD ? record.getFields() : List.of();
            this.fields = new Schema[fs.size()];
            this.roles = new int[fs.size()];
            for (int i = 0; i < fs.size(); i++) {
                fields[i] = fs.get(i).schema();
                roles[i] = role(fs.get(i).name(), fields[i]);
            }
        }

        /** What a source field is, when it has the type Debezium gives it; anything else is skipped. */
        private static int role(String name, Schema s) {
            Schema.Type t = nonNull(s).getType();
            switch (name) {
                case "ts_ms":
                    return t == Schema.Type.LONG ? TS_MS : OTHER;
                case "file":
                    return t == Schema.Type.STRING ? FILE : OTHER;
                case "pos":
                    return t == Schema.Type.LONG ? POS : OTHER;
                case "row":
                    return t == Schema.Type.INT || t == Schema.Type.LONG ? ROW : OTHER;
                case "lsn":
                    return t == Schema.Type.LONG ? LSN : OTHER;
                case "snapshot":
                    return t == Schema.Type.STRING || t == Schema.Type.ENUM || t == Schema.Type.BOOLEAN
                            ? SNAPSHOT
                            : OTHER;
                default:
                    return OTHER;
            }
        }

        private static Schema nonNull(Schema s) {
            if (s.getType() == Schema.Type.UNION) {
                for (Schema b : s.getTypes()) {
                    if (b.getType() != Schema.Type.NULL) {
                        return b;
                    }
                }
            }
            return s;
        }

        long read(BinaryDecoder in, Envelope out) throws IOException {
            if (union && in.readIndex() != recordBranch) {
                return -1;
            }
            long ts = -1;
            for (int i = 0; i < fields.length; i++) {
                switch (roles[i]) {
                    case TS_MS: {
                        Object v = readNullableLong(in, fields[i]);
                        ts = v == null ? -1 : (Long) v;
                        break;
                    }
                    case FILE:
                        out.sourceFile = readNullableString(in, fields[i]);
                        break;
                    case POS: {
                        Object v = readNullableLong(in, fields[i]);
                        out.sourcePosition = v == null ? -1 : (Long) v;
                        break;
                    }
                    case ROW: {
                        Object v = readNullableLong(in, fields[i]);
                        out.sourceRow = v == null ? 0 : ((Long) v).intValue();
                        break;
                    }
                    case LSN: {
                        Object v = readNullableLong(in, fields[i]);
                        out.sourceLsn = v == null ? -1 : (Long) v;
                        break;
                    }
                    case SNAPSHOT:
                        out.snapshot = isSnapshot(in, fields[i]);
                        break;
                    default:
                        Skipper.skip(fields[i], in);
                }
            }
            return ts;
        }

        /** Debezium's source.snapshot: "true", "first", "last", ... in a snapshot; "false" or null otherwise. */
        private static boolean isSnapshot(BinaryDecoder in, Schema s) throws IOException {
            Schema b = s;
            if (s.getType() == Schema.Type.UNION) {
                b = s.getTypes().get(in.readIndex());
                if (b.getType() == Schema.Type.NULL) {
                    return false;
                }
            }
            if (b.getType() == Schema.Type.BOOLEAN) {
                return in.readBoolean();
            }
            String v = readString(in, b);
            return !v.isEmpty() && !"false".equalsIgnoreCase(v);
        }
    }

    /** Reads a row record (the before or after image) into the table's column order. */
    private static final class RowPlan {
        private final int arity;
        private final boolean union;
        private final int recordBranch;
        private final int[] targets;
        private final FieldReader[] readers;
        private final Schema[] skips;
        /** Per column the writer lacks, its default (NULL where it has none). */
        private final Object[] constants;

        RowPlan(
                Schema schema,
                TableDescriptor table,
                List<String> added,
                @Nullable Pattern excluded,
                TimePrecisionMode timeMode,
                Map<String, String> defaults) {
            Schema record = schema;
            int branch = -1;
            if (schema.getType() == Schema.Type.UNION) {
                for (int i = 0; i < schema.getTypes().size(); i++) {
                    if (schema.getTypes().get(i).getType() == Schema.Type.RECORD) {
                        record = schema.getTypes().get(i);
                        branch = i;
                    }
                }
            }
            if (record.getType() != Schema.Type.RECORD) {
                throw new IllegalArgumentException(
                        "the row image is " + record.getType().getName() + ", not a record");
            }
            this.union = schema.getType() == Schema.Type.UNION;
            this.recordBranch = branch;
            this.arity = table.columns().size();
            List<Schema.Field> fs = record.getFields();
            targets = new int[fs.size()];
            readers = new FieldReader[fs.size()];
            skips = new Schema[fs.size()];
            boolean[] covered = new boolean[arity];
            for (int i = 0; i < fs.size(); i++) {
                Schema.Field f = fs.get(i);
                int pos = table.indexOf(f.name());
                targets[i] = pos;
                if (pos < 0) {
                    skips[i] = f.schema();
                    if (!EnvelopeSchemas.isExcluded(table.tableId(), f.name(), excluded)) {
                        added.add(f.name());
                    }
                    continue;
                }
                covered[pos] = true;
                Column col = table.columns().get(pos);
                try {
                    readers[i] = reader(f.schema(), col.type().getLogicalType(), timeMode);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("column '" + f.name() + "': " + e.getMessage(), e);
                }
            }
            constants = new Object[arity];
            for (int c = 0; c < arity; c++) {
                Column col = table.columns().get(c);
                String text = covered[c] ? null : defaults.get(col.name());
                if (text != null) {
                    constants[c] = ColumnDefaults.parse(text, col.type().getLogicalType());
                    continue;
                }
                if (!covered[c] && !col.isNullable()) {
                    throw new IllegalArgumentException("the writer schema lacks the NOT NULL column '"
                            + table.columns().get(c).name() + "'");
                }
            }
        }

        GenericRowData readNullable(BinaryDecoder in, RowKind kind) throws IOException {
            if (union && in.readIndex() != recordBranch) {
                return null;
            }
            GenericRowData row = new GenericRowData(kind, arity);
            for (int c = 0; c < arity; c++) {
                if (constants[c] != null) {
                    row.setField(c, constants[c]);
                }
            }
            for (int i = 0; i < targets.length; i++) {
                if (targets[i] < 0) {
                    Skipper.skip(skips[i], in);
                } else {
                    row.setField(targets[i], readers[i].read(in));
                }
            }
            return row;
        }
    }

    // ------------------------------------------------------------------ field readers

    private static FieldReader reader(Schema fieldSchema, LogicalType target, TimePrecisionMode timeMode) {
        AvroSemantics.Meaning m = AvroSemantics.of(fieldSchema);
        FieldReader value = AvroSemantics.isTime(m) && timeMode != TimePrecisionMode.TIME
                ? timeReader(m, timeMode)
                : valueReader(m, target);
        if (fieldSchema.getType() != Schema.Type.UNION) {
            return value;
        }
        boolean[] isNull = new boolean[fieldSchema.getTypes().size()];
        for (int i = 0; i < isNull.length; i++) {
            isNull[i] = fieldSchema.getTypes().get(i).getType() == Schema.Type.NULL;
        }
        return in -> isNull[in.readIndex()] ? null : value.read(in);
    }

    /**
     * TIME as BIGINT microseconds or as MySQL's text, with the column's fractional digits where the connector says
     * them.
     */
    private static FieldReader timeReader(AvroSemantics.Meaning m, TimePrecisionMode mode) {
        long perMicro;
        int defaultDigits;
        switch (m.kind) {
            case TIME_MILLIS:
                perMicro = -1000; // milliseconds: multiply
                defaultDigits = 3;
                break;
            case TIME_NANOS:
                perMicro = 1000;
                defaultDigits = 6;
                break;
            default:
                perMicro = 1;
                defaultDigits = 6;
        }
        Map<String, String> params = AvroSemantics.connectParameters(m.schema);
        String length = params.get("__debezium.source.column.length");
        // With the source column type propagated, a TIME without a length is TIME(0).
        int digits = length != null
                ? Integer.parseInt(length.trim())
                : params.containsKey("__debezium.source.column.type") ? 0 : defaultDigits;
        long factor = perMicro;
        boolean isInt = m.kind == AvroSemantics.Kind.TIME_MILLIS;
        if (mode == TimePrecisionMode.MICROSECONDS) {
            return in -> {
                long v = isInt ? in.readInt() : in.readLong();
                return factor < 0 ? v * -factor : v / factor;
            };
        }
        return in -> {
            long v = isInt ? in.readInt() : in.readLong();
            return StringData.fromString(TimePrecisionMode.format(factor < 0 ? v * -factor : v / factor, digits));
        };
    }

    private static IllegalArgumentException cannot(AvroSemantics.Meaning m, LogicalType target) {
        return new IllegalArgumentException("a " + m.kind + " value cannot be read as " + target.asSummaryString());
    }

    private static FieldReader valueReader(AvroSemantics.Meaning m, LogicalType target) {
        AvroSemantics.Kind k = m.kind;
        switch (target.getTypeRoot()) {
            case BOOLEAN:
                if (k == AvroSemantics.Kind.BOOLEAN) {
                    return BinaryDecoder::readBoolean;
                }
                break;
            case TINYINT:
                if (k == AvroSemantics.Kind.INT8) {
                    return in -> (byte) in.readInt();
                }
                break;
            case SMALLINT:
                if (k == AvroSemantics.Kind.INT8 || k == AvroSemantics.Kind.INT16) {
                    return in -> (short) in.readInt();
                }
                break;
            case INTEGER:
                if (k == AvroSemantics.Kind.INT8 || k == AvroSemantics.Kind.INT16 || k == AvroSemantics.Kind.INT32) {
                    return BinaryDecoder::readInt;
                }
                break;
            case BIGINT:
                if (k == AvroSemantics.Kind.UINT64) {
                    return in -> {
                        long v = in.readLong();
                        if (v < 0) {
                            throw new IllegalArgumentException(
                                    "the BIGINT UNSIGNED value " + Long.toUnsignedString(v) + " does not fit BIGINT");
                        }
                        return v;
                    };
                }
                if (k == AvroSemantics.Kind.INT64
                        || k == AvroSemantics.Kind.INT32
                        || k == AvroSemantics.Kind.INT16
                        || k == AvroSemantics.Kind.INT8) {
                    return BinaryDecoder::readLong; // Avro's int and long share the varint encoding
                }
                break;
            case FLOAT:
                if (k == AvroSemantics.Kind.FLOAT) {
                    return BinaryDecoder::readFloat;
                }
                break;
            case DOUBLE:
                if (k == AvroSemantics.Kind.DOUBLE) {
                    return BinaryDecoder::readDouble;
                }
                if (k == AvroSemantics.Kind.FLOAT) {
                    return in -> (double) in.readFloat();
                }
                break;
            case CHAR:
            case VARCHAR:
                switch (k) {
                    case STRING:
                        return in -> {
                            ByteBuffer b = in.readBytes(null); // strings and bytes share the encoding
                            return StringData.fromBytes(b.array(), b.arrayOffset() + b.position(), b.remaining());
                        };
                    case ENUM:
                        List<String> symbols = m.schema.getEnumSymbols();
                        return in -> StringData.fromString(symbols.get(in.readEnum()));
                    case DECIMAL: {
                        FieldReader dec = decimalBytes(m);
                        return in -> StringData.fromString(((BigDecimal) dec.read(in)).toPlainString());
                    }
                    case VARIABLE_SCALE_DECIMAL:
                        return in -> StringData.fromString(
                                readVariableScaleDecimal(m.schema, in).toPlainString());
                    default:
                        break;
                }
                break;
            case BINARY:
            case VARBINARY:
                if (k == AvroSemantics.Kind.BYTES) {
                    return EnvelopeDecoder::readBytes;
                }
                if (k == AvroSemantics.Kind.FIXED) {
                    int size = m.schema.getFixedSize();
                    return in -> {
                        byte[] b = new byte[size];
                        in.readFixed(b);
                        return b;
                    };
                }
                if (k == AvroSemantics.Kind.BITS) {
                    int width = target instanceof BinaryType ? ((BinaryType) target).getLength() : -1;
                    return in -> bitsToBigEndian(readBytes(in), width);
                }
                break;
            case DECIMAL:
                if (k == AvroSemantics.Kind.UINT64) {
                    DecimalType d = (DecimalType) target;
                    return in -> {
                        long v = in.readLong();
                        // Debezium wrote the unsigned value as a signed long: values above 2^63-1 came out negative.
                        BigInteger unsigned = v >= 0
                                ? BigInteger.valueOf(v)
                                : BigInteger.valueOf(v).add(BigInteger.ONE.shiftLeft(64));
                        return toDecimal(new BigDecimal(unsigned), d);
                    };
                }
                if (k == AvroSemantics.Kind.DECIMAL) {
                    DecimalType d = (DecimalType) target;
                    FieldReader dec = decimalBytes(m);
                    return in -> toDecimal((BigDecimal) dec.read(in), d);
                }
                break;
            case DATE:
                if (k == AvroSemantics.Kind.DATE) {
                    return BinaryDecoder::readInt;
                }
                break;
            case TIME_WITHOUT_TIME_ZONE:
                if (k == AvroSemantics.Kind.TIME_MILLIS) {
                    return BinaryDecoder::readInt;
                }
                if (k == AvroSemantics.Kind.TIME_MICROS) {
                    return in -> timeMillis(in.readLong(), 1_000L);
                }
                if (k == AvroSemantics.Kind.TIME_NANOS) {
                    return in -> timeMillis(in.readLong(), 1_000_000L);
                }
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                switch (k) {
                    case TIMESTAMP_MILLIS:
                        return in -> TimestampData.fromEpochMillis(in.readLong());
                    case TIMESTAMP_MICROS:
                        return in -> {
                            long micros = in.readLong();
                            return TimestampData.fromEpochMillis(
                                    Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
                        };
                    case TIMESTAMP_NANOS:
                        return in -> {
                            long nanos = in.readLong();
                            return TimestampData.fromEpochMillis(
                                    Math.floorDiv(nanos, 1_000_000), (int) Math.floorMod(nanos, 1_000_000));
                        };
                    case ZONED_TIMESTAMP:
                        return in -> {
                            String text = in.readString();
                            try {
                                return TimestampData.fromInstant(
                                        OffsetDateTime.parse(text).toInstant());
                            } catch (DateTimeParseException e) {
                                throw new IllegalArgumentException(
                                        "'" + text + "' is no ISO-8601 timestamp with an offset");
                            }
                        };
                    default:
                        break;
                }
                break;
            default:
                break;
        }
        throw cannot(m, target);
    }

    private static byte[] readBytes(BinaryDecoder in) throws IOException {
        ByteBuffer b = in.readBytes(null);
        if (b.arrayOffset() == 0 && b.position() == 0 && b.remaining() == b.array().length) {
            return b.array();
        }
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Reads an Avro decimal (bytes or fixed, big-endian two's complement) at the writer's scale. */
    private static FieldReader decimalBytes(AvroSemantics.Meaning m) {
        int scale = m.scale;
        if (m.schema.getType() == Schema.Type.FIXED) {
            int size = m.schema.getFixedSize();
            return in -> {
                byte[] b = new byte[size];
                in.readFixed(b);
                return new BigDecimal(new BigInteger(b), scale);
            };
        }
        return in -> new BigDecimal(new BigInteger(readBytes(in)), scale);
    }

    private static DecimalData toDecimal(BigDecimal value, DecimalType target) {
        BigDecimal v = value;
        if (v.scale() != target.getScale()) {
            try {
                v = v.setScale(target.getScale(), RoundingMode.UNNECESSARY);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        "the value " + value.toPlainString() + " has more digits than " + target.asSummaryString());
            }
        }
        DecimalData d = DecimalData.fromBigDecimal(v, target.getPrecision(), target.getScale());
        if (d == null) {
            throw new IllegalArgumentException(
                    "the value " + value.toPlainString() + " does not fit " + target.asSummaryString());
        }
        return d;
    }

    private static BigDecimal readVariableScaleDecimal(Schema record, BinaryDecoder in) throws IOException {
        Integer scale = null;
        byte[] value = null;
        for (Schema.Field f : record.getFields()) {
            if (f.name().equals("scale")) {
                scale = in.readInt();
            } else if (f.name().equals("value")) {
                value = readBytes(in);
            } else {
                Skipper.skip(f.schema(), in);
            }
        }
        if (scale == null || value == null) {
            throw new IllegalArgumentException("a VariableScaleDecimal without scale or value");
        }
        return new BigDecimal(new BigInteger(value), scale);
    }

    private static int timeMillis(long value, long perMilli) {
        long dayUnits = 86_400_000L * perMilli;
        if (value < 0 || value >= dayUnits) {
            throw new IllegalArgumentException("the TIME value " + value + " (1/" + (1000 * perMilli)
                    + " s) lies outside one day, which Flink's TIME cannot hold");
        }
        if (value % perMilli != 0) {
            throw new IllegalArgumentException("the TIME value " + value + " (1/" + (1000 * perMilli)
                    + " s) has digits below the millisecond, which Flink 1.17's TIME cannot hold");
        }
        return (int) (value / perMilli);
    }

    /**
     * Debezium writes BIT(n) values little-endian without trailing zero bytes; MySQL, JDBC and the
     * other sources give them big-endian in ceil(n / 8) bytes. Returns the latter.
     */
    static byte[] bitsToBigEndian(byte[] littleEndian, int width) {
        int n = width > 0 ? width : littleEndian.length;
        if (littleEndian.length > n) {
            throw new IllegalArgumentException("the bit string has " + littleEndian.length + " bytes, more than " + n);
        }
        byte[] out = new byte[n];
        for (int i = 0; i < littleEndian.length; i++) {
            out[n - 1 - i] = littleEndian[i];
        }
        return out;
    }
}
