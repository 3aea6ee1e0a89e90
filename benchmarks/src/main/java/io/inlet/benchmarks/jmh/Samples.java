package io.inlet.benchmarks.jmh;

import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.examples.DebeziumOrders;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.table.api.DataTypes;

import java.util.ArrayList;
import java.util.List;

/**
 * The messages the decoder benchmarks read, the same bytes for Inlet and Flink: the orders change
 * stream either as full Debezium envelopes (with the {@code source} block, as Debezium's MySQL
 * connector writes them) or as the small envelopes Flink's own debezium-avro-confluent format
 * writes ({@code before}, {@code after}, {@code op}).
 */
public final class Samples {

    /** System properties the runner sets for the benchmark JVMs. */
    public static final String REGISTRY = "inlet.bench.registry";

    public static final String ENVELOPE_TOPIC = "inlet.bench.envelope-topic";
    public static final String ENVELOPE_IDS = "inlet.bench.envelope-ids";
    public static final String SMALL_ID = "inlet.bench.small-id";

    public static final int COUNT = 1024;

    private Samples() {}

    /** The table both decoders produce rows of. */
    public static TableDescriptor table(String topic) {
        return TableDescriptor.builder(TableId.of("shop", "orders"))
                .column("id", DataTypes.BIGINT().notNull())
                .column("customer", DataTypes.STRING())
                .column("amount", DataTypes.DECIMAL(10, 2))
                .column("status", DataTypes.STRING())
                .column("updated_at", DataTypes.TIMESTAMP(3))
                .primaryKey("id")
                .build();
    }

    /** Full Debezium envelopes (tombstones left out: neither decoder emits anything for them). */
    public static List<byte[]> envelopes(String topic, int keyId, int valueId) {
        DebeziumOrders orders = new DebeziumOrders(topic, keyId, valueId);
        List<byte[]> out = new ArrayList<>();
        for (long n = 0; out.size() < COUNT; n++) {
            byte[] v = orders.encode(n)[1];
            if (v != null) {
                out.add(v);
            }
        }
        return out;
    }

    /** The schema of Flink's own debezium-avro-confluent envelopes for the orders row. */
    public static Schema smallSchema() {
        Schema amount = LogicalTypes.decimal(10, 2).addToSchema(Schema.create(Schema.Type.BYTES));
        Schema ts = LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
        Schema row = SchemaBuilder.record("record_after")
                .namespace("org.apache.flink.avro.generated")
                .fields()
                .requiredLong("id")
                .optionalString("customer")
                .name("amount")
                .type()
                .unionOf()
                .nullType()
                .and()
                .type(amount)
                .endUnion()
                .nullDefault()
                .optionalString("status")
                .name("updated_at")
                .type()
                .unionOf()
                .nullType()
                .and()
                .type(ts)
                .endUnion()
                .nullDefault()
                .endRecord();
        return SchemaBuilder.record("record")
                .namespace("org.apache.flink.avro.generated")
                .fields()
                .name("before")
                .type()
                .unionOf()
                .nullType()
                .and()
                .type(row)
                .endUnion()
                .nullDefault()
                .name("after")
                .type()
                .unionOf()
                .nullType()
                .and()
                .type(row)
                .endUnion()
                .nullDefault()
                .requiredString("op")
                .endRecord();
    }

    /** Small envelopes of the same changes, in the Confluent wire format with schema id {@code id}. */
    public static List<byte[]> small(int id) {
        Schema schema = smallSchema();
        Schema row = schema.getField("after").schema().getTypes().get(1);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        List<byte[]> out = new ArrayList<>();
        for (long n = 0; out.size() < COUNT; n++) {
            DebeziumOrders.Change ch = DebeziumOrders.change(n);
            if (ch.op == null) {
                continue;
            }
            GenericRecord env = new GenericData.Record(schema);
            env.put("before", ch.before == null ? null : DebeziumOrders.record(row, ch.before));
            env.put("after", ch.after == null ? null : DebeziumOrders.record(row, ch.after));
            env.put("op", ch.op);
            out.add(DebeziumOrders.wire(id, writer, env));
        }
        return out;
    }
}
