package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.hudi.exception.HoodieException;
import org.apache.hudi.sink.StreamWriteOperatorCoordinator;
import org.apache.hudi.sink.event.CommitAckEvent;
import org.apache.hudi.sink.event.WriteMetadataEvent;
import org.apache.hudi.sink.utils.NonThrownExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Hudi's write coordinator, which also acknowledges an aborted checkpoint to the writers of a
 * MERGE_ON_READ table.
 *
 * <p>The acknowledgement lets a writer that flushed for the aborted checkpoint write again into the
 * instant it flushed for, as Hudi's writer does between mini-batches. A MERGE_ON_READ writer appends
 * log blocks, so its later writes add to what it flushed (a COPY_ON_WRITE writer would merge from the
 * last committed base file and lose the flushed one: {@link AbortedCheckpointAcks} leaves those
 * alone). The instant is committed by the next completed checkpoint, whose flush follows those writes
 * (a writer flushes synchronously in its snapshot); Hudi merges a writer's flushes of one instant.
 * What keeps the acknowledgement from meeting a commit:
 *
 * <ul>
 *   <li>It runs on Hudi's single-thread coordinator executor (installed through the coordinator's
 *       {@code setExecutor}, which Hudi has for its tests), after every commit Hudi queued before
 *       the abort, and not at all once one of them failed.
 *   <li>It is sent only when the aborted checkpoint is the latest one the coordinator took part in, and
 *       before the next one's coordinator snapshot completes, so Flink delivers it before that
 *       checkpoint's barrier is injected (Flink holds a checkpoint until the coordinator's earlier
 *       events are delivered). A writer that flushed for a later checkpoint never receives it.
 *   <li>A bounded input's end: Hudi commits the instant when every writer's latest event is a last
 *       batch, and the events of the aborted checkpoint still are. A writer that ended its input
 *       would commit the instant while others still write into it; so the writers' end-of-input
 *       events reach Hudi together, once every writer has sent one. A writer that ended gets no
 *       acknowledgement.
 * </ul>
 *
 * <p>Hudi itself sends this event after a checkpoint in which no writer wrote anything (and after
 * clearing its buffer); the writer only clears its waiting flag on it.
 */
