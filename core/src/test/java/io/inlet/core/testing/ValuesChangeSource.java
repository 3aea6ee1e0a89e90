package io.inlet.core.testing;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.SourceContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.source.RichSourceFunction;
import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An in-memory change source for tests: fixed tables and events, emitted in order by one reader
 * whose position is checkpointed. It can pause after every n events until a checkpoint has completed
 * (so that a test knows what is committed) and fail once after a given number of events (to test
 * recovery). Events are shipped to the task serialized with Inlet's own serializer.
 *
 * <pre>{@code
 * ValuesChangeSource source = ValuesChangeSource.builder()
 *     .table(orders)
 *     .insert(orders, 1L, "anna", new BigDecimal("10.50"))
 *     .update(orders, new Object[] {1L, "anna", new BigDecimal("10.50")},
 *                     new Object[] {1L, "anna", new BigDecimal("12.00")})
 *     .checkpointEvery(10)
 *     .failOnceAfter(15)
 *     .build();
 * }</pre>
 */
public final class ValuesChangeSource implements ChangeSource {

    /** Sources registered for the {@code values} factory, by data id. */
    private static final Map<String, ValuesChangeSource> REGISTERED = new ConcurrentHashMap<>();

    /** The source timestamp of the first event; each next one is a second later. */
    public static final long FIRST_TIMESTAMP = 1_700_000_000_000L;

    private final List<TableDescriptor> tables;
    private final List<ChangeEvent> events;
    private final int checkpointEvery;
    private final int failOnceAfter;
    private final boolean unbounded;
    private final String failureKey = FailureInjection.newKey();

