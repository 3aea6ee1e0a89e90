package io.inlet.core.table;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ColumnDefaultsTest {

    private static LogicalType t(org.apache.flink.table.types.DataType type) {
        return type.getLogicalType();
    }

    @Test
    void constantsBecomeTheInternalValuesOfTheirType() {
        assertThat(ColumnDefaults.parse("new", t(DataTypes.VARCHAR(20)))).isEqualTo(StringData.fromString("new"));
        // A string default keeps its spaces: they are part of the value.
        assertThat(ColumnDefaults.parse(" a ", t(DataTypes.VARCHAR(20)))).isEqualTo(StringData.fromString(" a "));
        assertThat(ColumnDefaults.parse("1", t(DataTypes.BOOLEAN()))).isEqualTo(true);
        assertThat(ColumnDefaults.parse("0", t(DataTypes.BOOLEAN()))).isEqualTo(false);
        assertThat(ColumnDefaults.parse("-128", t(DataTypes.TINYINT()))).isEqualTo((byte) -128);
        assertThat(ColumnDefaults.parse("7", t(DataTypes.SMALLINT()))).isEqualTo((short) 7);
        assertThat(ColumnDefaults.parse("2147483647", t(DataTypes.INT()))).isEqualTo(Integer.MAX_VALUE);
        assertThat(ColumnDefaults.parse("-9223372036854775808", t(DataTypes.BIGINT())))
                .isEqualTo(Long.MIN_VALUE);
        assertThat(ColumnDefaults.parse("1.5", t(DataTypes.DOUBLE()))).isEqualTo(1.5d);
        assertThat(ColumnDefaults.parse("1.5", t(DataTypes.DECIMAL(10, 2))))
                .isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("1.50"), 10, 2));
        assertThat(ColumnDefaults.parse("2024-02-29", t(DataTypes.DATE())))
                .isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
        assertThat(ColumnDefaults.parse("2024-02-29 23:59:59.5", t(DataTypes.TIMESTAMP(3))))
                .isEqualTo(TimestampData.fromLocalDateTime(LocalDateTime.of(2024, 2, 29, 23, 59, 59, 500_000_000)));
        assertThat(ColumnDefaults.parse("01:02:03", t(DataTypes.TIME(0)))).isEqualTo(3_723_000);
    }

    @Test
    void valuesAreTheOnesMySqlStores() {
        // Fractional seconds rounded to the column's digits: DATETIME(0) DEFAULT '... 23:59:59.7' is the next second.
        assertThat(ColumnDefaults.parse("2024-02-29 23:59:59.7", t(DataTypes.TIMESTAMP(0))))
                .isEqualTo(TimestampData.fromLocalDateTime(LocalDateTime.of(2024, 3, 1, 0, 0, 0)));
        assertThat(ColumnDefaults.parse("2024-02-29 10:00:00.123456", t(DataTypes.TIMESTAMP(3))))
                .isEqualTo(TimestampData.fromLocalDateTime(LocalDateTime.of(2024, 2, 29, 10, 0, 0, 123_000_000)));
        assertThat(ColumnDefaults.parse("01:02:03.5", t(DataTypes.TIME(0)))).isEqualTo(3_724_000);
        // A CHAR value has no trailing spaces when MySQL reads it; a VARCHAR keeps them.
        assertThat(ColumnDefaults.parse("ab  ", t(DataTypes.CHAR(5)))).isEqualTo(StringData.fromString("ab"));
        assertThat(ColumnDefaults.parse("ab  ", t(DataTypes.VARCHAR(5)))).isEqualTo(StringData.fromString("ab  "));
        assertThatThrownBy(() -> ColumnDefaults.parse("1e400", t(DataTypes.DOUBLE())))
                .hasMessageContaining("not a finite DOUBLE");
        assertThatThrownBy(() -> ColumnDefaults.parse("1e40", t(DataTypes.FLOAT())))
                .hasMessageContaining("not a finite FLOAT");
    }

    @Test
    void whatIsNotAConstantOfTheTypeIsRefusedWithTheValueNamed() {
        assertThatThrownBy(() -> ColumnDefaults.parse("CURRENT_TIMESTAMP", t(DataTypes.TIMESTAMP(0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'CURRENT_TIMESTAMP'")
                .hasMessageContaining("TIMESTAMP(0)");
        assertThatThrownBy(() -> ColumnDefaults.parse("2024-01-01 00:00:00", t(DataTypes.TIMESTAMP_LTZ(0))))
                .hasMessageContaining("Inlet reads defaults of");
        assertThatThrownBy(() -> ColumnDefaults.parse("128", t(DataTypes.TINYINT())))
                .hasMessageContaining("not a constant");
        assertThatThrownBy(() -> ColumnDefaults.parse("123456789.1", t(DataTypes.DECIMAL(5, 1))))
                .hasMessageContaining("more digits");
        assertThatThrownBy(() -> ColumnDefaults.parse("abcdef", t(DataTypes.VARCHAR(3))))
                .hasMessageContaining("longer");
        assertThatThrownBy(() -> ColumnDefaults.parse("yes", t(DataTypes.BOOLEAN())))
                .hasMessageContaining("not a boolean");
        assertThatThrownBy(() -> ColumnDefaults.parse("x", t(DataTypes.BYTES())))
                .hasMessageContaining("BYTES");
    }
}
