package io.inlet.sink.iceberg.internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;

class IcebergRowConverterTest {

    @Test
    void widensToTheTablesTypesKeepingKindAndNulls() {
        RowType from = RowType.of(new LogicalType[] {
            new TinyIntType(),
            new SmallIntType(),
            new IntType(),
            new FloatType(),
            new DecimalType(10, 2),
            new TimestampType(3)
        });
        RowType to = RowType.of(new LogicalType[] {
            new IntType(),
            new IntType(),
            new BigIntType(),
            new DoubleType(),
            new DecimalType(20, 2),
            new TimestampType(6)
        });
        IcebergRowConverter c = new IcebergRowConverter(from, to);
        assertThat(c.isIdentity()).isFalse();
        TimestampData ts = TimestampData.fromEpochMillis(-1);
        RowData out = c.convert(GenericRowData.ofKind(
                RowKind.UPDATE_BEFORE,
                (byte) -5,
                (short) -300,
                7,
                1.5f,
                DecimalData.fromBigDecimal(new BigDecimal("-1.25"), 10, 2),
                ts));
        assertThat(out.getRowKind()).isEqualTo(RowKind.UPDATE_BEFORE);
        assertThat(out.getInt(0)).isEqualTo(-5);
        assertThat(out.getInt(1)).isEqualTo(-300);
        assertThat(out.getLong(2)).isEqualTo(7L);
        assertThat(out.getDouble(3)).isEqualTo(1.5d);
        assertThat(out.getDecimal(4, 20, 2).toBigDecimal()).isEqualByComparingTo("-1.25");
        assertThat(out.getTimestamp(5, 6)).isEqualTo(ts);
        assertThat(c.convert(new GenericRowData(6)).isNullAt(0)).isTrue();
    }

    @Test
    void passesRowsThatAlreadyFit() {
        RowType t = RowType.of(new LogicalType[] {new IntType(), new TimestampType(3)});
        RowType iceberg = RowType.of(new LogicalType[] {new IntType(), new TimestampType(6)});
        IcebergRowConverter c = new IcebergRowConverter(t, iceberg);
        assertThat(c.isIdentity()).isTrue();
        GenericRowData row = GenericRowData.of(1, TimestampData.fromEpochMillis(5));
        assertThat(c.convert(row)).isSameAs(row);
    }
}
