package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.source.TimePrecisionMode;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.kafka.connect.data.Schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Base64;

/**
 * Converts the values Debezium's MySQL connector produces (Kafka Connect structs, with Debezium's
 * semantic types) straight into Flink's internal data structures, for one column's Flink type. A
 * value the Flink type cannot hold exactly fails with what it is and what to do, never silently
 * changed.
 */
@Internal
final class DebeziumFieldConverters {

    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private DebeziumFieldConverters() {}

    /** Converts one non-null value; the message of a failure names the value, not the column. */
    interface FieldConverter {
        Object convert(Object value);
    }

    /**
     * @param timeDigits the fractional digits of the MySQL TIME column (for its text form), if the
     *     column is one
     */
    static FieldConverter create(LogicalType type, Schema schema, int timeDigits) {
        String semantic = schema.name() == null ? "" : schema.name();
        if (isTime(semantic) && type.getTypeRoot() == LogicalTypeRoot.BIGINT) {
            return v -> timeMicros(semantic, v); // time.precision.mode = microseconds: every value, with its sign
        }
        if (isTime(semantic)
                && (type.getTypeRoot() == LogicalTypeRoot.VARCHAR || type.getTypeRoot() == LogicalTypeRoot.CHAR)) {
            return v -> StringData.fromString(TimePrecisionMode.format(timeMicros(semantic, v), timeDigits));
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return v -> {
                    if (v instanceof Boolean) {
                        return v;
                    }
                    long n = ((Number) v).longValue();
                    if (n != 0 && n != 1) {
                        throw new IllegalArgumentException(
                                "the value " + n + " is neither 0 nor 1, so it is no BOOLEAN. Set"
                                        + " 'treat-tinyint1-as-boolean.enabled' = 'false' to read"
                                        + " TINYINT(1) columns as" + " TINYINT.");
                    }
                    return n == 1;
                };
            case TINYINT:
                return v -> (byte) fit(v, Byte.MIN_VALUE, Byte.MAX_VALUE, type);
            case SMALLINT:
                return v -> v instanceof Boolean
                        ? (short) ((Boolean) v ? 1 : 0)
                        : (short) fit(v, Short.MIN_VALUE, Short.MAX_VALUE, type);
            case INTEGER:
                return v -> (int) fit(v, Integer.MIN_VALUE, Integer.MAX_VALUE, type);
            case BIGINT:
                return v -> {
                    if (v instanceof BigDecimal || v instanceof BigInteger) {
                        BigDecimal d = v instanceof BigDecimal ? (BigDecimal) v : new BigDecimal((BigInteger) v);
                        try {
                            return d.longValueExact();
                        } catch (ArithmeticException e) {
                            throw new IllegalArgumentException(
                                    "the value " + d.toPlainString() + " does not fit BIGINT");
                        }
                    }
                    return ((Number) v).longValue();
                };
            case FLOAT:
                return v -> {
                    float f = ((Number) v).floatValue();
                    if (v instanceof Double && !Double.isNaN((Double) v) && (double) f != (Double) v) {
                        throw new IllegalArgumentException("the value " + v + " does not fit FLOAT");
                    }
                    return f;
                };
            case DOUBLE:
                return v -> ((Number) v).doubleValue();
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                int p = d.getPrecision();
                int s = d.getScale();
                return v -> {
                    BigDecimal bd = toBigDecimal(v);
                    DecimalData data = DecimalData.fromBigDecimal(bd, p, s);
                    if (data == null) {
                        throw new IllegalArgumentException(
                                "the value " + bd.toPlainString() + " does not fit DECIMAL(" + p + ", " + s + ").");
                    }
                    return data;
                };
            }
            case CHAR:
            case VARCHAR:
                if (schema.type() == Schema.Type.BYTES || "org.apache.kafka.connect.data.Decimal".equals(semantic)) {
                    // DECIMAL wider than Flink's 38 digits: the exact plain text.
                    return v -> StringData.fromString(toBigDecimal(v).toPlainString());
                }
                return v -> StringData.fromString(v.toString());
            case BINARY:
            case VARBINARY:
                if ("io.debezium.data.Bits".equals(semantic)) {
                    int length = type instanceof BinaryType ? ((BinaryType) type).getLength() : -1;
                    return v -> bitsToBigEndian(bytes(v), length);
                }
                return DebeziumFieldConverters::bytes;
            case DATE:
                return v -> ((Number) v).intValue();
            case TIME_WITHOUT_TIME_ZONE:
                return v -> {
                    long micros = timeMicros(semantic, v);
                    if (micros < 0 || micros >= MICROS_PER_DAY) {
                        throw new IllegalArgumentException("the TIME value " + formatMicros(micros)
                                + " lies outside one day, which Flink's TIME cannot"
                                + " hold. Set 'time.precision.mode' = 'microseconds' (or 'string')" + " to keep every"
                                + " TIME value");
                    }
                    if (micros % 1000 != 0) {
                        throw new IllegalArgumentException("the TIME value " + formatMicros(micros)
                                + " has digits below the millisecond, which Flink"
                                + " 1.17's TIME cannot hold. Set 'time.precision.mode' = 'microseconds' (or"
                                + " 'string') to"
                                + " keep every TIME value");
                    }
                    return (int) (micros / 1000);
                };
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                switch (semantic) {
                    case "io.debezium.time.MicroTimestamp":
                        return v -> {
                            long micros = ((Number) v).longValue();
                            return TimestampData.fromEpochMillis(
                                    Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
                        };
                    case "io.debezium.time.NanoTimestamp":
                        return v -> {
                            long nanos = ((Number) v).longValue();
                            return TimestampData.fromEpochMillis(
                                    Math.floorDiv(nanos, 1_000_000), (int) Math.floorMod(nanos, 1_000_000));
                        };
                    default: // io.debezium.time.Timestamp: milliseconds
                        return v -> TimestampData.fromEpochMillis(((Number) v).longValue());
                }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return v -> {
                    if (v instanceof String) {
                        // io.debezium.time.ZonedTimestamp: ISO-8601 with an offset, already in UTC.
                        return TimestampData.fromInstant(
                                OffsetDateTime.parse((String) v).toInstant());
                    }
                    return TimestampData.fromInstant(Instant.ofEpochMilli(((Number) v).longValue()));
                };
            default:
                throw new IllegalArgumentException("no conversion from Debezium to " + type.asSummaryString());
        }
    }

