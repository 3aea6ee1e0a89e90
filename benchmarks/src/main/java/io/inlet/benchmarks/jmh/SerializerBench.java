package io.inlet.benchmarks.jmh;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableDescriptor;
import io.inlet.examples.DebeziumOrders;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Inlet's change-event serializer against Kryo (what Flink falls back to for a class it cannot
 * analyse) on the same events: one serialize and deserialize round trip per operation, as between
 * two operators. {@code inletRuntimeVersion} sends the same rows as a table version born while the
 * job runs (after a schema change), which the serializer was not built with: each event then says
 * its table and row type.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SerializerBench {

    private ChangeEvent[] events;
    private int next;
    private TypeSerializer<ChangeEvent> inlet;
    private TypeSerializer<ChangeEvent> kryo;
    private final DataOutputSerializer out = new DataOutputSerializer(4096);
    private final DataInputDeserializer in = new DataInputDeserializer();

    @Setup
    public void setup() throws Exception {
        TableDescriptor table = Samples.table("t");
        events = new ChangeEvent[Samples.COUNT];
        int i = 0;
        for (long n = 0; i < events.length; n++) {
            DebeziumOrders.Change ch = DebeziumOrders.change(n);
            if (ch.op == null) {
                continue;
            }
            DebeziumOrders.Order o = ch.after != null ? ch.after : ch.before;
            RowKind kind =
                    "c".equals(ch.op) ? RowKind.INSERT : "u".equals(ch.op) ? RowKind.UPDATE_AFTER : RowKind.DELETE;
            GenericRowData row = GenericRowData.ofKind(
                    kind,
                    o.id,
                    StringData.fromString(o.customer),
                    DecimalData.fromBigDecimal(o.amount, 10, 2),
                    StringData.fromString(o.status),
                    TimestampData.fromEpochMillis(o.updatedAtMs));
            events[i++] = ChangeEvent.of(
                    table.tableId(),
                    table.schemaVersion(),
                    row,
                    ch.tsMs,
                    SourcePosition.kafka("bench.shop.orders", 0, n));
        }
        ExecutionConfig config = new ExecutionConfig();
        inlet = ChangeEventTypeInfo.of(List.of(table)).createSerializer(config);
        kryo = new KryoSerializer<>(ChangeEvent.class, config);
        // Both must give back what they were given.
        for (ChangeEvent e : events) {
            if (!roundTrip(inlet, e).equals(e) || !roundTrip(kryo, e).equals(e)) {
                throw new IllegalStateException("A serializer does not round-trip " + e);
            }
        }
    }

    private ChangeEvent roundTrip(TypeSerializer<ChangeEvent> s, ChangeEvent e) throws Exception {
        out.clear();
        s.serialize(e, out);
        in.setBuffer(out.getSharedBuffer(), 0, out.length());
        return s.deserialize(in);
    }

    @Benchmark
    public ChangeEvent inlet() throws Exception {
        return roundTrip(inlet, events[next++ & (Samples.COUNT - 1)]);
    }

    @Benchmark
    public ChangeEvent kryo() throws Exception {
        return roundTrip(kryo, events[next++ & (Samples.COUNT - 1)]);
    }

    @Benchmark
    public ChangeEvent inletRuntimeVersion(RuntimeVersion runtime) throws Exception {
        return roundTrip(inlet, runtime.events[next++ & (Samples.COUNT - 1)]);
    }

    /** The benchmark's events as version 2 of their table, which the serializer does not declare. */
    @State(Scope.Thread)
    public static class RuntimeVersion {
        ChangeEvent[] events;

        @Setup
        public void setup(SerializerBench bench) throws Exception {
            events = new ChangeEvent[bench.events.length];
            // One type instance for the version, as a source holds it.
            RowType type = Samples.table("t").toRowType();
            for (int i = 0; i < events.length; i++) {
                ChangeEvent e = bench.events[i];
                events[i] = e.withRow(e.row(), 2, type);
                if (!bench.roundTrip(bench.inlet, events[i]).equals(events[i])) {
                    throw new IllegalStateException("The runtime path does not round-trip " + events[i]);
                }
            }
        }
    }
}
