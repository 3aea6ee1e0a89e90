package io.inlet.it;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.source.kafka.internal.DebeziumRecordDecoder;
import io.inlet.source.kafka.internal.KafkaRawRecord;
import io.inlet.source.kafka.internal.RegistrySettings;
import io.inlet.source.kafka.internal.SchemaRegistryClient;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka source's decoder under {@code evolve}, against a real registry, with the records of two
 * partitions interleaved as one reader meets them: a new writer schema makes the next version once; a
 * record of an older schema written before that change (the other partition, behind) is read into the
 * version now by name and makes no change; a schema that returns to an earlier shape (the registry gives
 * it its earlier id) is followed when its record comes after the change in the database log.
 */
@ExtendWith(SchemaRegistryExtension.class)
class KafkaWriterSchemaVersionsITCase {

    private static Schema envelope(String rowFields) {
        return new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Envelope\",\"namespace\":\"dbz.shop.t\",\"fields\":["
                        + "{\"name\":\"before\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Value\","
                        + "\"fields\":[" + rowFields + "]}],\"default\":null},"
                        + "{\"name\":\"after\",\"type\":[\"null\",\"Value\"],\"default\":null},"
                        + "{\"name\":\"source\",\"type\":{\"type\":\"record\",\"name\":\"Source\","
                        + "\"namespace\":\"io.debezium.connector.mysql\",\"fields\":["
                        + "{\"name\":\"ts_ms\",\"type\":\"long\"},{\"name\":\"file\",\"type\":\"string\"},"
                        + "{\"name\":\"pos\",\"type\":\"long\"},{\"name\":\"row\",\"type\":\"int\"}]}},"
                        + "{\"name\":\"op\",\"type\":\"string\"},"
                        + "{\"name\":\"ts_ms\",\"type\":[\"null\",\"long\"],\"default\":null}]}");
    }

    private static final String ID = "{\"name\":\"id\",\"type\":\"long\"}";
    private static final String NAME = "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null}";
    private static final String NOTE = "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}";

    /** A Debezium insert in the Confluent wire format, at binlog mysql-bin.000003:pos. */
    private static KafkaRawRecord insert(
            String topic, int partition, long offset, int schemaId, Schema schema, long pos, Map<String, Object> row)
            throws Exception {
        Schema value = schema.getField("after").schema().getTypes().get(1);
        GenericRecord after = new GenericData.Record(value);
        row.forEach(after::put);
        GenericRecord source = new GenericData.Record(schema.getField("source").schema());
        source.put("ts_ms", 1_000L);
        source.put("file", "mysql-bin.000003");
        source.put("pos", pos);
        source.put("row", 0);
        GenericRecord envelope = new GenericData.Record(schema);
        envelope.put("after", after);
        envelope.put("source", source);
        envelope.put("op", "c");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(0);
        bytes.write(
                new byte[] {(byte) (schemaId >>> 24), (byte) (schemaId >>> 16), (byte) (schemaId >>> 8), (byte) schemaId
                });
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(schema).write(envelope, encoder);
        encoder.flush();
        return new KafkaRawRecord(topic, partition, offset, 0L, null, bytes.toByteArray(), null);
    }

    @Test
    void versionsOnlyMoveForwardAcrossInterleavedPartitions(SchemaRegistry registry) throws Exception {
        String topic = TestNames.unique("dbz") + ".shop.t";
        SchemaRegistryClient client = new SchemaRegistryClient(
                new RegistrySettings(registry.ccompatUrl(), null, null, null, null, null, 3, 10_000));
        Schema s1 = envelope(ID + "," + NAME);
        Schema s2 = envelope(ID + "," + NAME + "," + NOTE);
        Schema s3 = envelope(ID + "," + NOTE);
        int id1 = client.register(topic + "-value", s1);
        int id2 = client.register(topic + "-value", s2);
        int id3 = client.register(topic + "-value", s3);
        TableDescriptor built = TableDescriptor.builder(TableId.of("shop", "t"))
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .primaryKey("id")
                .build();
        DebeziumRecordDecoder decoder = new DebeziumRecordDecoder(
                client,
                Map.of(topic, built),
                new DebeziumRecordDecoder.Settings(
                        Map.of(topic + ":0", 0L, topic + ":1", 0L),
                        null,
                        TimePrecisionMode.TIME,
                        SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE)));
        List<ChangeEvent> out = new ArrayList<>();
        Collector<ChangeEvent> collector = new Collector<>() {
            @Override
            public void collect(ChangeEvent e) {
                out.add(e);
            }

            @Override
            public void close() {}
        };

        // Partition 0 meets the ADD COLUMN first (its record at 200), partition 1 still has a record from before it.
        decoder.decode(insert(topic, 0, 0, id2, s2, 200, Map.of("id", 1L, "name", "a", "note", "n1")), collector);
        decoder.decode(insert(topic, 1, 0, id1, s1, 150, Map.of("id", 2L, "name", "b")), collector);
        decoder.decode(insert(topic, 1, 1, id2, s2, 250, Map.of("id", 3L, "name", "c", "note", "n3")), collector);
        // DROP COLUMN name (at 300); partition 1 behind again with a record of the schema before it.
        decoder.decode(insert(topic, 0, 1, id3, s3, 300, Map.of("id", 4L, "note", "n4")), collector);
        decoder.decode(insert(topic, 1, 2, id2, s2, 260, Map.of("id", 5L, "name", "e", "note", "n5")), collector);
        // ADD name back, DROP note: the registry gives that shape its first id again; the record is after 300.
        assertThat(client.register(topic + "-value", s1)).isEqualTo(id1);
        decoder.decode(insert(topic, 0, 2, id1, s1, 400, Map.of("id", 6L, "name", "f")), collector);

        List<String> seen = new ArrayList<>();
        for (ChangeEvent e : out) {
            seen.add(
                    e.isSchemaChange()
                            ? "change v" + e.schemaChange().previousVersion() + "->v" + e.schemaVersion() + " "
                                    + e.schemaChange().changes() + " at " + e.position()
                            : "v" + e.schemaVersion() + " " + e.row().getLong(0) + " "
                                    + e.rowType().map(t -> t.getFieldNames()).orElse(List.of()));
        }
        assertThat(seen)
                .containsExactly(
                        "change v1->v2 ["
                                + ColumnChange.added("note", DataTypes.STRING().getLogicalType(), "name") + "] at "
                                + SourcePosition.binlog("mysql-bin.000003", 200, 0),
                        "v2 1 [id, name, note]",
                        "v2 2 [id, name, note]",
                        "v2 3 [id, name, note]",
                        "change v2->v3 [" + ColumnChange.dropped("name") + "] at "
                                + SourcePosition.binlog("mysql-bin.000003", 300, 0),
                        "v3 4 [id, note]",
                        "v3 5 [id, note]",
                        "change v3->v4 [" + ColumnChange.dropped("note") + ", "
                                + ColumnChange.added("name", DataTypes.STRING().getLogicalType(), "id") + "] at "
                                + SourcePosition.binlog("mysql-bin.000003", 400, 0),
                        "v4 6 [id, name]");
        // The record from behind, read into the version now: the column it lacks is NULL, no value shifted.
        ChangeEvent behind = out.get(2);
        assertThat(behind.kind()).isEqualTo(RowKind.INSERT);
        assertThat(behind.row().getString(1).toString()).isEqualTo("b");
        assertThat(behind.row().isNullAt(2)).isTrue();
        assertThat(out.get(6).row().getString(1).toString())
                .as("note of the record from behind")
                .isEqualTo("n5");
        assertThat(id3).isGreaterThan(id2);
    }
}
