package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.table.TableDescriptor;

import java.util.List;
import java.util.Optional;

/** What a {@link ChangeSink} gets when it adds itself to a job. */
@PublicEvolving
public interface SinkContext {

    /** The tables of the stream the sink consumes. */
    List<TableDescriptor> tables();

    /** A stable operator uid for the given part of this sink. */
    String uid(String part);

    /** Whether the source may deliver a change more than once; see {@link ChangeSource#mayRepeatChanges()}. */
    default boolean changesMayRepeat() {
        return false;
    }

    /** Whether the stream carries schema change events; see {@link ChangeSource#followsSchemaChanges()}. */
    default boolean schemaChangesFollowed() {
        return false;
    }

    /** Whether dropped and renamed columns stay in the lake; see {@link ChangeSource#keepsDroppedColumns()}. */
    default boolean droppedColumnsKept() {
        return false;
    }

    /**
     * The source's {@link SnapshotSignal}s, if it sends any: a sink that consumes them removes the
     * rows a new snapshot over its existing tables no longer finds. Every table of {@link #tables()}
     * is fed by the source's snapshot.
     */
    default Optional<SnapshotSignals> snapshotSignals() {
        return Optional.empty();
    }
}
