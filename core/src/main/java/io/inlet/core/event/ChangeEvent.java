package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletStopException;
import io.inlet.core.table.TableId;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.Objects;
import java.util.Optional;

/**
 * One row change of one table: the table, the row as Flink {@link RowData} whose {@link RowKind}
 * says what happened ({@code +I}, {@code -U}, {@code +U}, {@code -D}), the schema version the row was
 * built with, and where and when the source saw it. Many tables flow through one stream of these.
 *
 * <p>A table's schema can change while the job runs. The source then sends a {@link
 * #schemaChange(SchemaChange, long, SourcePosition) schema change event} (no row; {@link
 * #isSchemaChange()}) before the first row of the new version, and rows of a version that was not
 * declared when the job was built carry their {@link #rowType() row type}, so that every operator can
 * read and write them.
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

    @Nullable
    private final RowData row;

    private final long sourceTimestamp;
    private final SourcePosition position;
    private final boolean keyOnly;

    /** The row's type where the event says it: rows of versions born while the job runs. */
    @Nullable
    private final RowType rowType;

    /** Set on schema change events, which have no row. */
    @Nullable
    private final SchemaChange schemaChange;

    private ChangeEvent(
            TableId tableId,
            int schemaVersion,
            @Nullable RowData row,
            long sourceTimestamp,
            SourcePosition position,
            boolean keyOnly,
            @Nullable RowType rowType,
            @Nullable SchemaChange schemaChange) {
        this.tableId = tableId;
        this.schemaVersion = schemaVersion;
        this.row = row;
        this.sourceTimestamp = sourceTimestamp;
        this.position = position;
        this.keyOnly = keyOnly;
        this.rowType = rowType;
        this.schemaChange = schemaChange;
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
                keyOnly,
                null,
                null);
    }

    /**
     * The event that announces a table's schema change: no row, the table and the new schema version
     * of the change. Send it before the first row of the new version.
     */
    public static ChangeEvent schemaChange(SchemaChange change, long sourceTimestamp, SourcePosition position) {
        return new ChangeEvent(
                change.tableId(),
                change.newVersion(),
                null,
                sourceTimestamp,
                Objects.requireNonNull(position, "position"),
                false,
                null,
                change);
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

    /**
     * The row; do not modify it.
     *
     * @throws InletStopException for a schema change event, which has no row
     */
    public RowData row() {
        if (row == null) {
            throw noRow();
        }
        return row;
    }

    /**
     * What happened: the row's kind.
     *
     * @throws InletStopException for a schema change event, which has no row
     */
    public RowKind kind() {
        if (row == null) {
            throw noRow();
        }
        return row.getRowKind();
    }

    // A stop, not a plain failure: a restart would meet the same event again.
    private InletStopException noRow() {
        return new InletStopException("The schema change event " + this + " has no row. An operator that reads"
                + " rows must check ChangeEvent#isSchemaChange() first and handle or pass on schema changes.");
    }

    /** Whether this event announces a schema change (and has no row). */
    public boolean isSchemaChange() {
        return schemaChange != null;
    }

    /**
     * The schema change this event announces.
     *
     * @throws IllegalStateException for a row event
     */
    public SchemaChange schemaChange() {
        if (schemaChange == null) {
            throw new IllegalStateException("The event " + this + " is a row change, not a schema change.");
        }
        return schemaChange;
    }

    /**
     * The type of the row where the event carries it: for rows of a schema version born while the job
     * runs. Empty for the versions the job was built with, whose types the stream declares.
     */
    public Optional<RowType> rowType() {
        return Optional.ofNullable(rowType);
    }

    /** The same row change, saying its row's type (for a version born while the job runs). */
    public ChangeEvent withRowType(RowType type) {
        if (schemaChange != null) {
            throw new IllegalStateException("A schema change event has no row, so no row type: " + this);
        }
        return new ChangeEvent(
                tableId,
                schemaVersion,
                row,
                sourceTimestamp,
                position,
                keyOnly,
                Objects.requireNonNull(type, "rowType"),
                null);
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

    /**
     * The same row change for another table id and schema version (routing); the row and its type
     * stay.
     */
    public ChangeEvent withTable(TableId newTableId, int newSchemaVersion) {
        if (schemaChange != null) {
            throw new IllegalStateException("A schema change event moves to another table with"
                    + " ChangeEvent#schemaChange(change.withTableId(...), ...), not withTable: " + this);
        }
        return new ChangeEvent(
                Objects.requireNonNull(newTableId, "tableId"),
                newSchemaVersion,
                row,
                sourceTimestamp,
                position,
                keyOnly,
                rowType,
                null);
    }

    /**
     * The same change with another row (projection, added columns) of a version the job was built
     * with: the event no longer says a row type.
     */
    public ChangeEvent withRow(RowData newRow, int newSchemaVersion) {
        return withNewRow(newRow, newSchemaVersion, null);
    }

    /** The same change with another row of the given type (a version born while the job runs). */
    public ChangeEvent withRow(RowData newRow, int newSchemaVersion, RowType newRowType) {
        return withNewRow(newRow, newSchemaVersion, Objects.requireNonNull(newRowType, "rowType"));
    }

    private ChangeEvent withNewRow(RowData newRow, int newSchemaVersion, @Nullable RowType newRowType) {
        if (schemaChange != null) {
            throw new IllegalStateException("A schema change event has no row to replace: " + this);
        }
        return new ChangeEvent(
                tableId,
                newSchemaVersion,
                Objects.requireNonNull(newRow, "row"),
                sourceTimestamp,
                position,
                keyOnly,
                newRowType,
                null);
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
        if (schemaVersion != that.schemaVersion
                || keyOnly != that.keyOnly
                || sourceTimestamp != that.sourceTimestamp
                || !tableId.equals(that.tableId)
                || !position.equals(that.position)
                || !Objects.equals(rowType, that.rowType)
                || !Objects.equals(schemaChange, that.schemaChange)) {
            return false;
        }
        return row == null
                ? that.row == null
                : that.row != null && row.getRowKind() == that.row.getRowKind() && row.equals(that.row);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tableId, schemaVersion, row, sourceTimestamp, position, schemaChange);
    }

    @Override
    public String toString() {
        return "ChangeEvent{"
                + tableId
                + " v"
                + schemaVersion
                + " "
                + (schemaChange != null ? schemaChange : row)
                + (hasSourceTimestamp() ? " ts=" + sourceTimestamp : "")
                + (position.kind() == SourcePosition.Kind.NONE ? "" : " at " + position)
                + "}";
    }
}
