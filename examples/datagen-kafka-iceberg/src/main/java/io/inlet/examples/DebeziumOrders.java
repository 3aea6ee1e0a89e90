package io.inlet.examples;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * A deterministic stream of Debezium change events of one {@code orders} table, as Debezium's MySQL
 * connector writes them with Confluent's Avro converter: key and envelope in the Confluent wire
 * format, semantic types ({@code Decimal}, {@code io.debezium.time.Timestamp}) in the schema, and a
 * tombstone after each delete.
 *
 * <p>Event {@code n} is a pure function of {@code n}, so a generator with any parallelism of
 * indexes, and a test that wants the expected table, agree. Events come in blocks of ten over three
 * order ids: three inserts, two updates, a delete and its tombstone, another update, the deleted key
 * inserted again, and a third update. {@link #finalState(long)} is the table after the first {@code
 * n} events.
 */
public final class DebeziumOrders implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The source time of event 0; event n happened n ms later. */
    public static final long BASE_TS_MS = 1_735_689_600_000L; // 2025-01-01T00:00:00Z

    /** One row of the table. */
    public static final class Order implements Serializable {
        private static final long serialVersionUID = 1L;
        public final long id;
        public final String customer;
        public final BigDecimal amount;
        public final String status;
        public final long updatedAtMs;

        Order(long id, String customer, BigDecimal amount, String status, long updatedAtMs) {
            this.id = id;
            this.customer = customer;
            this.amount = amount;
            this.status = status;
            this.updatedAtMs = updatedAtMs;
        }

        @Override
        public String toString() {
            return id + "|" + customer + "|" + amount.toPlainString() + "|" + status + "|" + updatedAtMs;
        }
    }

    /** One event: {@code op} is c, u or d, or null for a tombstone. */
    public static final class Change {
        public final String op;
        public final long id;
        public final Order before;
        public final Order after;
        public final long tsMs;

        Change(String op, long id, Order before, Order after, long tsMs) {
            this.op = op;
            this.id = id;
            this.before = before;
            this.after = after;
            this.tsMs = tsMs;
        }
    }

    private final String topic;
    private final int keySchemaId;
    private final int valueSchemaId;
    private transient Schema keySchema;
    private transient Schema valueSchema;
    private transient GenericDatumWriter<GenericRecord> keyWriter;
    private transient GenericDatumWriter<GenericRecord> valueWriter;

    /** An encoder for the topic, with the ids the registry gave {@link #keySchema} and {@link #valueSchema}. */
    public DebeziumOrders(String topic, int keySchemaId, int valueSchemaId) {
        this.topic = topic;
        this.keySchemaId = keySchemaId;
        this.valueSchemaId = valueSchemaId;
    }

    /** The key schema Debezium registers for the topic ({@code <topic>-key}). */
    public static Schema keySchema(String topic) {
        return SchemaBuilder.record("Key")
                .namespace(topic)
                .fields()
                .requiredLong("id")
                .endRecord();
    }

    /** The value (envelope) schema Debezium registers for the topic ({@code <topic>-value}). */
    public static Schema valueSchema(String topic) {
        Schema amount = LogicalTypes.decimal(10, 2).addToSchema(Schema.create(Schema.Type.BYTES));
        amount.addProp("connect.name", "org.apache.kafka.connect.data.Decimal");
        amount.addProp("connect.parameters", Map.of("scale", "2", "connect.decimal.precision", "10"));
        Schema timestamp = Schema.create(Schema.Type.LONG);
        timestamp.addProp("connect.name", "io.debezium.time.Timestamp");
        Schema row = SchemaBuilder.record("Value")
                .namespace(topic)
                .fields()
                .requiredLong("id")
                .requiredString("customer")
                .name("amount")
                .type(amount)
                .noDefault()
                .requiredString("status")
                .name("updated_at")
                .type(timestamp)
                .noDefault()
                .endRecord();
        Schema source = SchemaBuilder.record("Source")
                .namespace("io.debezium.connector.mysql")
                .fields()
                .requiredString("version")
                .requiredString("connector")
                .requiredString("name")
                .requiredLong("ts_ms")
                .requiredString("db")
                .optionalString("table")
                .endRecord();
        return SchemaBuilder.record("Envelope")
                .namespace(topic)
                .fields()
                .name("before")
                .type()
                .optional()
                .type(row)
                .name("after")
                .type()
                .optional()
                .type(row)
                .name("source")
                .type(source)
                .noDefault()
                .requiredString("op")
                .optionalLong("ts_ms")
                .endRecord();
    }

    /** Event {@code n}. */
    public static Change change(long n) {
        long block = n / 10;
        int step = (int) (n % 10);
        long ts = BASE_TS_MS + n;
        long a = 3 * block + 1;
        long b = a + 1;
        long c = a + 2;
        switch (step) {
            case 0:
                return new Change("c", a, null, version(a, 0, block), ts);
            case 1:
                return new Change("c", b, null, version(b, 1, block), ts);
            case 2:
                return new Change("c", c, null, version(c, 2, block), ts);
            case 3:
                return new Change("u", a, version(a, 0, block), version(a, 3, block), ts);
            case 4:
                return new Change("u", b, version(b, 1, block), version(b, 4, block), ts);
            case 5:
                return new Change("d", c, version(c, 2, block), null, ts);
            case 6:
                return new Change(null, c, null, null, ts);
            case 7:
                return new Change("u", a, version(a, 3, block), version(a, 7, block), ts);
            case 8:
                return new Change("c", c, null, version(c, 8, block), ts);
            default:
                return new Change("u", b, version(b, 4, block), version(b, 9, block), ts);
        }
    }

    /** The row of an id after the event at {@code step} of its block. */
    private static Order version(long id, int step, long block) {
        long ts = BASE_TS_MS + block * 10 + step;
        BigDecimal base = BigDecimal.valueOf(id % 100_000, 0).add(new BigDecimal("0.25"));
        switch (step) {
            case 3:
                return new Order(id, "customer " + id, base.add(BigDecimal.ONE), "paid", ts);
            case 4:
                return new Order(id, "customer " + id, base, "paid", ts);
            case 7:
                return new Order(id, "customer " + id, base.add(BigDecimal.ONE), "shipped", ts);
            case 8:
                return new Order(id, "customer " + id + " again", base.negate(), "new", ts);
            case 9:
                return new Order(id, "renamed " + id + " ✓", base, "paid", ts);
            default:
                return new Order(id, "customer " + id, base, "new", ts);
        }
    }

    /** The table after events {@code 0 .. n-1}, by id. */
    public static Map<Long, Order> finalState(long n) {
        Map<Long, Order> rows = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            Change ch = change(i);
            if ("d".equals(ch.op)) {
                rows.remove(ch.id);
            } else if (ch.op != null) {
                rows.put(ch.id, ch.after);
            }
        }
        return rows;
    }

    /** Event {@code n} as Kafka key and value bytes; the value is null for a tombstone. */
    public byte[][] encode(long n) {
        if (keyWriter == null) {
            keySchema = keySchema(topic);
            valueSchema = valueSchema(topic);
            keyWriter = new GenericDatumWriter<>(keySchema);
            valueWriter = new GenericDatumWriter<>(valueSchema);
        }
        Change ch = change(n);
        GenericRecord key = new GenericData.Record(keySchema);
        key.put("id", ch.id);
        byte[] keyBytes = wire(keySchemaId, keyWriter, key);
        if (ch.op == null) {
            return new byte[][] {keyBytes, null};
        }
        Schema row = valueSchema.getField("after").schema().getTypes().get(1);
        GenericRecord source =
                new GenericData.Record(valueSchema.getField("source").schema());
        source.put("version", "1.9.7.Final");
        source.put("connector", "mysql");
        source.put("name", topic.substring(0, topic.indexOf('.') > 0 ? topic.indexOf('.') : topic.length()));
        source.put("ts_ms", ch.tsMs);
        source.put("db", "shop");
        source.put("table", "orders");
        GenericRecord envelope = new GenericData.Record(valueSchema);
        envelope.put("before", ch.before == null ? null : record(row, ch.before));
        envelope.put("after", ch.after == null ? null : record(row, ch.after));
        envelope.put("source", source);
        envelope.put("op", ch.op);
        envelope.put("ts_ms", ch.tsMs + 5);
        return new byte[][] {keyBytes, wire(valueSchemaId, valueWriter, envelope)};
    }

    /**
     * An order as an Avro record of a row schema with the orders columns (id, customer, amount, status, updated_at).
     */
    public static GenericRecord record(Schema schema, Order o) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", o.id);
        r.put("customer", o.customer);
        r.put("amount", ByteBuffer.wrap(o.amount.setScale(2).unscaledValue().toByteArray()));
        r.put("status", o.status);
        r.put("updated_at", o.updatedAtMs);
        return r;
    }

    /** Magic byte 0, the 4-byte schema id, the Avro binary. */
    public static byte[] wire(int schemaId, GenericDatumWriter<GenericRecord> writer, GenericRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(0);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