@Internal
public final class AckingWriteCoordinator implements OperatorCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(AckingWriteCoordinator.class);

    private final OperatorCoordinator hudi;
    private final Context context;
    private final AtomicReferenceArray<SubtaskGateway> gateways;

    /** The latest checkpoint the coordinator was asked to snapshot; read and written on Flink's main thread. */
    private long latestCheckpoint = -1;

    /** Hudi's coordinator executor, shared with it so the acknowledgement follows its queued commits. */
    private NonThrownExecutor executor;

    /**
     * Whether the latest checkpoint was aborted and acknowledged, and no later one has started (main
     * thread). A writer whose barrier of that checkpoint came after the acknowledgement flushes then,
     * waits again, and is acknowledged again on the event of that flush.
     */
    private boolean acknowledgedLatest;

    /** Set when a task on the executor failed (a commit): the job fails, and nothing is acknowledged. */
    private volatile boolean failed;

    /** Per subtask: whether its input ended; read on the executor, written on Flink's main thread. */
    private final AtomicReferenceArray<Boolean> ended;

    /** Per subtask, its end-of-input event, held until every subtask has sent one (main thread only). */
    private final OperatorEvent[] endOfInput;

    private final int[] endOfInputAttempt;

    AckingWriteCoordinator(OperatorCoordinator hudi, Context context) {
        this.hudi = hudi;
        this.context = context;
        this.gateways = new AtomicReferenceArray<>(context.currentParallelism());
        this.ended = new AtomicReferenceArray<>(context.currentParallelism());
        this.endOfInput = new OperatorEvent[context.currentParallelism()];
        this.endOfInputAttempt = new int[context.currentParallelism()];
    }

    @Override
    public void start() throws Exception {
        if (!(hudi instanceof StreamWriteOperatorCoordinator)) {
            throw new IllegalStateException("Inlet expected Hudi's StreamWriteOperatorCoordinator for "
                    + context.getOperatorId() + " but Hudi created "
                    + hudi.getClass().getName()
                    + "; this Hudi version is not one Inlet's Hudi sink supports (0.14)");
        }
        hudi.start();
        // The same executor Hudi builds in start(), which submits nothing before this point; the
        // setter closes Hudi's.
        executor = NonThrownExecutor.builder(LoggerFactory.getLogger(StreamWriteOperatorCoordinator.class))
                .exceptionHook((message, error) -> {
                    failed = true;
                    context.failJob(new HoodieException(message, error));
                })
                .waitForTasksFinish(true)
                .build();
        ((StreamWriteOperatorCoordinator) hudi).setExecutor(executor);
    }

    @Override
    public void close() throws Exception {
        hudi.close(); // closes the executor too
    }

    @Override
    public void handleEventFromOperator(int subtask, int attemptNumber, OperatorEvent event) throws Exception {
        if (!(event instanceof WriteMetadataEvent) || !((WriteMetadataEvent) event).isEndInput()) {
            hudi.handleEventFromOperator(subtask, attemptNumber, event);
            if (acknowledgedLatest
                    && event instanceof WriteMetadataEvent
                    && !((WriteMetadataEvent) event).isBootstrap()
                    && !failed) {
                // A flush after the acknowledgement (its barrier came late): acknowledged again, on the
                // executor before the next checkpoint's snapshot, so before that checkpoint's barrier.
                SubtaskGateway[] targets = new SubtaskGateway[gateways.length()];
                targets[subtask] = gateways.get(subtask);
                long checkpointId = latestCheckpoint;
                executor.execute(
                        () -> acknowledge(checkpointId, targets),
                        "acknowledge aborted checkpoint %s again",
                        checkpointId);
            }
            return;
        }
        ended.set(subtask, Boolean.TRUE);
        endOfInput[subtask] = event;
        endOfInputAttempt[subtask] = attemptNumber;
        for (OperatorEvent e : endOfInput) {
            if (e == null) {
                return; // another writer still writes
            }
        }
        for (int i = 0; i < endOfInput.length; i++) {
            OperatorEvent e = endOfInput[i];
            endOfInput[i] = null;
            hudi.handleEventFromOperator(i, endOfInputAttempt[i], e);
        }
    }

    @Override
    public void checkpointCoordinator(long checkpointId, CompletableFuture<byte[]> result) throws Exception {
        latestCheckpoint = checkpointId;
        acknowledgedLatest = false;
        hudi.checkpointCoordinator(checkpointId, result);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        hudi.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        hudi.notifyCheckpointAborted(checkpointId);
        if (checkpointId != latestCheckpoint || executor == null || failed) {
            // An older checkpoint, or one this coordinator took no part in: writers may have flushed for
            // a later one, whose commit an acknowledgement could overtake.
            return;
        }
        // The writers that took part in the aborted checkpoint: a writer restarted since then starts
        // waiting for a new instant, which an acknowledgement must not cut short.
        SubtaskGateway[] targets = new SubtaskGateway[gateways.length()];
        for (int i = 0; i < targets.length; i++) {
            targets[i] = gateways.get(i);
        }
        executor.execute(() -> acknowledge(checkpointId, targets), "acknowledge aborted checkpoint %s", checkpointId);
        acknowledgedLatest = true;
    }

    private void acknowledge(long checkpointId, SubtaskGateway[] targets) {
        for (int i = 0; i < targets.length; i++) {
            SubtaskGateway gateway = targets[i];
            if (gateway == null || gateways.get(i) != gateway || Boolean.TRUE.equals(ended.get(i)) || failed) {
                // Failed or restarted since the abort (it waits for a new instant anyway), or finished.
                continue;
            }
            int subtask = i;
            gateway.sendEvent(CommitAckEvent.getInstance(checkpointId)).whenComplete((ack, error) -> {
                if (error != null) {
                    LOG.warn(
                            "Could not acknowledge aborted checkpoint {} to Hudi write task {}; it waits for"
                                    + " the next commit or the checkpoint timeout",
                            checkpointId,
                            subtask,
                            error);
                }
            });
        }
        LOG.info("Acknowledged aborted checkpoint {} to the Hudi writers of {}", checkpointId, context.getOperatorId());
    }

    @Override
    public void resetToCheckpoint(long checkpointId, @Nullable byte[] checkpointData) throws Exception {
        // A global restore: aborts of checkpoints from before it concern no writer that runs now.
        latestCheckpoint = -1;
        acknowledgedLatest = false;
        hudi.resetToCheckpoint(checkpointId, checkpointData);
    }

    @Override
    public void subtaskReset(int subtask, long checkpointId) {
        hudi.subtaskReset(subtask, checkpointId);
    }

    @Override
    public void executionAttemptFailed(int subtask, int attemptNumber, @Nullable Throwable reason) {
        gateways.set(subtask, null);
        // Its next attempt writes its input again, and ends it again.
        ended.set(subtask, null);
        endOfInput[subtask] = null;
        hudi.executionAttemptFailed(subtask, attemptNumber, reason);
    }

    @Override
    public void executionAttemptReady(int subtask, int attemptNumber, SubtaskGateway gateway) {
        gateways.set(subtask, gateway);
        hudi.executionAttemptReady(subtask, attemptNumber, gateway);
    }

    /** Creates Hudi's coordinator through Hudi's provider and wraps it. */
    static final class Provider implements OperatorCoordinator.Provider {
        private static final long serialVersionUID = 1L;

        private final OperatorCoordinator.Provider hudi;

        Provider(OperatorCoordinator.Provider hudi) {
            this.hudi = hudi;
        }

        @Override
        public OperatorID getOperatorId() {
            return hudi.getOperatorId();
        }

        @Override
        public OperatorCoordinator create(Context context) throws Exception {
            return new AckingWriteCoordinator(hudi.create(context), context);
        }

        /** Hudi's provider, wrapped. */
        OperatorCoordinator.Provider hudi() {
            return hudi;
        }
    }
}
