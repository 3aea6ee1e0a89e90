package io.inlet.core.testing;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.PrimaryKeySelector;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;
import org.apache.flink.table.data.RowData;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * A sink for tests that behaves like a lakehouse sink: it stages events in checkpointed state and
 * makes them visible only when the checkpoint completes, once, even across failures and restores.
 * So a test that reads {@link #committed()} sees exactly what a transactional sink would have
 * committed: nothing lost, nothing twice. It can fail once after a number of events.
 *
 * <pre>{@code
 * CollectingChangeSink sink = CollectingChangeSink.builder().upsert(true).build();
 * ... pipeline.execute();
 * assertThat(sink.tableRows(ordersId)).containsExactlyInAnyOrder("1, anna, 12.00");
 * }</pre>
 */
public final class CollectingChangeSink implements ChangeSink {

    private static final Map<String, Results> RESULTS = new ConcurrentHashMap<>();

    private final String id;
    private final String name;
    private final boolean upsert;
    private final String target;
    private final int failOnceAfter;
    private final String failureKey = FailureInjection.newKey();
    private final boolean requiresCheckpointing;

    private volatile List<TableDescriptor> tables = new ArrayList<>();

    private CollectingChangeSink(Builder b) {
        this.id = b.id;
        this.name = b.name;
        this.upsert = b.upsert;
        // The sink's identity: where it collects to, by default its id (stable across the jobs of a test).
        this.target = b.target != null ? b.target : "memory-" + b.id;
        this.failOnceAfter = b.failOnceAfter;
        this.requiresCheckpointing = b.requiresCheckpointing;
        RESULTS.computeIfAbsent(id, k -> new Results());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The sink registered under this id (for sinks made by the {@code collect} factory). */
    public static Results results(String sinkId) {
        return RESULTS.computeIfAbsent(sinkId, k -> new Results());
    }

    public String id() {
        return id;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean requiresCheckpointing() {
        return requiresCheckpointing;
    }

    @Override
    public boolean requiresPrimaryKey() {
        return upsert;
    }

    @Override
    public String uidSeed() {
        return target;
    }

    @Override
    public List<String> targetTables(List<TableDescriptor> input) {
        return input.stream().map(t -> target + ":" + t.tableId()).collect(Collectors.toList());
    }

    @Override
    public void addSink(DataStream<ChangeEvent> stream, SinkContext context) {
        this.tables = context.tables();
        stream.keyBy(new PrimaryKeySelector(context.tables()))
                .addSink(
                        new CollectingFunction(id, ChangeEventTypeInfo.of(context.tables()), failOnceAfter, failureKey))
                .name("Collect " + name)
                .uid(context.uid("collect"));
    }

    /** Committed events, in commit order. */
    public List<ChangeEvent> committed() {
        return results(id).events();
    }

    public boolean failureFired() {
        return FailureInjection.fired(failureKey);
    }

    /** Waits until at least n events are committed. */
    public void awaitCommitted(int n, Duration timeout) throws InterruptedException, TimeoutException {
        results(id).await(n, timeout);
    }

    /**
     * The rows of a table after applying the committed changelog: by primary key when the table has
     * one (+I/+U put, -U/-D remove), as a multiset otherwise; formatted by {@link TestRows#format},
     * sorted.
     */
    public List<String> tableRows(TableId table) {
        TableDescriptor d = tables.stream()
                .filter(t -> t.tableId().equals(table))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalArgumentException("The sink got no table " + table + "; it has " + tables));
        Map<String, String> byKey = new TreeMap<>();
        List<String> multiset = new ArrayList<>();
        int[] pk = d.primaryKeyIndexes();
        for (ChangeEvent e : committed()) {
            if (!e.tableId().equals(table)) {
                continue;
            }
            String row = TestRows.format(d, e.row());
            boolean add = e.kind() == org.apache.flink.types.RowKind.INSERT
                    || e.kind() == org.apache.flink.types.RowKind.UPDATE_AFTER;
            if (pk.length > 0) {
                List<Object> values = TestRows.values(d, e.row());
                String key = java.util.Arrays.stream(pk)
                        .mapToObj(i -> String.valueOf(values.get(i)))
                        .collect(Collectors.joining("|"));
                if (add) {
                    byKey.put(key, row);
                } else {
                    byKey.remove(key);
                }
            } else if (add) {
                multiset.add(row);
            } else {
                multiset.remove(row);
            }
        }
        List<String> rows = new ArrayList<>(pk.length > 0 ? byKey.values() : multiset);
        rows.sort(null);
        return rows;
    }

    /** Builds a {@link CollectingChangeSink}. */
    public static final class Builder {
        private String id = UUID.randomUUID().toString();
        private String name = "collect";
        private boolean upsert;
        private String target;
        private int failOnceAfter = -1;
        private boolean requiresCheckpointing = true;

        private Builder() {}

        public Builder id(String sinkId) {
            this.id = sinkId;
            return this;
        }

        public Builder name(String sinkName) {
            this.name = sinkName;
            return this;
        }

        /** Whether the sink needs primary keys (as upsert sinks do). */
        public Builder upsert(boolean isUpsert) {
            this.upsert = isUpsert;
            return this;
        }

        /** A target name: two sinks with the same target write the same tables. */
        public Builder target(String targetName) {
            this.target = targetName;
            return this;
        }

        public Builder failOnceAfter(int n) {
            this.failOnceAfter = n;
            return this;
        }

        public Builder requiresCheckpointing(boolean required) {
            this.requiresCheckpointing = required;
            return this;
        }

        public CollectingChangeSink build() {
            return new CollectingChangeSink(this);
        }
    }

    /** What a sink has committed. */
    public static final class Results {
        private final List<ChangeEvent> events = new ArrayList<>();
        private final Set<String> published = new java.util.HashSet<>();

        /** Publishes a staged batch once: a batch restored from state may have been published. */
        synchronized void publish(String batchId, List<ChangeEvent> batch) {
            if (published.add(batchId)) {
                events.addAll(batch);
                notifyAll();
            }
        }

        public synchronized List<ChangeEvent> events() {
            return new ArrayList<>(events);
        }

        public synchronized void await(int n, Duration timeout) throws InterruptedException, TimeoutException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (events.size() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException(
                            "Only " + events.size() + " of " + n + " events committed within " + timeout);
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /**
     * Stages events per checkpoint in state, each batch under a unique id; publishes them when the
     * checkpoint completes, or on restore (a restored batch belongs to a completed checkpoint).
     */
    static final class CollectingFunction extends RichSinkFunction<ChangeEvent>
            implements CheckpointedFunction, CheckpointListener {

        private static final long serialVersionUID = 1L;

        private final String sinkId;
        private final ChangeEventTypeInfo typeInfo;
        private final int failOnceAfter;
        private final String failureKey;

        private transient List<ChangeEvent> pending;
        private transient TreeMap<Long, Tuple2<String, List<ChangeEvent>>> staged;
        private transient ListState<Tuple3<Long, String, ChangeEvent>> state;
        private transient int seen;

        CollectingFunction(String sinkId, ChangeEventTypeInfo typeInfo, int failOnceAfter, String failureKey) {
            this.sinkId = sinkId;
            this.typeInfo = typeInfo;
            this.failOnceAfter = failOnceAfter;
            this.failureKey = failureKey;
        }

        @Override
        public void invoke(ChangeEvent event, Context context) {
            if (seen++ == failOnceAfter) {
                FailureInjection.failOnce(failureKey, "collecting sink at event " + failOnceAfter);
            }
            pending.add(event);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            staged.put(context.getCheckpointId(), Tuple2.of(UUID.randomUUID().toString(), new ArrayList<>(pending)));
            pending.clear();
            List<Tuple3<Long, String, ChangeEvent>> all = new ArrayList<>();
            staged.forEach((cp, batch) -> batch.f1.forEach(e -> all.add(Tuple3.of(cp, batch.f0, e))));
            state.update(all);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            pending = new ArrayList<>();
            staged = new TreeMap<>();
            state = context.getOperatorStateStore()
                    .getListState(new ListStateDescriptor<>(
                            "staged", new TupleTypeInfo<>(Types.LONG, Types.STRING, typeInfo)));
            if (context.isRestored()) {
                TreeMap<Long, Tuple2<String, List<ChangeEvent>>> restored = new TreeMap<>();
                for (Tuple3<Long, String, ChangeEvent> t : state.get()) {
                    restored.computeIfAbsent(t.f0, k -> Tuple2.of(t.f1, new ArrayList<>()))
                            .f1
                            .add(t.f2);
                }
                restored.values().forEach(batch -> results(sinkId).publish(batch.f0, batch.f1));
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Map<Long, Tuple2<String, List<ChangeEvent>>> done = staged.headMap(checkpointId, true);
            done.values().forEach(batch -> results(sinkId).publish(batch.f0, batch.f1));
            done.clear();
        }
    }

    /** For debugging: events of one table as strings. */
    public List<String> format(TableId table) {
        TableDescriptor d = tables.stream()
                .filter(t -> t.tableId().equals(table))
                .findFirst()
                .orElseThrow();
        List<String> out = new ArrayList<>();
        for (ChangeEvent e : committed()) {
            if (e.tableId().equals(table)) {
                RowData r = e.row();
                out.add(r.getRowKind().shortString() + "(" + TestRows.format(d, r) + ")");
            }
        }
        return out;
    }
}
