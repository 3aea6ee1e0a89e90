package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ColumnChange;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * How a source column is stored in a Hudi table, and which differences between a column's type in
 * the table and at the source Hudi 0.14 takes: the one place both the sink's build (an existing table
 * brought along) and its writer (a schema change while the job runs) decide it.
 */
@Internal
public final class HudiColumns {

    private HudiColumns() {}

    /**
     * The type a source column is written as: TINYINT and SMALLINT as INT (Parquet stores them as
     * 32-bit ints, and Hudi's Flink reader fails on base files it must read into a SMALLINT column),
     * TIME at millisecond precision (what Flink's TIME holds, the most Hudi's Avro TIME takes).
     */
    public static LogicalType written(LogicalType t) {
        if (t instanceof TimeType && ((TimeType) t).getPrecision() > 3) {
            return new TimeType(t.isNullable(), 3);
        }
        if (t instanceof TinyIntType || t instanceof SmallIntType) {
            return new IntType(t.isNullable());
        }
        return t;
    }

    /**
     * Whether values of the two types are stored alike, nullability aside: strings of any length are
     * Avro strings, byte strings Avro bytes, TINYINT to INT Avro ints.
     */
    public static boolean storedAlike(LogicalType a, LogicalType b) {
        return stored(a).equals(stored(b));
    }

    /**
     * Whether Hudi's writer stores values of the two types as the same Avro type and logical type, and
     * reads them back alike: also a TIMESTAMP(0) and a TIMESTAMP(3) (both {@code timestamp-millis}), as
     * a column the table keeps is typed from its Avro field ({@link #flinkType}), which has no precision.
     * DECIMALs only of the same precision and scale.
     */
    public static boolean sameAvro(LogicalType a, LogicalType b) {
        if (a.getTypeRoot() == LogicalTypeRoot.DECIMAL || b.getTypeRoot() == LogicalTypeRoot.DECIMAL) {
            return storedAlike(a, b);
        }
        return avroBase(written(a)).equals(avroBase(written(b)))
                && Objects.equals(avroLogical(written(a)), avroLogical(written(b)));
    }

    /**
     * Why a Hudi table's column cannot be widened, as measured at Hudi 0.14.0 (MERGE_ON_READ, Flink): the
     * Flink reader fails on a base file written before an INT to BIGINT change ({@code
     * IllegalArgumentException: Unexpected type: INT32} in {@code ParquetSplitReaderUtil}), and on log files
     * written before a DECIMAL precision change ({@code AvroTypeException: Found ...fixed, expecting ...fixed}).
     * Hudi's schema on read does not help: with {@code hoodie.schema.on.read.enable} alone its Flink writer
     * records no schema history (measured: {@code .hoodie/.schema} stays empty, the commits have no {@code
     * latest_schema}); with {@code hoodie.datasource.write.reconcile.schema} too, from the first commit, it
     * does, and the reader then fails on the INT base file with {@code ClassCastException: HeapIntVector cannot
     * be cast to LongColumnVector} until a compaction rewrites the file.
     */
    public static final String NO_WIDENING = "Hudi 0.14's Flink reader cannot read the table's files written"
            + " before a widening (base files fail with 'Unexpected type: INT32', log files of a DECIMAL with"
            + " 'AvroTypeException'; upstream hudi #14252). Write the table anew under the new type (another"
            + " 'path', or delete the table and start the job without state), or keep the column's type at"
            + " the source";

    /**
     * Whether every value of {@code from} is one of {@code to}, stored wider: INT to BIGINT, FLOAT to
     * DOUBLE, DECIMAL(p, s) to DECIMAL(p', s).
     */
    public static boolean widens(LogicalType from, LogicalType to) {
        LogicalType a = stored(from);
        LogicalType b = stored(to);
        return !a.equals(b) && ColumnChange.retyped("c", a, b).isWidening();
    }

    private static LogicalType stored(LogicalType t) {
        LogicalType w = written(t).copy(true);
        switch (w.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return new VarCharType(VarCharType.MAX_LENGTH);
            case BINARY:
            case VARBINARY:
                return new VarBinaryType(VarBinaryType.MAX_LENGTH);
            default:
                return w;
        }
    }

    /**
     * The Flink type of a column of the table's Avro schema where a widening between it and the source
     * can be told (boolean, int, long, float, double, decimal); null for the others, which the sink
     * compares by their Avro type alone.
     */
    @Nullable
    public static LogicalType numeric(Schema field) {
        Schema s = valueOf(field);
        boolean nullable = nullable(field);
        if (s.getLogicalType() instanceof LogicalTypes.Decimal) {
            LogicalTypes.Decimal d = (LogicalTypes.Decimal) s.getLogicalType();
            return new DecimalType(nullable, d.getPrecision(), d.getScale());
        }
        if (s.getLogicalType() != null) {
            return null; // a date, time or timestamp
        }
        switch (s.getType()) {
            case BOOLEAN:
                return new BooleanType(nullable);
            case INT:
                return new IntType(nullable);
            case LONG:
                return new BigIntType(nullable);
            case FLOAT:
                return new FloatType(nullable);
            case DOUBLE:
                return new DoubleType(nullable);
            default:
                return null;
        }
    }

