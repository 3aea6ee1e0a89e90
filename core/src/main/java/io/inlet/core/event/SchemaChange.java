package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A table's schema changed while the job runs: the table before and after (the after descriptor has
 * the new schema version), the typed column changes between them, and the source's own statement
 * where it has one (a MySQL DDL). It travels in-band as a {@link ChangeEvent#schemaChange schema
 * change event}, ahead of the first row of the new version, so every operator downstream learns the
 * version before it meets such a row. Immutable.
 *
 * <pre>{@code
 * SchemaChange change = SchemaChange.between(ordersV1, ordersV2, Map.of(), "ALTER TABLE orders ADD note TEXT");
 * change.changes(); // [column 'note' was added (STRING, after 'amount')]
 * }</pre>
 */
@PublicEvolving
public final class SchemaChange implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TableDescriptor before;
    private final TableDescriptor after;
    private final List<ColumnChange> changes;

    @Nullable
    private final String statement;

    private final boolean bestEffort;

    private SchemaChange(
            TableDescriptor before,
            TableDescriptor after,
            List<ColumnChange> changes,
            @Nullable String statement,
            boolean bestEffort) {
        this.before = before;
        this.after = after;
        this.changes = changes;
        this.statement = statement;
        this.bestEffort = bestEffort;
    }

    /**
     * A schema change with the column changes as the source reported them.
     *
     * @throws IllegalArgumentException when the descriptors are of different tables or the new
     *     version is not above the old one
     */
    public static SchemaChange of(
            TableDescriptor before, TableDescriptor after, List<ColumnChange> changes, @Nullable String statement) {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        if (!before.tableId().equals(after.tableId())) {
            throw new IllegalArgumentException(
                    "A schema change is of one table, not from " + before.tableId() + " to " + after.tableId() + ".");
        }
        if (after.schemaVersion() <= before.schemaVersion()) {
            throw new IllegalArgumentException("The schema change of "
                    + before.tableId()
                    + " must raise its schema version, not go from "
                    + before.schemaVersion()
                    + " to "
                    + after.schemaVersion()
                    + ".");
        }
        return new SchemaChange(
                before, after, Collections.unmodifiableList(new ArrayList<>(changes)), statement, false);
    }

    /**
     * The schema change from one descriptor to the other, its column changes found by name: a
     * column only in {@code after} was added, one only in {@code before} was dropped, one in both
     * with another type was retyped. A rename cannot be told from a drop and an add by the columns;
     * name the renames the source saw (old name to new name).
     */
    public static SchemaChange between(
            TableDescriptor before, TableDescriptor after, Map<String, String> renames, @Nullable String statement) {
        Map<String, String> renamedTo = new HashMap<>(renames);
        Set<String> renameTargets = new HashSet<>();
        renamedTo.forEach((from, to) -> {
            if (before.column(from).isEmpty() || after.column(to).isEmpty()) {
                throw new IllegalArgumentException("The rename of column '"
                        + from
                        + "' to '"
                        + to
                        + "' does not fit the table "
                        + before.tableId()
                        + ": it must have the old name before the change and the new one after.");
            }
            renameTargets.add(to);
        });
        List<ColumnChange> changes = new ArrayList<>();
        for (Column old : before.columns()) {
            String name = old.name();
            String nameAfter = renamedTo.getOrDefault(name, name);
            Optional<Column> now = renamedTo.containsKey(name) || !renameTargets.contains(name)
                    ? after.column(nameAfter)
                    : Optional.empty();
            if (now.isEmpty()) {
                changes.add(ColumnChange.dropped(name));
                continue;
            }
            if (!nameAfter.equals(name)) {
                changes.add(ColumnChange.renamed(name, nameAfter));
            }
            LogicalType was = old.type().getLogicalType();
            LogicalType is = now.get().type().getLogicalType();
            if (!was.equals(is)) {
                changes.add(ColumnChange.retyped(nameAfter, was, is));
            }
        }
        List<Column> columns = after.columns();
        for (int i = 0; i < columns.size(); i++) {
            String name = columns.get(i).name();
            boolean existed =
                    renameTargets.contains(name) || (before.column(name).isPresent() && !renamedTo.containsKey(name));
            if (!existed) {
                changes.add(ColumnChange.added(
                        name,
                        columns.get(i).type().getLogicalType(),
                        i == 0 ? null : columns.get(i - 1).name()));
            }
        }
        return of(before, after, changes, statement);
    }

    public TableId tableId() {
        return after.tableId();
    }

    /** The table before the change. */
    public TableDescriptor before() {
        return before;
    }

    /** The table after the change, at its new schema version. */
    public TableDescriptor after() {
        return after;
    }

    /** The version the table had before the change. */
    public int previousVersion() {
        return before.schemaVersion();
    }

    /** The version of the rows after the change. */
    public int newVersion() {
        return after.schemaVersion();
    }

    /** The column changes, in the order the source reported them. */
    public List<ColumnChange> changes() {
        return changes;
    }

    /** Whether the primary key changed (its columns, not their names after a rename). */
    public boolean primaryKeyChanged() {
        List<String> renamedKey = new ArrayList<>();
        for (String key : before.primaryKey()) {
            String name = key;
            for (ColumnChange c : changes) {
                if (c.kind() == ColumnChange.Kind.RENAMED && c.column().equals(key)) {
                    name = c.newName().orElseThrow();
                }
            }
            renamedKey.add(name);
        }
        return !renamedKey.equals(after.primaryKey());
    }

    /** The source's statement for the change (e.g. the DDL), for messages. */
    public Optional<String> statement() {
        return Optional.ofNullable(statement);
    }

    /**
     * Whether a sink that cannot apply part of the change may go on without it where that stays
     * correct (the source's {@code schema-change.behavior} is {@code try-evolve}); else it stops.
     */
    public boolean isBestEffort() {
        return bestEffort;
    }

    /** The same change, to be applied as far as the sink can ({@code try-evolve}) or entirely. */
    public SchemaChange withBestEffort(boolean newBestEffort) {
        return new SchemaChange(before, after, changes, statement, newBestEffort);
    }

    /**
     * The same change, its added columns carrying the value the source gives the rows that existed
     * before ({@link ColumnChange#defaultValue()}), by column name.
     *
     * @throws IllegalArgumentException when a name is not an added column, or a value not one of its type
     */
    public SchemaChange withDefaultValues(Map<String, String> defaults) {
        List<ColumnChange> out = new ArrayList<>(changes.size());
        int found = 0;
        for (ColumnChange c : changes) {
            String value = c.kind() == ColumnChange.Kind.ADDED ? defaults.get(c.column()) : null;
            if (value != null) {
                found++;
                out.add(c.withDefaultValue(value));
            } else {
                out.add(c);
            }
        }
        if (found != defaults.size()) {
            throw new IllegalArgumentException(
                    "Defaults " + defaults + " name columns the change does not add: " + changes);
        }
        return new SchemaChange(before, after, Collections.unmodifiableList(out), statement, bestEffort);
    }

    /** The same change for a table under another id (routing, renaming transforms). */
    public SchemaChange withTableId(TableId newTableId) {
        return new SchemaChange(
                before.withTableId(newTableId), after.withTableId(newTableId), changes, statement, bestEffort);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SchemaChange)) {
            return false;
        }
        SchemaChange that = (SchemaChange) o;
        return before.equals(that.before)
                && after.equals(that.after)
                && changes.equals(that.changes)
                && Objects.equals(statement, that.statement)
                && bestEffort == that.bestEffort;
    }

    @Override
    public int hashCode() {
        return Objects.hash(before, after, changes, statement, bestEffort);
    }

    @Override
    public String toString() {
        return "SchemaChange{" + tableId() + " v" + previousVersion() + " -> v" + newVersion() + " " + changes
                + (bestEffort ? " best effort" : "") + "}";
    }
}
