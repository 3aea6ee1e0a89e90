package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs {@link ViewChanges} in a job: the rows of the selected tables that meet the condition, with
 * updates judged by both of their rows. Stateless across checkpoints: a {@code -U} still waiting for
 * its {@code +U} is emitted before the barrier (a source emits both halves of an update together, so
 * this does not happen in practice) and at the end of input. Counts what it drops in {@code
 * numRecordsFilteredOut}.
 */
@Internal
public final class RowFilterOperator extends AbstractStreamOperator<ChangeEvent>
        implements OneInputStreamOperator<ChangeEvent, ChangeEvent>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final ViewChanges changes;

    private transient Counter dropped;
    private transient StreamRecord<ChangeEvent> reuse;

    public RowFilterOperator(ViewChanges changes) {
        this.changes = changes;
        // Chained to its input, so each row's changes keep their order.
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @Override
    public void open() throws Exception {
        super.open();
        changes.open();
        dropped = getMetricGroup().addGroup("inlet").counter("numRecordsFilteredOut");
        reuse = new StreamRecord<>(null);
    }

    @Override
    public void processElement(StreamRecord<ChangeEvent> element) {
        if (element.hasTimestamp()) {
            reuse.setTimestamp(element.getTimestamp());
        } else {
            reuse.eraseTimestamp();
        }
        changes.process(element.getValue(), this::emit, dropped::inc);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        changes.flush(this::emit, dropped::inc);
    }

    @Override
    public void endInput() {
        changes.flush(this::emit, dropped::inc);
    }

    private void emit(ChangeEvent event) {
        output.collect(reuse.replace(event));
    }
}