    /**
     * The Flink type Hudi 0.14's writer stores as the table's Avro field, nullable: the inverse of its
     * converter for the types Inlet writes (strings as STRING, bytes as BYTES, times at millisecond
     * precision); null for a field no Inlet column is stored as (a record, array, map, enum, or a logical
     * type the writer does not make).
     */
    @Nullable
    public static LogicalType flinkType(Schema field) {
        LogicalType numeric = numeric(field);
        if (numeric != null) {
            return numeric.copy(true);
        }
        Schema s = valueOf(field);
        String logical = s.getLogicalType() == null ? null : s.getLogicalType().getName();
        switch (s.getType()) {
            case STRING:
                return logical == null ? new VarCharType(true, VarCharType.MAX_LENGTH) : null;
            case BYTES:
                return logical == null ? new VarBinaryType(true, VarBinaryType.MAX_LENGTH) : null;
            case INT:
                if ("date".equals(logical)) {
                    return new DateType(true);
                }
                return "time-millis".equals(logical) ? new TimeType(true, 3) : null;
            case LONG:
                if (logical == null) {
                    return null;
                }
                switch (logical) {
                    case "timestamp-millis":
                        return new TimestampType(true, 3);
                    case "timestamp-micros":
                        return new TimestampType(true, 6);
                    case "local-timestamp-millis":
                        return new LocalZonedTimestampType(true, 3);
                    case "local-timestamp-micros":
                        return new LocalZonedTimestampType(true, 6);
                    default:
                        return null;
                }
            default:
                return null;
        }
    }

    /** Whether the table's Avro field takes NULL (a union with null). */
    public static boolean nullable(Schema field) {
        return field.getType() == Schema.Type.NULL
                || (field.getType() == Schema.Type.UNION
                        && field.getTypes().stream().anyMatch(b -> b.getType() == Schema.Type.NULL));
    }

    /**
     * Whether values of the source type are stored as the table's field holds them: the same Avro type
     * and logical type (Hudi 0.14's converter: TIMESTAMP up to precision 3 as {@code timestamp-millis},
     * up to 6 as {@code timestamp-micros}, the local-time-zone ones as {@code local-timestamp-*}, DATE as
     * {@code date}, TIME as {@code time-millis}), a DECIMAL of the same precision and scale.
     */
    public static boolean storedAs(Schema field, LogicalType source) {
        LogicalType held = numeric(field);
        if (held != null) {
            return storedAlike(source, held);
        }
        Schema s = valueOf(field);
        String logical = s.getLogicalType() == null ? null : s.getLogicalType().getName();
        return baseType(s).equals(avroBase(source)) && Objects.equals(logical, avroLogical(written(source)));
    }

    /** A field's Avro type and logical type, e.g. {@code long timestamp-millis}. */
    public static String describe(Schema field) {
        Schema s = valueOf(field);
        return baseType(s)
                + (s.getLogicalType() == null ? "" : " " + s.getLogicalType().getName());
    }

    /** The primitive Avro type of a (nullable) field: logical types aside, fixed as bytes. */
    public static String baseType(Schema field) {
        Schema s = valueOf(field);
        return s.getType() == Schema.Type.FIXED ? "bytes" : s.getType().getName();
    }

    /** The primitive Avro type Hudi's writer stores a Flink type as. */
    public static String avroBase(LogicalType t) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return "boolean";
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return "int";
            case BIGINT:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return "long";
            case FLOAT:
                return "float";
            case DOUBLE:
                return "double";
            case CHAR:
            case VARCHAR:
                return "string";
            default: // BINARY, VARBINARY, DECIMAL (bytes or fixed)
                return "bytes";
        }
    }

    /** The field's value schema: a nullable field's non-null branch. */
    private static Schema valueOf(Schema field) {
        if (field.getType() == Schema.Type.UNION) {
            for (Schema b : field.getTypes()) {
                if (b.getType() != Schema.Type.NULL) {
                    return b;
                }
            }
        }
        return field;
    }

    @Nullable
    private static String avroLogical(LogicalType t) {
        switch (t.getTypeRoot()) {
            case DATE:
                return "date";
            case TIME_WITHOUT_TIME_ZONE:
                return ((TimeType) t).getPrecision() <= 3 ? "time-millis" : "time-micros";
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ((TimestampType) t).getPrecision() <= 3 ? "timestamp-millis" : "timestamp-micros";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ((LocalZonedTimestampType) t).getPrecision() <= 3
                        ? "local-timestamp-millis"
                        : "local-timestamp-micros";
            case DECIMAL:
                return "decimal";
            default:
                return null;
        }
    }
}
