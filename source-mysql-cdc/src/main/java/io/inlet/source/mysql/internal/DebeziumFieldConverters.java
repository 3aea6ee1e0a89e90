package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
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

    static FieldConverter create(LogicalType type, Schema schema) {
        String semantic = schema.name() == null ? "" : schema.name();
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
                                        + " 'treat-tinyint1-as-boolean.enabled' = 'false' to read TINYINT(1) columns as TINYINT.");
                    }
                    return n == 1;
                };
            case TINYINT:
                return v -> ((Number) v).byteValue();
            case SMALLINT:
                return v -> v instanceof Boolean ? (short) ((Boolean) v ? 1 : 0) : ((Number) v).shortValue();
            case INTEGER:
                return v -> ((Number) v).intValue();
            case BIGINT:
                return v -> ((Number) v).longValue();
            case FLOAT:
                return v -> ((Number) v).floatValue();
            case DOUBLE:
                return v -> ((Number) v).doubleValue();
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) type;
                    int p = d.getPrecision();
                    int s = d.getScale();
                    return v -> {
                        BigDecimal bd = toBigDecimal(v);
                        DecimalData data = DecimalData.fromBigDecimal(bd, p, s);
                        if (data == null) {
                            throw new IllegalArgumentException("the value " + bd.toPlainString() + " does not fit DECIMAL(" + p + ", " + s + ").");
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
                if ("io.debezium.time.MicroTime".equals(semantic)) {
                    return v -> {
                        long micros = ((Number) v).longValue();
                        if (micros < 0 || micros >= MICROS_PER_DAY) {
                            throw new IllegalArgumentException(
                                    "the TIME value " + formatMicros(micros) + " lies outside one day, which Flink's TIME cannot"
                                            + " hold. Leave the column out with 'exclude-columns'.");
                        }
                        if (micros % 1000 != 0) {
                            throw new IllegalArgumentException(
                                    "the TIME value " + formatMicros(micros) + " has digits below the millisecond, which Flink"
                                            + " 1.17's TIME cannot hold. Leave the column out with 'exclude-columns'.");
                        }
                        return (int) (micros / 1000);
                    };
                }
                if ("io.debezium.time.NanoTime".equals(semantic)) {
                    return v -> (int) (((Number) v).longValue() / 1_000_000L);
                }
                return v -> ((Number) v).intValue(); // io.debezium.time.Time: milliseconds
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
                        return TimestampData.fromInstant(OffsetDateTime.parse((String) v).toInstant());
                    }
                    return TimestampData.fromInstant(Instant.ofEpochMilli(((Number) v).longValue()));
                };
            default:
                throw new IllegalArgumentException("no conversion from Debezium to " + type.asSummaryString());
        }
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
        throw new IllegalArgumentException("the value " + v + " (" + v.getClass().getName() + ") is no decimal.");
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
        throw new IllegalArgumentException("the value " + v + " (" + v.getClass().getName() + ") is no byte string.");
    }

    /**
     * Debezium gives BIT(n) values little-endian, with trailing zero bytes dropped; MySQL (and JDBC)
     * give them big-endian in ceil(n / 8) bytes. Returns the latter.
     */
    static byte[] bitsToBigEndian(byte[] littleEndian, int length) {
        int n = length > 0 ? length : littleEndian.length;
        if (littleEndian.length > n) {
            throw new IllegalArgumentException("the BIT value has " + littleEndian.length + " bytes, more than " + n + ".");
        }
        byte[] out = new byte[n];
        for (int i = 0; i < littleEndian.length; i++) {
            out[n - 1 - i] = littleEndian[i];
        }
        return out;
    }

    private static String formatMicros(long micros) {
        long abs = Math.abs(micros);
        return String.format(
                "%s%02d:%02d:%02d.%06d",
                micros < 0 ? "-" : "", abs / 3_600_000_000L, (abs / 60_000_000L) % 60, (abs / 1_000_000L) % 60, abs % 1_000_000L);
    }
}
