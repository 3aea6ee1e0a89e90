package io.inlet.source.mysql.internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DebeziumFieldConvertersTest {

    private static Schema named(Schema.Type type, String name) {
        return new SchemaBuilder(type).name(name).build();
    }

    @Test
    void bitsBecomeBigEndianBytesOfTheFullWidth() {
        DebeziumFieldConverters.FieldConverter c =
                DebeziumFieldConverters.create(new BinaryType(2), named(Schema.Type.BYTES, "io.debezium.data.Bits"), 6);
        // b'101010101010' = 0x0AAA; Debezium: little-endian {0xAA, 0x0A}
        assertThat((byte[]) c.convert(new byte[] {(byte) 0xAA, 0x0A})).containsExactly(0x0A, 0xAA);
        // b'1' in BIT(12): Debezium drops the zero high byte
        assertThat((byte[]) c.convert(ByteBuffer.wrap(new byte[] {1}))).containsExactly(0, 1);
    }

    @Test
    void timeValuesFlinkCannotHoldAreRefusedNotTruncated() {
        DebeziumFieldConverters.FieldConverter c = DebeziumFieldConverters.create(
                new TimeType(6), named(Schema.Type.INT64, "io.debezium.time.MicroTime"), 6);
        assertThat(c.convert(45_296_789_000L)).isEqualTo(45_296_789); // 12:34:56.789
        assertThatThrownBy(() -> c.convert(45_296_789_123L))
                .hasMessageContaining("12:34:56.789123 has digits below the millisecond")
                .hasMessageContaining("'time.precision.mode' = 'microseconds'");
        assertThatThrownBy(() -> c.convert(-3_600_000_000L))
                .hasMessageContaining("-01:00:00.000000 lies outside one day");
        assertThatThrownBy(() -> c.convert(90_000_000_000L))
                .hasMessageContaining("25:00:00.000000 lies outside one day");
    }

    @Test
    void integersThatDoNotFitTheirColumnAreRefusedNotTruncated() {
        DebeziumFieldConverters.FieldConverter c = DebeziumFieldConverters.create(
                new org.apache.flink.table.types.logical.IntType(), Schema.INT64_SCHEMA, 6);
        assertThat(c.convert(7L)).isEqualTo(7);
        // a column widened to BIGINT under a pipeline built for INT: no silent truncation
        assertThatThrownBy(() -> c.convert(3_000_000_000L))
                .hasMessageContaining("the value 3000000000 does not fit INT");
    }

    @Test
    void tinyint1ValuesOtherThanZeroOrOneAreRefused() {
        DebeziumFieldConverters.FieldConverter c =
                DebeziumFieldConverters.create(new BooleanType(), Schema.INT16_SCHEMA, 6);
        assertThat(c.convert((short) 1)).isEqualTo(true);
        assertThat(c.convert((short) 0)).isEqualTo(false);
        assertThatThrownBy(() -> c.convert((short) 2))
                .hasMessageContaining("the value 2 is neither 0 nor 1")
                .hasMessageContaining("'treat-tinyint1-as-boolean.enabled' = 'false'");
    }

    @Test
    void decimalsKeepTheirScaleAndRefuseOverflow() {
        DebeziumFieldConverters.FieldConverter c =
                DebeziumFieldConverters.create(new DecimalType(20, 0), Decimal.schema(0), 6);
        assertThat(c.convert(new BigDecimal("18446744073709551615")))
                .isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("18446744073709551615"), 20, 0));
        DebeziumFieldConverters.FieldConverter narrow =
                DebeziumFieldConverters.create(new DecimalType(4, 2), Decimal.schema(2), 6);
        assertThatThrownBy(() -> narrow.convert(new BigDecimal("123.45")))
                .hasMessageContaining("123.45 does not fit DECIMAL(4, 2)");
        DebeziumFieldConverters.FieldConverter wide =
                DebeziumFieldConverters.create(new VarCharType(VarCharType.MAX_LENGTH), Decimal.schema(30), 6);
        assertThat(wide.convert(new BigDecimal("-1.000000000000000000000000000001")))
                .isEqualTo(StringData.fromString("-1.000000000000000000000000000001"));
    }

    @Test
    void timestampsBeforeTheEpochAndInstants() {
        DebeziumFieldConverters.FieldConverter micro = DebeziumFieldConverters.create(
                new TimestampType(6), named(Schema.Type.INT64, "io.debezium.time.MicroTimestamp"), 6);
        assertThat(micro.convert(-1L)).isEqualTo(TimestampData.fromEpochMillis(-1, 999_000));
        DebeziumFieldConverters.FieldConverter zoned = DebeziumFieldConverters.create(
                new LocalZonedTimestampType(6), named(Schema.Type.STRING, "io.debezium.time.ZonedTimestamp"), 6);
        assertThat(zoned.convert("2024-02-29T12:00:00.654321Z"))
                .isEqualTo(TimestampData.fromInstant(Instant.parse("2024-02-29T12:00:00.654321Z")));
    }
}
