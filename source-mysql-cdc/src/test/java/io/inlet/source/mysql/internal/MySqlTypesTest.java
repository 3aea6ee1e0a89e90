package io.inlet.source.mysql.internal;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.junit.jupiter.api.Test;

import static io.inlet.core.source.TimePrecisionMode.TIME;
import static org.assertj.core.api.Assertions.assertThat;

class MySqlTypesTest {

    private static DataType map(String dataType, String columnType) {
        return MySqlTypes.toFlink(dataType, columnType, 10L, 10L, 2L, 3L, true, TIME);
    }

    @Test
    void integersKeepEveryValueTheirColumnHolds() {
        assertThat(map("tinyint", "tinyint(1)")).isEqualTo(DataTypes.BOOLEAN());
        assertThat(MySqlTypes.toFlink("tinyint", "tinyint(1)", null, 3L, 0L, null, false, TIME))
                .isEqualTo(DataTypes.TINYINT());
        assertThat(map("tinyint", "tinyint(1) unsigned")).isEqualTo(DataTypes.SMALLINT());
        assertThat(map("tinyint", "tinyint(4)")).isEqualTo(DataTypes.TINYINT());
        assertThat(map("tinyint", "tinyint(3) unsigned")).isEqualTo(DataTypes.SMALLINT());
        assertThat(map("smallint", "smallint(5) unsigned")).isEqualTo(DataTypes.INT());
        assertThat(map("mediumint", "mediumint(8) unsigned")).isEqualTo(DataTypes.INT());
        assertThat(map("int", "int(11)")).isEqualTo(DataTypes.INT());
        assertThat(map("int", "int(10) unsigned")).isEqualTo(DataTypes.BIGINT());
        assertThat(map("bigint", "bigint(20)")).isEqualTo(DataTypes.BIGINT());
        assertThat(map("bigint", "bigint(20) unsigned")).isEqualTo(DataTypes.DECIMAL(20, 0));
        assertThat(map("year", "year(4)")).isEqualTo(DataTypes.INT());
    }

    @Test
    void decimalsUpTo38DigitsStayDecimalsWiderOnesExactText() {
        assertThat(MySqlTypes.toFlink("decimal", "decimal(38,10)", null, 38L, 10L, null, true, TIME))
                .isEqualTo(DataTypes.DECIMAL(38, 10));
        assertThat(MySqlTypes.toFlink("decimal", "decimal(65,30)", null, 65L, 30L, null, true, TIME))
                .isEqualTo(DataTypes.STRING());
    }

    @Test
    void temporalTypesKeepTheirPrecisionAndTimestampIsAnInstant() {
        assertThat(MySqlTypes.toFlink("datetime", "datetime(6)", null, null, null, 6L, true, TIME))
                .isEqualTo(DataTypes.TIMESTAMP(6));
        assertThat(MySqlTypes.toFlink("timestamp", "timestamp(3)", null, null, null, 3L, true, TIME))
                .isEqualTo(DataTypes.TIMESTAMP_LTZ(3));
        assertThat(MySqlTypes.toFlink("time", "time", null, null, null, 0L, true, TIME))
                .isEqualTo(DataTypes.TIME(0));
        assertThat(MySqlTypes.toFlink("date", "date", null, null, null, null, true, TIME))
                .isEqualTo(DataTypes.DATE());
    }

    @Test
    void stringsBytesAndBits() {
        assertThat(MySqlTypes.toFlink("varchar", "varchar(255)", 255L, null, null, null, true, TIME))
                .isEqualTo(DataTypes.VARCHAR(255));
        assertThat(MySqlTypes.toFlink("char", "char(0)", 0L, null, null, null, true, TIME))
                .isEqualTo(DataTypes.STRING());
        assertThat(map("json", "json")).isEqualTo(DataTypes.STRING());
        assertThat(map("enum", "enum('a','b')")).isEqualTo(DataTypes.STRING());
        assertThat(map("set", "set('a','b')")).isEqualTo(DataTypes.STRING());
        assertThat(MySqlTypes.toFlink("binary", "binary(16)", 16L, null, null, null, true, TIME))
                .isEqualTo(DataTypes.BINARY(16));
        assertThat(map("longblob", "longblob")).isEqualTo(DataTypes.BYTES());
        assertThat(MySqlTypes.toFlink("bit", "bit(1)", null, 1L, null, null, true, TIME))
                .isEqualTo(DataTypes.BOOLEAN());
        assertThat(MySqlTypes.toFlink("bit", "bit(12)", null, 12L, null, null, true, TIME))
                .isEqualTo(DataTypes.BINARY(2));
    }

    @Test
    void typesWithoutMappingGiveNull() {
        assertThat(map("point", "point")).isNull();
        assertThat(map("geometry", "geometry")).isNull();
        assertThat(map("uuid", "uuid")).isNull();
    }
}
