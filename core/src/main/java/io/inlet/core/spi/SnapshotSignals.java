package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.SourcePosition;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.Objects;

/**
 * A source's {@link SnapshotSignal}s, with the order its snapshot rows carry, as a sink gets them
 * from {@link SinkContext#snapshotSignals()}. Immutable.
 *
 * <pre>{@code
 * context.snapshotSignals().ifPresent(s -> s.stream().transform(...));
 * }</pre>
 */
@PublicEvolving
public final class SnapshotSignals {

    private final DataStream<SnapshotSignal> stream;
    private final long snapshotOrder;

    private SnapshotSignals(DataStream<SnapshotSignal> stream, long snapshotOrder) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.snapshotOrder = snapshotOrder;
    }

    /**
     * @param snapshotOrder the {@link SourcePosition#order()} of the snapshot's rows: every change
     *     the source delivered before the snapshot orders lower
     */
    public static SnapshotSignals of(DataStream<SnapshotSignal> stream, long snapshotOrder) {
        return new SnapshotSignals(stream, snapshotOrder);
    }

    /** The signals, from the source's parallel readers. */
    public DataStream<SnapshotSignal> stream() {
        return stream;
    }

    /**
     * The {@link SourcePosition#order()} of the snapshot's rows (rows a snapshot chunk took from the
     * log while it was read order higher): a row version of a lower order was written before the
     * snapshot.
     */
    public long snapshotOrder() {
        return snapshotOrder;
    }
}
