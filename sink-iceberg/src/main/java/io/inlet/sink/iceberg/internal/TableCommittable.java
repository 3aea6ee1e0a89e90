package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.iceberg.io.WriteResult;

import java.io.Serializable;
import java.util.Objects;

/**
 * What a writer flushed for one table in one checkpoint: the table, the checkpoint whose barrier the
 * flush preceded, and the files. The checkpoint id travels with the files, so that the committer
 * files them under the checkpoint they belong to even when that checkpoint is aborted before its
 * barrier reaches the committer. Immutable.
 */
@Internal
public final class TableCommittable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final long checkpointId;
    private final WriteResult result;

    private TableCommittable(String table, long checkpointId, WriteResult result) {
        this.table = Objects.requireNonNull(table, "table");
        this.checkpointId = checkpointId;
        this.result = Objects.requireNonNull(result, "result");
    }

    /**
     * @param table the Iceberg table, as {@code TableIdentifier.toString()}
     * @param checkpointId the checkpoint whose barrier followed the flush
     */
    public static TableCommittable of(String table, long checkpointId, WriteResult result) {
        return new TableCommittable(table, checkpointId, result);
    }

    public String table() {
        return table;
    }

    public long checkpointId() {
        return checkpointId;
    }

    public WriteResult result() {
        return result;
    }

    @Override
    public String toString() {
        return "TableCommittable{" + table + ", checkpoint " + checkpointId + ", " + result.dataFiles().length
                + " data files, " + result.deleteFiles().length + " delete files}";
    }
}
