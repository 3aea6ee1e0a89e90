package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.source.TimePrecisionMode;

import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.DecimalType;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an Avro field of a Debezium row means, in either of the two conventions found on Kafka:
 * Debezium's semantic types carried by Kafka Connect's Avro converter ({@code connect.name}
 * {@code io.debezium.time.MicroTimestamp}, {@code org.apache.kafka.connect.data.Decimal} with its
 * {@code connect.parameters}, {@code connect.type} int8/int16) and Avro logical types ({@code
 * timestamp-micros}, {@code decimal}, {@code date}), as Flink's own formats write them.
 */
@Internal
public final class AvroSemantics {

    private AvroSemantics() {}

    /** The kinds of values, each decoded one way. */
    public enum Kind {
        BOOLEAN,
        INT8,
        INT16,
        INT32,
        INT64,
        FLOAT,
        DOUBLE,
        STRING,
        BYTES,
        FIXED,
        ENUM,
        DATE,
        TIME_MILLIS,
        TIME_MICROS,
        TIME_NANOS,
        TIMESTAMP_MILLIS,
        TIMESTAMP_MICROS,
        TIMESTAMP_NANOS,
        ZONED_TIMESTAMP,
        DECIMAL,
        VARIABLE_SCALE_DECIMAL,
        BITS,
        /**
         * A MySQL BIGINT UNSIGNED that Debezium's default {@code bigint.unsigned.handling.mode=long}
         * wrote as a signed long (values above 2^63-1 wrap to negative): known from the source column
         * type the connector propagates ({@code column.propagate.source.type}), read back exactly.
         */
        UINT64
    }

    /** A field's meaning: its kind, nullability and the parameters some kinds need. */
    public static final class Meaning {
        public final Kind kind;
        public final boolean nullable;
        /** The non-null branch, the schema values are read with. */
        public final Schema schema;

        public final int precision;
        public final int scale;
        public final int length;

        Meaning(Kind kind, boolean nullable, Schema schema, int precision, int scale, int length) {
            this.kind = kind;
            this.nullable = nullable;
            this.schema = schema;
            this.precision = precision;
            this.scale = scale;
            this.length = length;
        }
    }

