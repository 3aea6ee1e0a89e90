package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.table.TableId;

import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Objects;

/** One table at one schema version, and the type of its rows: what the event serializer knows. */
@Internal
public final class TableSchemaEntry implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TableId tableId;
    private final int schemaVersion;
    private final RowType rowType;

    public TableSchemaEntry(TableId tableId, int schemaVersion, RowType rowType) {
        this.tableId = Objects.requireNonNull(tableId);
        this.schemaVersion = schemaVersion;
        this.rowType = Objects.requireNonNull(rowType);
    }

    public TableId tableId() {
        return tableId;
    }

    public int schemaVersion() {
        return schemaVersion;
    }

    public RowType rowType() {
        return rowType;
    }

    /** Whether this entry is for the same table and version as the other (whatever the types). */
    public boolean sameKey(TableSchemaEntry other) {
        return tableId.equals(other.tableId) && schemaVersion == other.schemaVersion;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TableSchemaEntry)) {
            return false;
        }
        TableSchemaEntry that = (TableSchemaEntry) o;
        return schemaVersion == that.schemaVersion && tableId.equals(that.tableId) && rowType.equals(that.rowType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tableId, schemaVersion, rowType);
    }

    @Override
    public String toString() {
        return tableId + " v" + schemaVersion + " " + rowType.asSummaryString();
    }
}
