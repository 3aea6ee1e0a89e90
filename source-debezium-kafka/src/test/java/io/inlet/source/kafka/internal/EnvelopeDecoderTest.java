package io.inlet.source.kafka.internal;

import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvelopeDecoderTest {

    private static final Schema ENVELOPE = DebeziumAvro.envelope(DebeziumAvro.ROW_FIELDS);
    private static final Schema ROW = DebeziumAvro.rowSchema(ENVELOPE);
    private static final TableDescriptor TABLE = EnvelopeSchemas.describe(
            TableId.of("inventory", "orders"),
            "dbserver1.inventory.orders",
            ENVELOPE,
            new Schema.Parser()
                    .parse("{\"type\":\"record\",\"name\":\"Key\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}"));

    private static GenericRecord row(long id) {
        GenericRecord r = new GenericData.Record(ROW);
        r.put("id", id);
        r.put("tiny", -5);
        r.put("small", 300);
        r.put("name", "anna ✓");
        r.put("amount", DebeziumAvro.decimal("-1250"));
        r.put("day", (int) LocalDate.of(2024, 2, 29).toEpochDay());
        r.put("tod", 45_296_789_000L);
        r.put(
                "created",
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000)
                                        .toInstant(ZoneOffset.UTC)
                                        .toEpochMilli()
                                * 1000
                        + 999);
        r.put("updated", "2024-02-29T12:00:00.654321Z");
        r.put("flags", ByteBuffer.wrap(new byte[] {(byte) 0xAA, 0x0A}));
        r.put("doc", "{\"k\":1}");
        GenericRecord price =
                new GenericData.Record(ROW.getField("price").schema().getTypes().get(1));
        price.put("scale", 3);
        price.put("value", DebeziumAvro.decimal("123456"));
        r.put("price", price);
        return r;
    }

    private static EnvelopeDecoder.Envelope decode(Schema writer, TableDescriptor table, GenericRecord envelope)
            throws Exception {
        EnvelopeDecoder.Envelope out = new EnvelopeDecoder.Envelope();
        new EnvelopeDecoder(writer, table)
                .decode(DecoderFactory.get().binaryDecoder(DebeziumAvro.encode(envelope), null), out);
        return out;
    }

    @Test
    void derivesTheTableFromTheEnvelopeAndKeySchemas() {
        assertThat(TABLE.toRowType().asSummaryString())
                .isEqualTo("ROW<`id` BIGINT NOT NULL, `tiny` TINYINT, `small` SMALLINT, `name` STRING,"
                        + " `amount` DECIMAL(10, 2), `day` DATE,"
                        + " `tod` TIME(6), `created` TIMESTAMP(6), `updated` TIMESTAMP_LTZ(6)," + " `flags`"
                        + " BINARY(2), `doc` STRING,"
                        + " `price` STRING> NOT NULL");
        assertThat(TABLE.primaryKey()).containsExactly("id");
        assertThat(TABLE.column("name").get().comment()).hasValue("who");
    }

    @Test
    void decodesEverySemanticTypeStraightIntoTheRow() throws Exception {
        EnvelopeDecoder.Envelope e =
                decode(ENVELOPE, TABLE, DebeziumAvro.envelope(ENVELOPE, "u", row(1), row(1), 1_700_000_000_000L));
        assertThat(e.op).isEqualTo('u');
        assertThat(e.sourceTimestamp).isEqualTo(1_700_000_000_000L);
        GenericRowData r = e.after;
        assertThat(r.getLong(0)).isEqualTo(1L);
        assertThat(r.getByte(1)).isEqualTo((byte) -5);
        assertThat(r.getShort(2)).isEqualTo((short) 300);
        assertThat(r.getString(3)).isEqualTo(StringData.fromString("anna ✓"));
        assertThat(r.getDecimal(4, 10, 2)).isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("-12.50"), 10, 2));
        assertThat(r.getInt(5)).isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
        assertThat(r.getInt(6)).isEqualTo(45_296_789);
        assertThat(r.getTimestamp(7, 6))
                .isEqualTo(TimestampData.fromLocalDateTime(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000)));
        assertThat(r.getTimestamp(8, 6))
                .isEqualTo(TimestampData.fromInstant(Instant.parse("2024-02-29T12:00:00.654321Z")));
        assertThat(r.getBinary(9)).containsExactly(0x0A, 0xAA);
        assertThat(r.getString(10)).isEqualTo(StringData.fromString("{\"k\":1}"));
        assertThat(r.getString(11)).isEqualTo(StringData.fromString("123.456"));
        assertThat(e.before).isNotNull();
    }

    @Test
    void nullsAndMissingImages() throws Exception {
        GenericRecord empty = new GenericData.Record(ROW);
        empty.put("id", 2L);
        EnvelopeDecoder.Envelope e = decode(ENVELOPE, TABLE, DebeziumAvro.envelope(ENVELOPE, "c", null, empty, 5L));
        assertThat(e.before).isNull();
        assertThat(e.after.getLong(0)).isEqualTo(2L);
        for (int i = 1; i < 12; i++) {
            assertThat(e.after.isNullAt(i)).isTrue();
        }
    }

    @Test
    void aWriterSchemaWithAnAddedColumnIsReadAgainstTheTablesSchema() throws Exception {
        Schema newer = DebeziumAvro.envelope(DebeziumAvro.ROW_FIELDS.replace(
                "{\"name\":\"tiny\"",
                "{\"name\":\"added\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"tiny\""));
        GenericRecord r = new GenericData.Record(DebeziumAvro.rowSchema(newer));
        r.put("id", 3L);
        r.put("added", "new column");
        r.put("name", "bob");
        EnvelopeDecoder decoder = new EnvelopeDecoder(newer, TABLE);
        assertThat(decoder.addedColumns()).containsExactly("added");
        EnvelopeDecoder.Envelope e = decode(newer, TABLE, DebeziumAvro.envelope(newer, "c", null, r, 5L));
        assertThat(e.after.getLong(0)).isEqualTo(3L);
        assertThat(e.after.getString(3)).isEqualTo(StringData.fromString("bob"));
    }

    @Test
    void aWriterSchemaWithoutANotNullColumnOrWithAnotherTypeIsRefused() {
        TableDescriptor strict = TABLE.toBuilder()
                .column("required_extra", DataTypes.INT().notNull())
                .build();
        assertThatThrownBy(() -> new EnvelopeDecoder(ENVELOPE, strict))
                .hasMessageContaining("lacks the NOT NULL column 'required_extra'");
        TableDescriptor other = TABLE.toBuilder().columns(TABLE.columns()).build();
        TableDescriptor retyped = TableDescriptor.builder(other.tableId())
                .column("id", DataTypes.BIGINT())
                .column("name", DataTypes.INT())
                .primaryKey("id")
                .build();
        assertThatThrownBy(() -> new EnvelopeDecoder(ENVELOPE, retyped))
                .hasMessageContaining("column 'name': a STRING value cannot be read as INT");
    }

    @Test
    void aRecordFromBeforeAColumnWasAddedWithADefaultHasTheDefault() throws Exception {
        // The table now has 'status' NOT NULL DEFAULT 'new' and 'qty' NULL (no default); the record's writer schema
        // is from before they were added (a partition read behind the others).
        TableDescriptor now = TABLE.toBuilder()
                .column("status", DataTypes.VARCHAR(10).notNull())
                .column("qty", DataTypes.INT())
                .build();
        assertThatThrownBy(() -> new EnvelopeDecoder(ENVELOPE, now))
                .hasMessageContaining("lacks the NOT NULL column 'status'");
        EnvelopeDecoder decoder =
                new EnvelopeDecoder(ENVELOPE, now, null, TimePrecisionMode.TIME, Map.of("status", "new"));
        EnvelopeDecoder.Envelope e = new EnvelopeDecoder.Envelope();
        decoder.decode(
                DecoderFactory.get()
                        .binaryDecoder(
                                DebeziumAvro.encode(DebeziumAvro.envelope(ENVELOPE, "u", row(1), row(1), 5L)), null),
                e);
        int status = now.indexOf("status");
        assertThat(e.after.getString(status)).isEqualTo(StringData.fromString("new"));
        assertThat(e.before.getString(status)).isEqualTo(StringData.fromString("new"));
        assertThat(e.after.isNullAt(now.indexOf("qty"))).isTrue();
        assertThat(e.after.getLong(0)).isEqualTo(1L);
    }

    @Test
    void aTruncatedBodyFails() throws Exception {
        byte[] bytes = DebeziumAvro.encode(DebeziumAvro.envelope(ENVELOPE, "c", null, row(1), 5L));
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length / 2);
        assertThatThrownBy(() -> new EnvelopeDecoder(ENVELOPE, TABLE)
                        .decode(DecoderFactory.get().binaryDecoder(cut, null), new EnvelopeDecoder.Envelope()))
                .isInstanceOf(java.io.IOException.class);
    }

    @Test
    void refusesNonEnvelopes() {
        Schema plain = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");
        assertThatThrownBy(() -> new EnvelopeDecoder(plain, TABLE)).hasMessageContaining("is no Debezium envelope");
    }
}