    private static boolean isTime(String semantic) {
        return "io.debezium.time.MicroTime".equals(semantic)
                || "io.debezium.time.Time".equals(semantic)
                || "io.debezium.time.NanoTime".equals(semantic);
    }

    private static long timeMicros(String semantic, Object v) {
        long n = ((Number) v).longValue();
        switch (semantic) {
            case "io.debezium.time.Time":
                return n * 1000; // milliseconds
            case "io.debezium.time.NanoTime":
                return n / 1000;
            default:
                return n;
        }
    }

    /** The value as a long, when it lies within the range of the column's type; never truncated. */
    private static long fit(Object v, long min, long max, LogicalType type) {
        long n;
        if (v instanceof BigDecimal || v instanceof BigInteger || v instanceof Double || v instanceof Float) {
            BigDecimal d = toBigDecimal(v);
            try {
                n = d.longValueExact();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        "the value " + d.toPlainString() + " does not fit " + type.asSummaryString());
            }
        } else {
            n = ((Number) v).longValue();
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("the value " + n + " does not fit " + type.asSummaryString());
        }
        return n;
    }

    private static BigDecimal toBigDecimal(Object v) {
        if (v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        if (v instanceof String) {
            return new BigDecimal((String) v);
        }
        if (v instanceof Double || v instanceof Float) {
            return BigDecimal.valueOf(((Number) v).doubleValue());
        }
        if (v instanceof Number) {
            return new BigDecimal(BigInteger.valueOf(((Number) v).longValue()));
        }
        throw new IllegalArgumentException(
                "the value " + v + " (" + v.getClass().getName() + ") is no decimal.");
    }

    private static byte[] bytes(Object v) {
        if (v instanceof byte[]) {
            return (byte[]) v;
        }
        if (v instanceof ByteBuffer) {
            ByteBuffer b = ((ByteBuffer) v).duplicate();
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
        if (v instanceof String) {
            return Base64.getDecoder().decode((String) v); // binary.handling.mode=base64
        }
        throw new IllegalArgumentException(
                "the value " + v + " (" + v.getClass().getName() + ") is no byte string.");
    }

    /**
     * Debezium gives BIT(n) values little-endian, with trailing zero bytes dropped; MySQL (and JDBC)
     * give them big-endian in ceil(n / 8) bytes. Returns the latter.
     */
    static byte[] bitsToBigEndian(byte[] littleEndian, int length) {
        int n = length > 0 ? length : littleEndian.length;
        if (littleEndian.length > n) {
            throw new IllegalArgumentException(
                    "the BIT value has " + littleEndian.length + " bytes, more than " + n + ".");
        }
        byte[] out = new byte[n];
        for (int i = 0; i < littleEndian.length; i++) {
            out[n - 1 - i] = littleEndian[i];
        }
        return out;
    }

    private static String formatMicros(long micros) {
        return TimePrecisionMode.format(micros, 6);
    }
}