    /**
     * The meaning of a field schema.
     *
     * @throws IllegalArgumentException naming what cannot be decoded (several non-null union
     *     branches, nested records, arrays, maps)
     */
    public static Meaning of(Schema field) {
        boolean nullable = false;
        Schema s = field;
        if (field.getType() == Schema.Type.UNION) {
            List<Schema> branches = new ArrayList<>();
            for (Schema b : field.getTypes()) {
                if (b.getType() == Schema.Type.NULL) {
                    nullable = true;
                } else {
                    branches.add(b);
                }
            }
            if (branches.size() != 1) {
                throw new IllegalArgumentException("a union of " + branches.size() + " non-null types (" + field + ")");
            }
            s = branches.get(0);
        }
        String connectName = s.getProp("connect.name");
        LogicalType logical = LogicalTypes.fromSchemaIgnoreInvalid(s);
        String logicalName = logical == null ? null : logical.getName();
        switch (s.getType()) {
            case BOOLEAN:
                return new Meaning(Kind.BOOLEAN, nullable, s, 0, 0, 0);
            case INT:
                if ("io.debezium.time.Date".equals(connectName) || "date".equals(logicalName)) {
                    return new Meaning(Kind.DATE, nullable, s, 0, 0, 0);
                }
                if ("io.debezium.time.Time".equals(connectName) || "time-millis".equals(logicalName)) {
                    return new Meaning(Kind.TIME_MILLIS, nullable, s, 0, 0, 0);
                }
                if ("int8".equals(s.getProp("connect.type"))) {
                    return new Meaning(Kind.INT8, nullable, s, 0, 0, 0);
                }
                if ("int16".equals(s.getProp("connect.type"))) {
                    return new Meaning(Kind.INT16, nullable, s, 0, 0, 0);
                }
                return new Meaning(Kind.INT32, nullable, s, 0, 0, 0);
            case LONG:
                if ("io.debezium.time.Timestamp".equals(connectName)
                        || "timestamp-millis".equals(logicalName)
                        || "local-timestamp-millis".equals(logicalName)) {
                    return new Meaning(Kind.TIMESTAMP_MILLIS, nullable, s, 0, 0, 0);
                }
                if ("io.debezium.time.MicroTimestamp".equals(connectName)
                        || "timestamp-micros".equals(logicalName)
                        || "local-timestamp-micros".equals(logicalName)) {
                    return new Meaning(Kind.TIMESTAMP_MICROS, nullable, s, 0, 0, 0);
                }
                if ("io.debezium.time.NanoTimestamp".equals(connectName)) {
                    return new Meaning(Kind.TIMESTAMP_NANOS, nullable, s, 0, 0, 0);
                }
                if ("io.debezium.time.MicroTime".equals(connectName) || "time-micros".equals(logicalName)) {
                    return new Meaning(Kind.TIME_MICROS, nullable, s, 0, 0, 0);
                }
                if ("io.debezium.time.NanoTime".equals(connectName)) {
                    return new Meaning(Kind.TIME_NANOS, nullable, s, 0, 0, 0);
                }
                String sourceType = connectParameters(s).get("__debezium.source.column.type");
                if (sourceType != null && sourceType.toUpperCase(Locale.ROOT).matches("BIGINT\\b.*\\bUNSIGNED\\b.*")) {
                    return new Meaning(Kind.UINT64, nullable, s, 20, 0, 0);
                }
                return new Meaning(Kind.INT64, nullable, s, 0, 0, 0);
            case FLOAT:
                return new Meaning(Kind.FLOAT, nullable, s, 0, 0, 0);
            case DOUBLE:
                return new Meaning(Kind.DOUBLE, nullable, s, 0, 0, 0);
            case STRING:
                if ("io.debezium.time.ZonedTimestamp".equals(connectName)) {
                    return new Meaning(Kind.ZONED_TIMESTAMP, nullable, s, 0, 0, 0);
                }
                return new Meaning(Kind.STRING, nullable, s, 0, 0, 0);
            case ENUM:
                return new Meaning(Kind.ENUM, nullable, s, 0, 0, 0);
            case BYTES:
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal) {
                    LogicalTypes.Decimal d = (LogicalTypes.Decimal) logical;
                    return new Meaning(Kind.DECIMAL, nullable, s, d.getPrecision(), d.getScale(), 0);
                }
                if ("org.apache.kafka.connect.data.Decimal".equals(connectName)) {
                    Map<String, String> params = connectParameters(s);
                    int scale = Integer.parseInt(params.getOrDefault("scale", "0"));
                    String p = params.get("connect.decimal.precision");
                    return new Meaning(Kind.DECIMAL, nullable, s, p == null ? 0 : Integer.parseInt(p), scale, 0);
                }
                if ("io.debezium.data.Bits".equals(connectName)) {
                    String length = connectParameters(s).get("length");
                    return new Meaning(Kind.BITS, nullable, s, 0, 0, length == null ? 0 : Integer.parseInt(length));
                }
                if (s.getType() == Schema.Type.FIXED) {
                    return new Meaning(Kind.FIXED, nullable, s, 0, 0, s.getFixedSize());
                }
                return new Meaning(Kind.BYTES, nullable, s, 0, 0, 0);
            case RECORD:
                if ("io.debezium.data.VariableScaleDecimal".equals(connectName)
                        || "io.debezium.data.VariableScaleDecimal".equals(s.getFullName())) {
                    return new Meaning(Kind.VARIABLE_SCALE_DECIMAL, nullable, s, 0, 0, 0);
                }
                throw new IllegalArgumentException("a nested record " + s.getFullName());
            default:
                throw new IllegalArgumentException("an Avro " + s.getType().getName());
        }
    }

    /**
     * A field's default in the writer schema as the text {@code ColumnDefaults} reads: the value
     * Debezium gives the rows that existed before a column was added with {@code DEFAULT} (it writes
     * the column's DDL default into the schema). Null when the field has none, its default is NULL, or
     * its kind's default is not a plain constant here (times, bits, bytes).
     */
    @Nullable
    public static String defaultText(Schema.Field field) {
        if (!field.hasDefaultValue()) {
            return null;
        }
        Object d = field.defaultVal();
        if (d == null || d == JsonProperties.NULL_VALUE) {
            return null;
        }
        Meaning m = of(field.schema());
        switch (m.kind) {
            case STRING:
            case ENUM:
                // Debezium's DDL parser keeps a quoted default's escapes ('it''s' stays it''s): such a text is not
                // the value, and the schema cannot tell.
                String text = d.toString();
                return text.indexOf('\'') >= 0 || text.indexOf('\\') >= 0 ? null : text;
            case BOOLEAN:
            case INT8:
            case INT16:
            case INT32:
            case INT64:
            case FLOAT:
            case DOUBLE:
                return d.toString();
            case DECIMAL:
                // Avro's JSON default of bytes is the unscaled two's-complement value, one char per byte.
                return d instanceof byte[] ? new BigDecimal(new BigInteger((byte[]) d), m.scale).toPlainString() : null;
            default:
                // Dates and times: Debezium writes CURRENT_TIMESTAMP and the like as the epoch, which MySQL's rows
                // do not have; the schema cannot tell a constant from those.
                return null;
        }
    }

    /** The Kafka Connect parameters of a (non-null) field schema, e.g. {@code __debezium.source.column.length}. */
    @SuppressWarnings("unchecked")
    static Map<String, String> connectParameters(Schema s) {
        Object p = s.getObjectProp("connect.parameters");
        return p instanceof Map ? (Map<String, String>) p : Map.of();
    }

    /** Whether the meaning is a MySQL TIME (a duration of microseconds, milliseconds or nanoseconds). */
    public static boolean isTime(Meaning m) {
        return m.kind == Kind.TIME_MILLIS || m.kind == Kind.TIME_MICROS || m.kind == Kind.TIME_NANOS;
    }

    /** The Flink type that holds every value of a meaning, TIME typed as {@code time.precision.mode} says. */
    public static DataType flinkType(Meaning m, TimePrecisionMode timeMode) {
        if (isTime(m) && timeMode != TimePrecisionMode.TIME) {
            DataType t = timeMode.flinkType(6);
            return m.nullable ? t : t.notNull();
        }
        DataType t;
        switch (m.kind) {
            case BOOLEAN:
                t = DataTypes.BOOLEAN();
                break;
            case INT8:
                t = DataTypes.TINYINT();
                break;
            case INT16:
                t = DataTypes.SMALLINT();
                break;
            case INT32:
                t = DataTypes.INT();
                break;
            case INT64:
                t = DataTypes.BIGINT();
                break;
            case UINT64:
                t = DataTypes.DECIMAL(20, 0);
                break;
            case FLOAT:
                t = DataTypes.FLOAT();
                break;
            case DOUBLE:
                t = DataTypes.DOUBLE();
                break;
            case STRING:
            case ENUM:
            case VARIABLE_SCALE_DECIMAL:
                t = DataTypes.STRING();
                break;
            case BYTES:
                t = DataTypes.BYTES();
                break;
            case FIXED:
                t = DataTypes.BINARY(m.length);
                break;
            case BITS:
                t = m.length > 0 ? DataTypes.BINARY((m.length + 7) / 8) : DataTypes.BYTES();
                break;
            case DATE:
                t = DataTypes.DATE();
                break;
            case TIME_MILLIS:
                t = DataTypes.TIME(3);
                break;
            case TIME_MICROS:
                t = DataTypes.TIME(6);
                break;
            case TIME_NANOS:
                t = DataTypes.TIME(9);
                break;
            case TIMESTAMP_MILLIS:
                t = DataTypes.TIMESTAMP(3);
                break;
            case TIMESTAMP_MICROS:
                t = DataTypes.TIMESTAMP(6);
                break;
            case TIMESTAMP_NANOS:
                t = DataTypes.TIMESTAMP(9);
                break;
            case ZONED_TIMESTAMP:
                t = DataTypes.TIMESTAMP_LTZ(6);
                break;
            case DECIMAL:
                if (m.precision > DecimalType.MAX_PRECISION) {
                    t = DataTypes.STRING(); // exact text; Flink's DECIMAL stops at 38 digits
                } else {
                    // No declared precision (a Connect Decimal without it): the widest Flink has.
                    t = DataTypes.DECIMAL(m.precision > 0 ? m.precision : DecimalType.MAX_PRECISION, m.scale);
                }
                break;
            default:
                throw new IllegalStateException("Unmapped kind " + m.kind);
        }
        return m.nullable ? t : t.notNull();
    }

    /** The field's documentation, if any. */
    @Nullable
    public static String doc(Schema.Field f) {
        return f.doc() == null || f.doc().isEmpty() ? null : f.doc();
    }
}