    private ValuesChangeSource(Builder b) {
        this.tables = new ArrayList<>(b.tables.values());
        this.events = new ArrayList<>(b.events);
        this.checkpointEvery = b.checkpointEvery;
        this.failOnceAfter = b.failOnceAfter;
        this.unbounded = b.unbounded;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Makes this source available to the {@code values} factory; returns its data id. */
    public String register() {
        String id = UUID.randomUUID().toString();
        REGISTERED.put(id, this);
        return id;
    }

    static ValuesChangeSource registered(String dataId) {
        ValuesChangeSource s = REGISTERED.get(dataId);
        if (s == null) {
            throw new IllegalArgumentException("No values source registered under data-id " + dataId);
        }
        return s;
    }

    /** Whether the injected failure has happened. */
    public boolean failureFired() {
        return FailureInjection.fired(failureKey);
    }

    public List<ChangeEvent> events() {
        return events;
    }

    @Override
    public String name() {
        return "values";
    }

    @Override
    public List<TableDescriptor> discoverTables() {
        return tables;
    }

    @Override
    public DataStream<ChangeEvent> createStream(StreamExecutionEnvironment env, SourceContext context) {
        TypeSerializer<ChangeEvent> serializer = context.typeInfo().createSerializer(env.getConfig());
        DataOutputSerializer out = new DataOutputSerializer(1024);
        try {
            for (ChangeEvent e : events) {
                serializer.serialize(e, out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ValuesFunction fn = new ValuesFunction(
                out.getCopyOfBuffer(),
                events.size(),
                serializer,
                checkpointEvery,
                failOnceAfter,
                failureKey,
                unbounded);
        return env.addSource(fn, "Values", context.typeInfo()).setParallelism(1).uid(context.uid("values"));
    }

    /** Builds a {@link ValuesChangeSource}. */
    public static final class Builder {
        private final Map<TableId, TableDescriptor> tables = new LinkedHashMap<>();
        private final List<ChangeEvent> events = new ArrayList<>();
        private int checkpointEvery;
        private int failOnceAfter = -1;
        private boolean unbounded;

        private Builder() {}

        public Builder table(TableDescriptor table) {
            tables.put(table.tableId(), table);
            return this;
        }

        public Builder event(ChangeEvent event) {
            events.add(event);
            return this;
        }

        private Builder add(TableDescriptor table, RowKind kind, Object... values) {
            table(table);
            long ts = FIRST_TIMESTAMP + events.size() * 1000L;
            events.add(ChangeEvent.of(
                    table.tableId(),
                    table.schemaVersion(),
                    TestRows.row(table, kind, values),
                    ts,
                    SourcePosition.binlog("values-bin.000001", events.size(), 0)));
            return this;
        }

        public Builder insert(TableDescriptor table, Object... values) {
            return add(table, RowKind.INSERT, values);
        }

        public Builder update(TableDescriptor table, Object[] before, Object[] after) {
            add(table, RowKind.UPDATE_BEFORE, before);
            return add(table, RowKind.UPDATE_AFTER, after);
        }

        public Builder delete(TableDescriptor table, Object... values) {
            return add(table, RowKind.DELETE, values);
        }

        /** After every n events, waits until a checkpoint covering them has completed. */
        public Builder checkpointEvery(int n) {
            this.checkpointEvery = n;
            return this;
        }

        /** Fails the reader once, when it is about to emit event number n (from 0). */
        public Builder failOnceAfter(int n) {
            this.failOnceAfter = n;
            return this;
        }

        /** Keeps the reader running after the last event, until the job is cancelled. */
        public Builder unbounded() {
            this.unbounded = true;
            return this;
        }

        public ValuesChangeSource build() {
            return new ValuesChangeSource(this);
        }
    }

    /** The reader. Its position is operator state; it may wait for checkpoints and fail once. */
    static final class ValuesFunction extends RichSourceFunction<ChangeEvent>
            implements CheckpointedFunction, CheckpointListener {

        private static final long serialVersionUID = 1L;

        private final byte[] serialized;
        private final int count;
        private final TypeSerializer<ChangeEvent> serializer;
        private final int checkpointEvery;
        private final int failOnceAfter;
        private final String failureKey;
        private final boolean unbounded;

        private transient List<ChangeEvent> events;
        private transient ListState<Integer> offsetState;
        private transient ConcurrentSkipListMap<Long, Integer> snapshotOffsets;
        private transient Object progress;
        private transient volatile int offset;
        private transient volatile int committedOffset;
        private volatile boolean running = true;

        ValuesFunction(
                byte[] serialized,
                int count,
                TypeSerializer<ChangeEvent> serializer,
                int checkpointEvery,
                int failOnceAfter,
                String failureKey,
                boolean unbounded) {
            this.serialized = serialized;
            this.count = count;
            this.serializer = serializer;
            this.checkpointEvery = checkpointEvery;
            this.failOnceAfter = failOnceAfter;
            this.failureKey = failureKey;
            this.unbounded = unbounded;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            progress = new Object();
            snapshotOffsets = new ConcurrentSkipListMap<>();
            offsetState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("offset", Types.INT));
            offset = 0;
            for (Integer o : offsetState.get()) {
                offset = o;
            }
            committedOffset = offset;
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            events = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                events.add(serializer.deserialize(in));
            }
        }

        @Override
        public void run(SourceContext<ChangeEvent> ctx) throws Exception {
            while (running && offset < count) {
                if (checkpointEvery > 0 && offset > 0 && offset % checkpointEvery == 0) {
                    awaitCommitted(offset);
                    if (!running) {
                        return;
                    }
                }
                if (offset == failOnceAfter) {
                    FailureInjection.failOnce(failureKey, "values source before event " + offset);
                }
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(events.get(offset));
                    offset++;
                }
            }
            if (unbounded) {
                synchronized (progress) {
                    while (running) {
                        progress.wait();
                    }
                }
            }
        }

        private void awaitCommitted(int target) throws InterruptedException {
            synchronized (progress) {
                while (running && committedOffset < target) {
                    progress.wait();
                }
            }
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            offsetState.update(List.of(offset));
            snapshotOffsets.put(context.getCheckpointId(), offset);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Map.Entry<Long, Integer> e = snapshotOffsets.floorEntry(checkpointId);
            if (e != null) {
                synchronized (progress) {
                    committedOffset = Math.max(committedOffset, e.getValue());
                    progress.notifyAll();
                }
                snapshotOffsets.headMap(checkpointId, true).clear();
            }
        }

        @Override
        public void cancel() {
            running = false;
            if (progress != null) {
                synchronized (progress) {
                    progress.notifyAll();
                }
            }
        }
    }
}
