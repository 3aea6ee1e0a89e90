package io.inlet.benchmarks.jmh;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.source.kafka.internal.DebeziumRecordDecoder;
import io.inlet.source.kafka.internal.KafkaRawRecord;
import io.inlet.source.kafka.internal.RegistrySettings;
import io.inlet.source.kafka.internal.SchemaRegistryClient;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.avro.registry.confluent.debezium.DebeziumAvroDeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Inlet's Debezium decoder against Flink's debezium-avro-confluent deserializer on the same bytes,
 * one message per operation, writer schemas fetched from the real registry once. Inlet decodes into
 * change events (table id, row with its kind, source time, position); Flink into rows with their
 * kind.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DecoderBench {

    @Param({"envelope", "small"})
    public String shape;

    private byte[][] messages;
    private KafkaRawRecord[] raws;
    private int next;
    private DebeziumRecordDecoder inlet;
    private DebeziumAvroDeserializationSchema flink;

    @Setup
    public void setup() throws Exception {
        String registry = System.getProperty(Samples.REGISTRY);
        String topic = System.getProperty(Samples.ENVELOPE_TOPIC);
        List<byte[]> list;
        if ("envelope".equals(shape)) {
            String[] ids = System.getProperty(Samples.ENVELOPE_IDS).split(",");
            list = Samples.envelopes(topic, Integer.parseInt(ids[0]), Integer.parseInt(ids[1]));
        } else {
            list = Samples.small(Integer.parseInt(System.getProperty(Samples.SMALL_ID)));
        }
        messages = list.toArray(new byte[0][]);
        raws = new KafkaRawRecord[messages.length];
        for (int i = 0; i < messages.length; i++) {
            raws[i] = new KafkaRawRecord(topic, 0, i, 0L, null, messages[i], null);
        }
        TableDescriptor table = Samples.table(topic);
        inlet = new DebeziumRecordDecoder(
                new SchemaRegistryClient(new RegistrySettings(registry, null, null, null, null, null, 3, 10_000)),
                Map.of(topic, table));
        RowType rowType = (RowType) table.toRowType();
        flink = new DebeziumAvroDeserializationSchema(rowType, InternalTypeInfo.of(rowType), registry, null);
        flink.open(new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return new UnregisteredMetricsGroup();
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return SimpleUserCodeClassLoader.create(DecoderBench.class.getClassLoader());
            }
        });
        // Both must read every message: a decoder that skips work is not faster.
        for (int i = 0; i < messages.length; i++) {
            Counting<ChangeEvent> a = new Counting<>(null);
            Counting<RowData> b = new Counting<>(null);
            inlet.decode(raws[i], a);
            flink.deserialize(messages[i], b);
            if (a.count != b.count || a.count == 0) {
                throw new IllegalStateException(
                        "Message " + i + ": Inlet emitted " + a.count + " rows, Flink " + b.count);
            }
        }
    }

    @Benchmark
    public void inlet(Blackhole bh) throws Exception {
        int i = next++ & (Samples.COUNT - 1);
        inlet.decode(raws[i], new Counting<>(bh));
    }

    @Benchmark
    public void flink(Blackhole bh) throws Exception {
        int i = next++ & (Samples.COUNT - 1);
        flink.deserialize(messages[i], new Counting<>(bh));
    }

    /** Hands what a decoder emits to the blackhole, and counts it. */
    static final class Counting<T> implements Collector<T> {
        private final Blackhole bh;
        int count;

        Counting(Blackhole bh) {
            this.bh = bh;
        }

        @Override
        public void collect(T record) {
            count++;
            if (bh != null) {
                bh.consume(record);
            }
        }

        @Override
        public void close() {}
    }
}
