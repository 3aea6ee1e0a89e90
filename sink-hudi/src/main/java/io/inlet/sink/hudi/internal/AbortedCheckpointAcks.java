package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.hudi.sink.common.WriteOperatorFactory;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Unblocks Hudi 0.14's Flink writers of MERGE_ON_READ tables after a declined or expired checkpoint.
 *
 * <p>Hudi's writer, once it has flushed for a checkpoint, writes its next data only into a new
 * instant or after its coordinator acknowledged that checkpoint. Hudi's coordinator does neither for
 * an aborted checkpoint (0.14.0 does not implement {@code notifyCheckpointAborted}), so a writer that
 * flushed for one and then received data before the next barrier waits inside the next checkpoint
 * until the checkpoint timeout, and the job fails over. Here each Hudi write operator's coordinator is
 * wrapped: on the abort of the latest checkpoint it sends the writers the acknowledgement Hudi sends
 * after a checkpoint without data, so they go on writing into the same instant, which the next
 * completed checkpoint commits (see {@link AckingWriteCoordinator} for why that is safe, and only for
 * MERGE_ON_READ).
 *
 * <p>Hudi builds its operators inside its table sink; the factory of a built transformation can only
 * be replaced by reflection. A Flink version without the field fails the job's construction with
 * this class named, never silently.
 */
@Internal
public final class AbortedCheckpointAcks {

    private AbortedCheckpointAcks() {}

    /**
     * Wraps the coordinator of every Hudi write operator upstream of {@code sink}.
     *
     * @return how many write operators were wrapped (at least one)
     * @throws IllegalStateException if none was found, or the factory cannot be replaced
     */
    public static int install(DataStreamSink<?> sink) {
        List<OneInputTransformation<?, ?>> writers = hudiWriters(sink.getTransformation());
        if (writers.isEmpty()) {
            throw new IllegalStateException("Inlet found no Hudi write operator (a "
                    + WriteOperatorFactory.class.getName() + ") upstream of the Hudi sink "
                    + sink.getTransformation().getName() + "; this Hudi version builds its writer differently"
                    + " and Inlet's handling of aborted checkpoints does not apply to it");
        }
        for (OneInputTransformation<?, ?> writer : writers) {
            replaceFactory(
                    writer, new AckingWriteOperatorFactory<>((WriteOperatorFactory<?>) writer.getOperatorFactory()));
        }
        return writers.size();
    }

    /** The transformations upstream of {@code end} (itself included) whose operator is Hudi's writer. */
    @VisibleForTesting
    static List<OneInputTransformation<?, ?>> hudiWriters(Transformation<?> end) {
        List<OneInputTransformation<?, ?>> found = new ArrayList<>();
        Map<Transformation<?>, Boolean> seen = new IdentityHashMap<>();
        Deque<Transformation<?>> todo = new ArrayDeque<>();
        todo.add(end);
        while (!todo.isEmpty()) {
            Transformation<?> t = todo.poll();
            if (seen.put(t, Boolean.TRUE) != null) {
                continue;
            }
            if (t instanceof OneInputTransformation
                    && ((OneInputTransformation<?, ?>) t).getOperatorFactory() instanceof WriteOperatorFactory) {
                found.add((OneInputTransformation<?, ?>) t);
            }
            todo.addAll(t.getInputs());
        }
        return found;
    }

    private static void replaceFactory(OneInputTransformation<?, ?> t, StreamOperatorFactory<?> factory) {
        try {
            Field field = OneInputTransformation.class.getDeclaredField("operatorFactory");
            field.setAccessible(true);
            field.set(t, factory);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "Inlet could not wrap the coordinator of Hudi's write operator "
                            + t.getName() + " (" + AbortedCheckpointAcks.class.getName() + " replaces the operator"
                            + " factory of Flink's OneInputTransformation, whose field this Flink version does not"
                            + " have as expected): " + e,
                    e);
        }
    }
}
