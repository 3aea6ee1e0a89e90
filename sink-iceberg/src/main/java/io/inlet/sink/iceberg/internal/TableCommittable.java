package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.iceberg.io.WriteResult;

import java.io.Serializable;
import java.util.Objects;

/**
 * What a writer flushed for one table in one checkpoint: the table, the checkpoint whose barrier the
 * flush preceded, the part, and the files. The checkpoint id travels with the files, so that the
 * committer files them under the checkpoint they belong to even when that checkpoint is aborted
 * before its barrier reaches the committer. A writer closed early (too many open, too many bytes)
 * sends its files as part 0, the next writer of the same table in the same checkpoint as part 1, and
 * so on: the committer commits each part as its own snapshot, so that a later part's equality
 * deletes apply to an earlier part's rows. Immutable.
 */
@Internal
public final class TableCommittable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final long checkpointId;
    /** Absent from committables in the state of jobs before parts existed: Java serialization reads 0. */
    private final int part;

    private final WriteResult result;

    private TableCommittable(String table, long checkpointId, int part, WriteResult result) {
        this.table = Objects.requireNonNull(table, "table");
        this.checkpointId = checkpointId;
        this.part = part;
        this.result = Objects.requireNonNull(result, "result");
    }

    /**
     * @param table the Iceberg table, as {@code TableIdentifier.toString()}
     * @param checkpointId the checkpoint whose barrier followed the flush
     */
    public static TableCommittable of(String table, long checkpointId, WriteResult result) {
        return new TableCommittable(table, checkpointId, 0, result);
    }

    /** @param part the files' place among the writers one write subtask opened for the table in the checkpoint */
    public static TableCommittable of(String table, long checkpointId, int part, WriteResult result) {
        return new TableCommittable(table, checkpointId, part, result);
    }

    public String table() {
        return table;
    }

    public long checkpointId() {
        return checkpointId;
    }

    public int part() {
        return part;
    }

    public WriteResult result() {
        return result;
    }

    @Override
    public String toString() {
        return "TableCommittable{" + table + ", checkpoint " + checkpointId + ", part " + part + ", "
                + result.dataFiles().length + " data files, " + result.deleteFiles().length + " delete files}";
    }
}
