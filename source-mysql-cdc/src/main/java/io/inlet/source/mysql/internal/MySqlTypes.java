package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.source.TimePrecisionMode;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.DecimalType;

import javax.annotation.Nullable;

import java.util.Locale;

/**
 * Maps MySQL (and MariaDB) column types, as {@code information_schema.COLUMNS} describes them, to
 * Flink types that hold every value the column can hold:
 *
 * <ul>
 *   <li>TINYINT(1) and BOOLEAN to BOOLEAN (or TINYINT, see {@code treat-tinyint1-as-boolean.enabled});
 *       unsigned integers to the next wider type, BIGINT UNSIGNED to DECIMAL(20, 0);
 *   <li>DECIMAL(p, s) to DECIMAL(p, s) up to Flink's 38 digits, wider ones (up to MySQL's 65) to
 *       STRING holding the exact plain-text value;
 *   <li>FLOAT, DOUBLE; CHAR(n), VARCHAR(n), the TEXT types, ENUM, SET and JSON to strings;
 *       BINARY(n), VARBINARY(n), the BLOB types to bytes; BIT(1) to BOOLEAN, BIT(n) to
 *       BINARY(ceil(n / 8)) big-endian, as MySQL returns it;
 *   <li>DATE; TIME(p) to TIME(p), BIGINT microseconds or STRING (see {@link TimePrecisionMode});
 *       DATETIME(p) to TIMESTAMP(p); TIMESTAMP(p), an instant, to TIMESTAMP_LTZ(p); YEAR to INT.
 * </ul>
 *
 * Spatial, UUID and INET types have no mapping: {@link #toFlink} returns null and the caller fails
 * naming the column, unless it is excluded.
 */
@Internal
public final class MySqlTypes {

    private MySqlTypes() {}

    /**
     * @param dataType {@code DATA_TYPE}, e.g. {@code int}
     * @param columnType {@code COLUMN_TYPE}, e.g. {@code int(10) unsigned}
     * @param timeMode how TIME columns are typed ({@code time.precision.mode})
     * @return the Flink type (nullable), or null when there is no mapping
     */
    @Nullable
    public static DataType toFlink(
            String dataType,
            String columnType,
            @Nullable Long charLength,
            @Nullable Long numericPrecision,
            @Nullable Long numericScale,
            @Nullable Long datetimePrecision,
            boolean tinyInt1IsBoolean,
            TimePrecisionMode timeMode) {
        String type = dataType.toLowerCase(Locale.ROOT);
        String full = columnType.toLowerCase(Locale.ROOT);
        boolean unsigned = full.contains("unsigned");
        int fractional = datetimePrecision == null ? 0 : datetimePrecision.intValue();
        switch (type) {
            case "tinyint":
                if (tinyInt1IsBoolean && !unsigned && full.startsWith("tinyint(1)")) {
                    return DataTypes.BOOLEAN();
                }
                return unsigned ? DataTypes.SMALLINT() : DataTypes.TINYINT();
            case "bool":
            case "boolean":
                return tinyInt1IsBoolean ? DataTypes.BOOLEAN() : DataTypes.TINYINT();
            case "smallint":
                return unsigned ? DataTypes.INT() : DataTypes.SMALLINT();
            case "mediumint":
                return DataTypes.INT();
            case "int":
            case "integer":
                return unsigned ? DataTypes.BIGINT() : DataTypes.INT();
            case "bigint":
                return unsigned ? DataTypes.DECIMAL(20, 0) : DataTypes.BIGINT();
            case "decimal":
            case "numeric":
            case "dec":
            case "fixed": {
                int p = numericPrecision == null ? 10 : numericPrecision.intValue();
                int s = numericScale == null ? 0 : numericScale.intValue();
                return p <= DecimalType.MAX_PRECISION ? DataTypes.DECIMAL(p, s) : DataTypes.STRING();
            }
            case "float":
                return DataTypes.FLOAT();
            case "double":
            case "double precision":
            case "real":
                return DataTypes.DOUBLE();
            case "bit": {
                int bits = numericPrecision == null ? 1 : numericPrecision.intValue();
                return bits <= 1 ? DataTypes.BOOLEAN() : DataTypes.BINARY((bits + 7) / 8);
            }
            case "char":
                return charLength == null || charLength < 1
                        ? DataTypes.STRING()
                        : DataTypes.CHAR(charLength.intValue());
            case "varchar":
                return charLength == null || charLength < 1
                        ? DataTypes.STRING()
                        : DataTypes.VARCHAR(charLength.intValue());
            case "tinytext":
            case "text":
            case "mediumtext":
            case "longtext":
            case "enum":
            case "set":
            case "json":
                return DataTypes.STRING();
            case "binary":
                return charLength == null || charLength < 1
                        ? DataTypes.BYTES()
                        : DataTypes.BINARY(charLength.intValue());
            case "varbinary":
                return charLength == null || charLength < 1
                        ? DataTypes.BYTES()
                        : DataTypes.VARBINARY(charLength.intValue());
            case "tinyblob":
            case "blob":
            case "mediumblob":
            case "longblob":
                return DataTypes.BYTES();
            case "date":
                return DataTypes.DATE();
            case "time":
                return timeMode.flinkType(fractional);
            case "datetime":
                return DataTypes.TIMESTAMP(fractional);
            case "timestamp":
                return DataTypes.TIMESTAMP_LTZ(fractional);
            case "year":
                return DataTypes.INT();
            default:
                return null;
        }
    }
}
