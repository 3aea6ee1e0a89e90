package io.inlet.source.kafka.internal;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Debezium-shaped Avro for unit tests: the schema as Kafka Connect's Avro converter writes
 * Debezium's MySQL envelopes (semantic types in connect.name), encoded with Apache Avro's own
 * writer.
 */
final class DebeziumAvro {

    private DebeziumAvro() {}

    static final String ROW_FIELDS = "{\"name\":\"id\",\"type\":\"long\"},"
            + "{\"name\":\"tiny\",\"type\":[\"null\",{\"type\":\"int\",\"connect.type\":\"int8\"}],\"default\":null},"
            + "{\"name\":\"small\",\"type\":[\"null\",{\"type\":\"int\",\"connect.type\":\"int16\"}],\"default\":null},"
            + "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"who\"},"
            + "{\"name\":\"amount\",\"type\":[\"null\",{\"type\":\"bytes\",\"scale\":2,\"precision\":10,"
            + "\"connect.version\":1,"
            + "\"connect.parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"},"
            + "\"connect.name\":\"org.apache.kafka.connect.data.Decimal\",\"logicalType\":\"decimal\"}],"
            + "\"default\":null},"
            + "{\"name\":\"day\",\"type\":[\"null\",{\"type\":\"int\",\"connect.version\":1,"
            + "\"connect.name\":\"io.debezium.time.Date\"}],\"default\":null},"
            + "{\"name\":\"tod\",\"type\":[\"null\",{\"type\":\"long\",\"connect.version\":1,"
            + "\"connect.name\":\"io.debezium.time.MicroTime\"}],\"default\":null},"
            + "{\"name\":\"created\",\"type\":[\"null\",{\"type\":\"long\",\"connect.version\":1,"
            + "\"connect.name\":\"io.debezium.time.MicroTimestamp\"}],\"default\":null},"
            + "{\"name\":\"updated\",\"type\":[\"null\",{\"type\":\"string\",\"connect.version\":1,"
            + "\"connect.name\":\"io.debezium.time.ZonedTimestamp\"}],\"default\":null},"
            + "{\"name\":\"flags\",\"type\":[\"null\",{\"type\":\"bytes\",\"connect.version\":1,"
            + "\"connect.parameters\":{\"length\":\"12\"},\"connect.name\":\"io.debezium.data.Bits\"}],"
            + "\"default\":null},"
            + "{\"name\":\"doc\",\"type\":[\"null\",{\"type\":\"string\",\"connect.version\":1,"
            + "\"connect.name\":\"io.debezium.data.Json\"}],\"default\":null},"
            + "{\"name\":\"price\",\"type\":[\"null\",{\"type\":\"record\","
            + "\"name\":\"VariableScaleDecimal\",\"namespace\":\"io.debezium.data\","
            + "\"fields\":[{\"name\":\"scale\",\"type\":\"int\"},{\"name\":\"value\",\"type\":\"bytes\"}],"
            + "\"connect.doc\":\"Variable scaled" + " decimal\",\"connect.version\":1,"
            + "\"connect.name\":\"io.debezium.data.VariableScaleDecimal\"}],\"default\":null}";

    static Schema envelope(String rowFields) {
        return new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Envelope\","
                        + "\"namespace\":\"dbserver1.inventory.orders\",\"fields\":["
                        + "{\"name\":\"before\",\"type\":[\"null\",{\"type\":\"record\","
                        + "\"name\":\"Value\",\"fields\":["
                        + rowFields + "]}],\"default\":null},"
                        + "{\"name\":\"after\",\"type\":[\"null\",\"Value\"],\"default\":null},"
                        + "{\"name\":\"source\",\"type\":{\"type\":\"record\",\"name\":\"Source\","
                        + "\"namespace\":\"io.debezium.connector.mysql\",\"fields\":["
                        + "{\"name\":\"version\",\"type\":\"string\"},{\"name\":\"ts_ms\",\"type\":\"long\"},"
                        + "{\"name\":\"snapshot\",\"type\":[{\"type\":\"string\","
                        + "\"connect.default\":\"false\"},\"null\"],\"default\":\"false\"},"
                        + "{\"name\":\"db\",\"type\":\"string\"},{\"name\":\"table\","
                        + "\"type\":[\"null\",\"string\"],\"default\":null},"
                        + "{\"name\":\"file\",\"type\":\"string\"},{\"name\":\"pos\",\"type\":\"long\"}]}},"
                        + "{\"name\":\"op\",\"type\":\"string\"},"
                        + "{\"name\":\"ts_ms\",\"type\":[\"null\",\"long\"],\"default\":null},"
                        + "{\"name\":\"transaction\",\"type\":[\"null\",{\"type\":\"record\","
                        + "\"name\":\"ConnectDefault\",\"namespace\":\"io.confluent.connect.avro\","
                        + "\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
                        + "{\"name\":\"total_order\",\"type\":\"long\"},"
                        + "{\"name\":\"data_collection_order\",\"type\":\"long\"}]}]," + "\"default\":null}"
                        + "]}");
    }

    static GenericRecord source(Schema envelope, long tsMs) {
        GenericRecord s = new GenericData.Record(envelope.getField("source").schema());
        s.put("version", "1.9.7.Final");
        s.put("ts_ms", tsMs);
        s.put("snapshot", "false");
        s.put("db", "inventory");
        s.put("table", "orders");
        s.put("file", "mysql-bin.000003");
        s.put("pos", 154L);
        return s;
    }

    static GenericRecord envelope(Schema envelope, String op, GenericRecord before, GenericRecord after, long tsMs) {
        GenericRecord e = new GenericData.Record(envelope);
        e.put("before", before);
        e.put("after", after);
        e.put("source", source(envelope, tsMs));
        e.put("op", op);
        e.put("ts_ms", tsMs + 5);
        return e;
    }

    static Schema rowSchema(Schema envelope) {
        return envelope.getField("before").schema().getTypes().get(1);
    }

    static ByteBuffer decimal(String unscaled) {
        return ByteBuffer.wrap(new java.math.BigInteger(unscaled).toByteArray());
    }

    static byte[] encode(GenericRecord r) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(r.getSchema()).write(r, enc);
        enc.flush();
        return out.toByteArray();
    }
}
