package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.table.TableDescriptor;

import java.util.List;

/** What a {@link ChangeSource} gets when it adds itself to a job. */
@PublicEvolving
public interface SourceContext {

    /** The tables the source returned from {@link ChangeSource#discoverTables()}. */
    List<TableDescriptor> tables();

    /** The type the source's stream must have. */
    ChangeEventTypeInfo typeInfo();

    /**
     * A stable operator uid for the given part of this source ({@code uid("reader")}). Stable uids
     * let a job restore from a savepoint after the pipeline is rebuilt.
     */
    String uid(String part);

    /**
     * Hands the pipeline the source's {@link SnapshotSignal}s, for the sinks that make their tables
     * converge to a snapshot; called at most once, from {@link ChangeSource#createStream}. A source
     * that never calls it gives its sinks no signals, and they keep rows a new snapshot no longer
     * finds.
     */
    default void announceSnapshots(SnapshotSignals signals) {}
}
