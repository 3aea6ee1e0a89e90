package io.inlet.core.source;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.util.OptionValues;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;

/**
 * How MySQL {@code TIME} columns are typed (option {@code time.precision.mode}, named after
 * Debezium's). MySQL's TIME is a duration from {@code -838:59:59.999999} to {@code
 * 838:59:59.999999} with up to microseconds; Flink 1.17's {@code TIME} holds milliseconds within one
 * day.
 *
 * <ul>
 *   <li>{@link #TIME}: Flink {@code TIME(p)}; a value outside one day or with digits below the
 *       millisecond is a bad record ({@code bad-record.action}). For times of day.
 *   <li>{@link #MICROSECONDS}: {@code BIGINT}, the signed number of microseconds: every value, exact,
 *       and arithmetic stays possible. For durations.
 *   <li>{@link #STRING}: MySQL's own text form, {@code [-]H:MM:SS[.fraction]} with the column's
 *       fractional digits, exactly as {@code SELECT} shows it. For display.
 * </ul>
 */
@PublicEvolving
public enum TimePrecisionMode {
    TIME("time"),
    MICROSECONDS("microseconds"),
    STRING("string");

    /** The option key both sources use. */
    public static final String OPTION = "time.precision.mode";

    private final String key;

    TimePrecisionMode(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** @throws InletValidationException naming the option and its values */
    public static TimePrecisionMode of(String value) {
        return OptionValues.parse(OPTION, value, values(), TimePrecisionMode::key);
    }

    /** The Flink type of a TIME column with this many fractional digits (nullable). */
    public DataType flinkType(int fractionalDigits) {
        switch (this) {
            case MICROSECONDS:
                return DataTypes.BIGINT();
            case STRING:
                return DataTypes.STRING();
            default:
                return DataTypes.TIME(fractionalDigits);
        }
    }

    /**
     * MySQL's text form of a TIME value: {@code -838:59:59.999999}, {@code 08:00:00}, {@code
     * 100:00:00.50} (hours with at least two digits, the fraction with exactly {@code
     * fractionalDigits} digits, truncated).
     */
    public static String format(long micros, int fractionalDigits) {
        long abs = Math.abs(micros);
        long hours = abs / 3_600_000_000L;
        long minutes = (abs / 60_000_000L) % 60;
        long seconds = (abs / 1_000_000L) % 60;
        StringBuilder sb = new StringBuilder(18);
        if (micros < 0) {
            sb.append('-');
        }
        if (hours < 10) {
            sb.append('0');
        }
        sb.append(hours).append(':');
        if (minutes < 10) {
            sb.append('0');
        }
        sb.append(minutes).append(':');
        if (seconds < 10) {
            sb.append('0');
        }
        sb.append(seconds);
        int digits = Math.max(0, Math.min(6, fractionalDigits));
        if (digits > 0) {
            String fraction = String.format("%06d", abs % 1_000_000L);
            sb.append('.').append(fraction, 0, digits);
        }
        return sb.toString();
    }
}
