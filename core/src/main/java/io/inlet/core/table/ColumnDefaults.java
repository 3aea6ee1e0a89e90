package io.inlet.core.table;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Reads the default value of a column, as a source reports it in text, into the value Flink's
 * internal rows hold for the column's type. It is the one place both sinks turn the default of a
 * column added with {@code ADD COLUMN ... DEFAULT} into the value of the rows that existed before.
 *
 * <pre>{@code
 * Object v = ColumnDefaults.parse("1.50", new DecimalType(10, 2)); // DecimalData 1.50
 * }</pre>
 *
 * <p>Constants only: strings, numbers, booleans ({@code 0}/{@code 1} as MySQL writes them), dates,
 * times and timestamps without a time zone. An expression ({@code CURRENT_TIMESTAMP}, {@code
 * uuid()}), a binary value or a timestamp in the server's time zone is refused: its value in the
 * rows before is not in the text.
 */
@PublicEvolving
public final class ColumnDefaults {

    private ColumnDefaults() {}

    /**
     * The value, in Flink's internal form of the type ({@code StringData}, {@code DecimalData}, days
     * since the epoch for a DATE, ...).
     *
     * @throws IllegalArgumentException naming the value and the type when the text is not a constant of it
     */
    public static Object parse(String text, LogicalType type) {
        if (text == null) {
            throw new IllegalArgumentException("A default value needs its text.");
        }
        String t = text.trim();
        try {
            switch (type.getTypeRoot()) {
                case CHAR:
                case VARCHAR:
                    // A CHAR value reads without its trailing spaces in MySQL (and in the binlog), its default too.
                    String chars = type.getTypeRoot() == LogicalTypeRoot.CHAR ? text.replaceAll(" +$", "") : text;
                    int length = LogicalTypeChecks.getLength(type);
                    if (chars.codePointCount(0, chars.length()) > length) {
                        throw refused(text, type, "it is longer than the column");
                    }
                    return StringData.fromString(chars);
                case BOOLEAN:
                    switch (t.toLowerCase(Locale.ROOT)) {
                        case "1":
                        case "true":
                        case "b'1'":
                            return Boolean.TRUE;
                        case "0":
                        case "false":
                        case "b'0'":
                            return Boolean.FALSE;
                        default:
                            throw refused(text, type, "it is not a boolean");
                    }
                case TINYINT:
                    return Byte.parseByte(t);
                case SMALLINT:
                    return Short.parseShort(t);
                case INTEGER:
                    return Integer.parseInt(t);
                case BIGINT:
                    return Long.parseLong(t);
                case FLOAT:
                    float f = Float.parseFloat(t);
                    if (!Float.isFinite(f)) {
                        throw refused(text, type, "it is not a finite FLOAT");
                    }
                    return f;
                case DOUBLE:
                    double dbl = Double.parseDouble(t);
                    if (!Double.isFinite(dbl)) {
                        throw refused(text, type, "it is not a finite DOUBLE");
                    }
                    return dbl;
                case DECIMAL: {
                    DecimalType d = (DecimalType) type;
                    // The source rounds a default with more decimals to the column's scale, as MySQL stores it.
                    BigDecimal value = new BigDecimal(t).setScale(d.getScale(), RoundingMode.HALF_UP);
                    DecimalData data = DecimalData.fromBigDecimal(value, d.getPrecision(), d.getScale());
                    if (data == null) {
                        throw refused(text, type, "it has more digits than the column");
                    }
                    return data;
                }
                case DATE:
                    return (int) LocalDate.parse(t).toEpochDay();
                case TIME_WITHOUT_TIME_ZONE: {
                    // Rounded to the column's fractional digits, as MySQL stores it.
                    long nanos = round(LocalTime.parse(t).toNanoOfDay(), LogicalTypeChecks.getPrecision(type));
                    if (nanos >= 86_400_000_000_000L) {
                        throw refused(text, type, "it rounds past the end of the day");
                    }
                    return (int) (nanos / 1_000_000);
                }
                case TIMESTAMP_WITHOUT_TIME_ZONE: {
                    LocalDateTime at = LocalDateTime.parse(t.replace(' ', 'T'));
                    long nanos = at.getNano();
                    long rounded = round(nanos, LogicalTypeChecks.getPrecision(type));
                    return TimestampData.fromLocalDateTime(at.withNano(0).plusNanos(rounded));
                }
                default:
                    throw refused(text, type, "Inlet reads defaults of strings, numbers, booleans, dates and times");
            }
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw refused(text, type, "it is not a constant of that type");
        }
    }

    /** The nanoseconds rounded half up to {@code digits} fractional digits of a second. */
    private static long round(long nanos, int digits) {
        long unit = 1;
        for (int i = digits; i < 9; i++) {
            unit *= 10;
        }
        return (nanos + unit / 2) / unit * unit;
    }

    private static IllegalArgumentException refused(String text, LogicalType type, String why) {
        return new IllegalArgumentException("The default '" + text + "' is not a value Inlet can give a "
                + type.asSummaryString() + " column: " + why + ".");
    }
}
