package io.inlet.sink.hudi.internal;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;
import io.inlet.sink.hudi.HudiSink;

import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.messages.Acknowledge;
import org.apache.flink.runtime.operators.coordination.CoordinatorStore;
import org.apache.flink.runtime.operators.coordination.CoordinatorStoreImpl;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hudi.sink.event.CommitAckEvent;
import org.apache.hudi.sink.event.WriteMetadataEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class AbortedCheckpointAcksTest {

    @Test
    void everyHudiWriterOfAJobGetsTheAckingCoordinatorAndSurvivesSerialization(@TempDir Path lake) throws Exception {
        List<AckingWriteOperatorFactory<?>> factories = writerFactories(lake);
        assertThat(factories).hasSize(1);
        AckingWriteOperatorFactory<?> factory = factories.get(0);
        OperatorID id = new OperatorID();
        assertThat(factory.getCoordinatorProvider("stream_write", id))
                .isInstanceOf(AckingWriteCoordinator.Provider.class)
                .extracting(OperatorCoordinator.Provider::getOperatorId)
                .isEqualTo(id);
        // Hudi's operator, unchanged: the same class and chaining, so state and uids stay Hudi's.
        assertThat(factory.getStreamOperatorClass(getClass().getClassLoader()))
                .isEqualTo(factory.hudi().getStreamOperatorClass(getClass().getClassLoader()));
        assertThat(factory.getChainingStrategy()).isEqualTo(factory.hudi().getChainingStrategy());

        AckingWriteOperatorFactory<?> copy =
                InstantiationUtil.clone(factory, getClass().getClassLoader());
        assertThat(copy.getCoordinatorProvider("stream_write", id)).isInstanceOf(AckingWriteCoordinator.Provider.class);
        assertThat(copy.getStreamOperatorClass(getClass().getClassLoader()))
                .isEqualTo(factory.getStreamOperatorClass(getClass().getClassLoader()));
    }

    @Test
    void acknowledgesOnlyTheAbortOfTheLatestCheckpoint(@TempDir Path lake) throws Exception {
        AckingWriteOperatorFactory<?> factory = writerFactories(lake).get(0);
        TestContext context = new TestContext();
        OperatorCoordinator coordinator =
                factory.getCoordinatorProvider("stream_write", context.id).create(context);
        assertThat(coordinator).isInstanceOf(AckingWriteCoordinator.class);
        coordinator.start();
        try {
            RecordingGateway gateway = new RecordingGateway();
            coordinator.executionAttemptReady(0, 0, gateway);

            coordinator.checkpointCoordinator(1, new CompletableFuture<>());
            coordinator.notifyCheckpointAborted(1);
            OperatorEvent ack = gateway.events.poll(30, TimeUnit.SECONDS);
            assertThat(ack).isInstanceOf(CommitAckEvent.class);
            assertThat(((CommitAckEvent) ack).getCheckpointId()).isEqualTo(1);

            // An older checkpoint's abort: writers may have flushed for the later one already.
            coordinator.checkpointCoordinator(2, new CompletableFuture<>());
            coordinator.notifyCheckpointAborted(1);
            // A writer that failed gets nothing, nor does its next attempt (it waits for a new instant).
            coordinator.executionAttemptFailed(0, 0, new RuntimeException("test"));
            coordinator.notifyCheckpointAborted(2);
            RecordingGateway restarted = new RecordingGateway();
            coordinator.executionAttemptReady(0, 1, restarted);
            // After a global restore, no abort concerns the running writers until a new checkpoint.
            coordinator.resetToCheckpoint(2, null);
            coordinator.notifyCheckpointAborted(2);
            coordinator.checkpointCoordinator(3, new CompletableFuture<>());
            coordinator.notifyCheckpointAborted(3);
            OperatorEvent next = restarted.events.poll(30, TimeUnit.SECONDS);
            assertThat(next).isInstanceOf(CommitAckEvent.class);
            assertThat(((CommitAckEvent) next).getCheckpointId()).isEqualTo(3);
            assertThat(restarted.events).isEmpty();
            assertThat(gateway.events).isEmpty();
            assertThat(context.failure).isNull();
        } finally {
            coordinator.close();
        }
    }

    @Test
    void acknowledgesAgainAWriterWhoseBarrierCameAfterTheAcknowledgement(@TempDir Path lake) throws Exception {
        AckingWriteOperatorFactory<?> factory = writerFactories(lake).get(0);
        TestContext context = new TestContext();
        OperatorCoordinator coordinator =
                factory.getCoordinatorProvider("stream_write", context.id).create(context);
        coordinator.start();
        try {
            RecordingGateway gateway = new RecordingGateway();
            coordinator.executionAttemptReady(0, 0, gateway);
            coordinator.checkpointCoordinator(1, new CompletableFuture<>());
            coordinator.notifyCheckpointAborted(1);
            assertThat(((CommitAckEvent) gateway.events.poll(30, TimeUnit.SECONDS)).getCheckpointId())
                    .isEqualTo(1);
            // The writer's barrier of checkpoint 1 arrives only now: it flushes (nothing to write) and would
            // wait for a commit that never comes.
            coordinator.handleEventFromOperator(0, 0, flush());
            OperatorEvent again = gateway.events.poll(30, TimeUnit.SECONDS);
            assertThat(again).isInstanceOf(CommitAckEvent.class);
            assertThat(((CommitAckEvent) again).getCheckpointId()).isEqualTo(1);
            // Once the next checkpoint started, a flush is for that one: Hudi's commit acknowledges it.
            coordinator.checkpointCoordinator(2, new CompletableFuture<>());
            coordinator.handleEventFromOperator(0, 0, flush());
            assertThat(gateway.events.poll(1, TimeUnit.SECONDS)).isNull();
            assertThat(context.failure).isNull();
        } finally {
            coordinator.close();
        }
    }

    /** A writer's flush with nothing written, as its snapshot sends it. */
    private static WriteMetadataEvent flush() {
        return WriteMetadataEvent.builder()
                .taskID(0)
                .instantTime("")
                .writeStatus(java.util.Collections.emptyList())
                .lastBatch(true)
                .endInput(false)
                .build();
    }

    @Test
    void leavesCopyOnWriteWritersAsHudiMadeThem(@TempDir Path lake) {
        // A COPY_ON_WRITE writer that wrote on into the instant it flushed for would merge from the last
        // committed base file and lose what it flushed.
        assertThat(writerFactories(lake, "COPY_ON_WRITE")).isEmpty();
    }

    @Test
    void passesEndOfInputOnOnlyOnceEveryWriterEndedItsInput() throws Exception {
        TestContext context = new TestContext(3);
        RecordingCoordinator hudi = new RecordingCoordinator();
        AckingWriteCoordinator coordinator = new AckingWriteCoordinator(hudi, context);
        OperatorEvent running = WriteMetadataEvent.builder()
                .taskID(1)
                .instantTime("001")
                .writeStatus(List.of())
                .lastBatch(true)
                .build();
        coordinator.handleEventFromOperator(1, 0, running);
        coordinator.handleEventFromOperator(0, 0, endOfInput(0));
        coordinator.handleEventFromOperator(2, 0, endOfInput(2));
        // Hudi would commit the instant on the first end of input, while task 1 still writes into it.
        assertThat(hudi.events).containsExactly("1:" + running);
        coordinator.executionAttemptFailed(2, 0, new RuntimeException("test"));
        coordinator.handleEventFromOperator(1, 0, endOfInput(1));
        assertThat(hudi.events).hasSize(1);
        OperatorEvent again = endOfInput(2);
        coordinator.handleEventFromOperator(2, 1, again);
        assertThat(hudi.events).hasSize(4).endsWith("2:" + again);
    }

    private static OperatorEvent endOfInput(int task) {
        return WriteMetadataEvent.builder()
                .taskID(task)
                .instantTime("001")
                .writeStatus(List.of())
                .lastBatch(true)
                .endInput(true)
                .build();
    }

    @Test
    void doesNotAcknowledgeToAWriterThatEndedItsInput(@TempDir Path lake) throws Exception {
        AckingWriteOperatorFactory<?> factory = writerFactories(lake).get(0);
        TestContext context = new TestContext(2);
        OperatorCoordinator coordinator =
                factory.getCoordinatorProvider("stream_write", context.id).create(context);
        coordinator.start();
        try {
            RecordingGateway first = new RecordingGateway();
            RecordingGateway second = new RecordingGateway();
            coordinator.executionAttemptReady(0, 0, first);
            coordinator.executionAttemptReady(1, 0, second);
            coordinator.handleEventFromOperator(0, 0, endOfInput(0));
            coordinator.checkpointCoordinator(1, new CompletableFuture<>());
            coordinator.notifyCheckpointAborted(1);
            assertThat(second.events.poll(30, TimeUnit.SECONDS)).isInstanceOf(CommitAckEvent.class);
            assertThat(first.events).isEmpty();
            assertThat(context.failure).isNull();
        } finally {
            coordinator.close();
        }
    }

    private static List<AckingWriteOperatorFactory<?>> writerFactories(Path lake) {
        return writerFactories(lake, "MERGE_ON_READ");
    }

    private static List<AckingWriteOperatorFactory<?>> writerFactories(Path lake, String tableType) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000);
        Pipeline.builder()
                .environment(env)
                .source(ValuesChangeSource.builder().table(ShopTables.ORDERS).build())
                .sink(HudiSink.builder()
                        .path(lake.toUri().toString())
                        .tableType(tableType)
                        .build())
                .build()
                .addToEnvironment();
        StreamGraph graph = env.getStreamGraph();
        return graph.getStreamNodes().stream()
                .map(StreamNode::getOperatorFactory)
                .filter(f -> f instanceof AckingWriteOperatorFactory)
                .map(f -> (AckingWriteOperatorFactory<?>) f)
                .collect(Collectors.toList());
    }

    /** Flink's side of a coordinator, for one write task. */
    private static final class TestContext implements OperatorCoordinator.Context {
        final OperatorID id = new OperatorID();
        final CoordinatorStore store = new CoordinatorStoreImpl();
        final int parallelism;
        volatile Throwable failure;

        TestContext() {
            this(1);
        }

        TestContext(int parallelism) {
            this.parallelism = parallelism;
        }

        @Override
        public OperatorID getOperatorId() {
            return id;
        }

        @Override
        public void failJob(Throwable cause) {
            failure = cause;
        }

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public ClassLoader getUserCodeClassloader() {
            return AbortedCheckpointAcksTest.class.getClassLoader();
        }

        @Override
        public CoordinatorStore getCoordinatorStore() {
            return store;
        }

        @Override
        public boolean isConcurrentExecutionAttemptsSupported() {
            return false;
        }
    }

    /** Keeps what the coordinator sends a write task. */
    private static final class RecordingGateway implements OperatorCoordinator.SubtaskGateway {
        final BlockingQueue<OperatorEvent> events = new LinkedBlockingQueue<>();

        @Override
        public CompletableFuture<Acknowledge> sendEvent(OperatorEvent event) {
            events.add(event);
            return CompletableFuture.completedFuture(Acknowledge.get());
        }

        @Override
        public ExecutionAttemptID getExecution() {
            return ExecutionAttemptID.randomId();
        }

        @Override
        public int getSubtask() {
            return 0;
        }
    }

    /** Stands in for Hudi's coordinator where only what reaches it matters: the events, in order. */
    private static final class RecordingCoordinator implements OperatorCoordinator {
        final List<String> events = new ArrayList<>();

        @Override
        public void start() {}

        @Override
        public void close() {}

        @Override
        public void handleEventFromOperator(int subtask, int attemptNumber, OperatorEvent event) {
            events.add(subtask + ":" + event);
        }

        @Override
        public void checkpointCoordinator(long checkpointId, CompletableFuture<byte[]> result) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {}

        @Override
        public void resetToCheckpoint(long checkpointId, byte[] checkpointData) {}

        @Override
        public void subtaskReset(int subtask, long checkpointId) {}

        @Override
        public void executionAttemptFailed(int subtask, int attemptNumber, Throwable reason) {}

        @Override
        public void executionAttemptReady(int subtask, int attemptNumber, SubtaskGateway gateway) {}
    }
}
