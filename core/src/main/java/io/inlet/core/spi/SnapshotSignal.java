package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;

/**
 * What a source that takes snapshots tells the sinks about them, on a stream of its own beside the
 * changes ({@link SnapshotSignals}).
 *
 * <p>A sink that receives {@link #STARTED} before the snapshot's first row and {@link #COMPLETED}
 * after its last can make its tables converge to the source: rows its tables held before the
 * snapshot that the snapshot did not write again are rows the source no longer has (deleted while no
 * job ran). Both signals are ordered with the rows at checkpoint granularity only: every row before
 * a signal in the source is in the same or an earlier checkpoint than the signal.
 */
@PublicEvolving
public enum SnapshotSignal {

    /**
     * The source begins a snapshot of all its tables from scratch (no state restored), and each of
     * its readers sends this before its first row. Not sent when the job resumes a snapshot from a
     * checkpoint or savepoint, nor for a snapshot of tables added to a running job.
     */
    STARTED,

    /** Every row of the snapshot has been emitted: the changes that follow are the source's log. */
    COMPLETED
}
