package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hudi's writers go on after checkpoints that carry no data and after declined ones. Hudi 0.14's
 * Flink writer, once it has flushed for a checkpoint, writes its next data only into a new instant
 * or after the coordinator acknowledged that checkpoint. Hudi's coordinator neither commits nor
 * acknowledges a declined checkpoint, so a writer that flushed for one and then received a change
 * before the next barrier waited inside the next checkpoint until the checkpoint timeout (ten
 * minutes by default), and the job failed over. The declined step here makes that order happen:
 * the declined checkpoint is held open until the change has reached the writer.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith(MariaDbExtension.class)
class HudiCheckpointsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    /** Set by the test: the next checkpoint of the side branch fails, after Hudi's writer flushed for it. */
    private static final AtomicBoolean DECLINE_NEXT = new AtomicBoolean();

    /** Counted down when the side branch's snapshot has started and holds its checkpoint open. */
    private static volatile CountDownLatch holding = new CountDownLatch(1);

    /** Counted down by the test to let the held snapshot fail, which declines the checkpoint. */
    private static volatile CountDownLatch release = new CountDownLatch(1);

    @Test
    void changesAfterEmptyAndAbortedCheckpointsLandWithinSeconds(MariaDbServer mysql, @TempDir Path lake)
            throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO t VALUES (1, 0), (2, 0)");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        // An aborted checkpoint does not fail the job; the checkpoint timeout stays Flink's default.
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        env.setRestartStrategy(RestartStrategies.noRestart());
        HudiSink sink = HudiLakes.hudiSink(lake, 5);
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source(MySqlOptions.builder(mysql, db, "t").build())
                .sink(sink)
                .build();
        TableDescriptor t = pipeline.sinkTables().get(0);
        pipeline.addToEnvironment();
        // A branch of its own in the same job whose snapshot can be made to fail on demand.
        env.addSource(new Idle())
                .uid("idle")
                .map(new DeclineOnDemand())
                .uid("decline-on-demand")
                .addSink(new DiscardingSink<>())
                .uid("discard");
        JobClient job = env.executeAsync("hudi-checkpoints");
        Path table = lake.resolve(db).resolve("t");
        try (Connection c = mysql.connection(db)) {
            Callable<List<String>> expected = () -> Canonical.mysqlAs(c, db, "t", t.toRowType());
            HudiLakes.awaitHudi(job, table, sink.writeRowType(t), t.primaryKey(), expected, HudiOrdering.COLUMNS);
            for (int round = 1; round <= 3; round++) {
                // Idle checkpoints (nothing to write), then a change: every round is an empty checkpoint
                // followed by one with data.
                Thread.sleep(1_000);
                mysql.execute(db, "UPDATE t SET v = " + round + " WHERE id = 1");
                HudiLakes.awaitHudi(job, table, sink.writeRowType(t), t.primaryKey(), expected, HudiOrdering.COLUMNS);
            }
            // A checkpoint that is declined after the writer flushed for it (nothing to write), with a
            // change that reaches the writer while that checkpoint is still open: the next barrier
            // finds data in the writer, which Hudi 0.14 alone holds until the checkpoint timeout.
            holding = new CountDownLatch(1);
            release = new CountDownLatch(1);
            DECLINE_NEXT.set(true);
            assertThat(holding.await(60, TimeUnit.SECONDS))
                    .as("the side branch holds a checkpoint open")
                    .isTrue();
            // The held checkpoint's barrier passes the writer in milliseconds (it flushes, with nothing
            // to write); the change follows it, then gets the time to reach the writer.
            Thread.sleep(1_000);
            mysql.execute(db, "UPDATE t SET v = 100 WHERE id = 2");
            Thread.sleep(2_000);
            release.countDown();
            HudiLakes.awaitHudi(job, table, sink.writeRowType(t), t.primaryKey(), expected, HudiOrdering.COLUMNS);
        } finally {
            Jobs.cancelAndAwait(job);
        }
    }

    /** Emits nothing and runs until cancelled. */
    private static final class Idle implements SourceFunction<Long> {
        private static final long serialVersionUID = 1L;
        private volatile boolean running = true;

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            while (running) {
                Thread.sleep(50);
            }
        }

        @Override
        public void cancel() {
            running = false;
        }
    }

    /**
     * Keeps one value in operator state whose serializer fails when the test asks, in the snapshot's
     * asynchronous part, once the test releases it: the checkpoint stays open until then, is declined
     * and the job runs on. The Hudi writer, whose barrier comes from the other source, flushed for
     * that checkpoint long before.
     */
    private static final class DeclineOnDemand implements MapFunction<Long, Long>, CheckpointedFunction {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long value) {
            return value;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            ListState<Long> state = context.getOperatorStateStore()
                    .getListState(new ListStateDescriptor<>("decline-on-demand", new DecliningSerializer()));
            state.update(List.of(1L));
        }
    }

    /** A LONG serializer that holds, then fails, one serialization when the test asks. */
    public static final class DecliningSerializer extends TypeSerializerSingleton<Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public Long createInstance() {
            return 0L;
        }

        @Override
        public Long copy(Long from) {
            return from;
        }

        @Override
        public Long copy(Long from, Long reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return Long.BYTES;
        }

        @Override
        public void serialize(Long record, DataOutputView target) throws IOException {
            if (DECLINE_NEXT.compareAndSet(true, false)) {
                holding.countDown();
                try {
                    if (!release.await(60, TimeUnit.SECONDS)) {
                        throw new IOException("the test did not release the held checkpoint");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("checkpoint declined on purpose by the test");
            }
            target.writeLong(record);
        }

        @Override
        public Long deserialize(DataInputView source) throws IOException {
            return source.readLong();
        }

        @Override
        public Long deserialize(Long reuse, DataInputView source) throws IOException {
            return source.readLong();
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            target.writeLong(source.readLong());
        }

        @Override
        public TypeSerializerSnapshot<Long> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Its snapshot, restored by class name. */
        public static final class Snapshot extends SimpleTypeSerializerSnapshot<Long> {
            public Snapshot() {
                super(DecliningSerializer::new);
            }
        }
    }
}
