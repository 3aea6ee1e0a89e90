package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.table.TableId;

import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.util.Objects;

/**
 * One row change of one table: the table, the row as Flink {@link RowData} whose {@link RowKind}
 * says what happened ({@code +I}, {@code -U}, {@code +U}, {@code -D}), the schema version the row was
 * built with, and where and when the source saw it. Many tables flow through one stream of these.
 *
 * <p>Events are immutable: once built, neither the event nor its row may be changed. Transforms
 * build new events ({@link #withTable}, {@link #withRow}); this is what lets the serializer copy an
 * event by reference between chained operators.
 *
 * <pre>{@code
 * ChangeEvent e = ChangeEvent.of(
 *     TableId.of("shop", "orders"), 1,
 *     GenericRowData.ofKind(RowKind.INSERT, 1L, StringData.fromString("anna")),
 *     1_700_000_000_000L, SourcePosition.binlog("mysql-bin.000003", 4711L, 0));
 * }</pre>
 */
@PublicEvolving
public final class ChangeEvent {

    /** {@link #sourceTimestamp()} when the source did not say when the change happened. */
    public static final long UNKNOWN_TIMESTAMP = Long.MIN_VALUE;

    private final TableId tableId;
    private final int schemaVersion;
    private final RowData row;
    private final long sourceTimestamp;
    private final SourcePosition position;
    private final boolean keyOnly;

    private ChangeEvent(
            TableId tableId,
            int schemaVersion,
            RowData row,
            long sourceTimestamp,
            SourcePosition position,
            boolean keyOnly) {
        this.tableId = tableId;
        this.schemaVersion = schemaVersion;
        this.row = row;
        this.sourceTimestamp = sourceTimestamp;
        this.position = position;
        this.keyOnly = keyOnly;
    }

    /**
     * An event; the row's kind is the change kind. The event takes ownership of the row.
     *
     * @param sourceTimestamp epoch milliseconds when the change happened in the source, or {@link
     *     #UNKNOWN_TIMESTAMP}
     */
    public static ChangeEvent of(
            TableId tableId, int schemaVersion, RowData row, long sourceTimestamp, SourcePosition position) {
        return create(tableId, schemaVersion, row, sourceTimestamp, position, false);
    }

    /**
     * An event whose row holds only the primary key, its other columns unknown (not NULL): the old
     * row of an update from a source that does not log before images (PostgreSQL without REPLICA
     * IDENTITY FULL). Sinks delete by its key; transforms must not judge its other columns.
     */
    public static ChangeEvent keyOnly(
            TableId tableId, int schemaVersion, RowData row, long sourceTimestamp, SourcePosition position) {
        return create(tableId, schemaVersion, row, sourceTimestamp, position, true);
    }

    private static ChangeEvent create(
            TableId tableId,
            int schemaVersion,
            RowData row,
            long sourceTimestamp,
            SourcePosition position,
            boolean keyOnly) {
        return new ChangeEvent(
                Objects.requireNonNull(tableId, "tableId"),
                schemaVersion,
                Objects.requireNonNull(row, "row"),
                sourceTimestamp,
                Objects.requireNonNull(position, "position"),
                keyOnly);
    }

    /** An event with no known source time or position (schema version 1). */
    public static ChangeEvent of(TableId tableId, RowData row) {
        return of(tableId, 1, row, UNKNOWN_TIMESTAMP, SourcePosition.none());
    }

    public TableId tableId() {
        return tableId;
    }

    public int schemaVersion() {
        return schemaVersion;
    }

    /** The row; do not modify it. */
    public RowData row() {
        return row;
    }

    /** What happened: the row's kind. */
    public RowKind kind() {
        return row.getRowKind();
    }

    /** Epoch milliseconds when the change happened in the source, or {@link #UNKNOWN_TIMESTAMP}. */
    public long sourceTimestamp() {
        return sourceTimestamp;
    }

    public boolean hasSourceTimestamp() {
        return sourceTimestamp != UNKNOWN_TIMESTAMP;
    }

    public SourcePosition position() {
        return position;
    }

    /** Whether the row holds only the primary key, the other columns unknown; see {@link #keyOnly}. */
    public boolean isKeyOnly() {
        return keyOnly;
    }

    /** The same change for another table id and schema version (routing). */
    public ChangeEvent withTable(TableId newTableId, int newSchemaVersion) {
        return new ChangeEvent(
                Objects.requireNonNull(newTableId, "tableId"),
                newSchemaVersion,
                row,
                sourceTimestamp,
                position,
                keyOnly);
    }

    /** The same change with another row (projection, added columns). */
    public ChangeEvent withRow(RowData newRow, int newSchemaVersion) {
        return new ChangeEvent(
                tableId, newSchemaVersion, Objects.requireNonNull(newRow, "row"), sourceTimestamp, position, keyOnly);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ChangeEvent)) {
            return false;
        }
        ChangeEvent that = (ChangeEvent) o;
        return schemaVersion == that.schemaVersion
                && keyOnly == that.keyOnly
                && sourceTimestamp == that.sourceTimestamp
                && tableId.equals(that.tableId)
                && position.equals(that.position)
                && row.getRowKind() == that.row.getRowKind()
                && row.equals(that.row);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tableId, schemaVersion, row, sourceTimestamp, position);
    }

    @Override
    public String toString() {
        return "ChangeEvent{"
                + tableId
                + " v"
                + schemaVersion
                + " "
                + row
                + (hasSourceTimestamp() ? " ts=" + sourceTimestamp : "")
                + (position.kind() == SourcePosition.Kind.NONE ? "" : " at " + position)
                + "}";
    }
}
