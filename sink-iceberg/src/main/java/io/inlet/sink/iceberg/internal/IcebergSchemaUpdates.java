package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Brings an Iceberg table to the schema after a source's {@link SchemaChange}, as far as Iceberg
 * allows a live change: columns added (optional, at their place), promoted (int to long, float to
 * double, decimal precision up; a longer VARCHAR is Iceberg's same {@code string}), made optional,
 * renamed (by field id, so existing values stay) and dropped. Every writer subtask of the job calls
 * it for the same change, and a restored job calls it again: it compares with the table's current
 * schema and commits only what is missing, and after a concurrent commit it looks again.
 *
 * <p>A restored job replays the source from its checkpoint, schema changes included, while the table
 * already has every change applied since. So that an older change replayed after a newer one (a
 * column added, then dropped) does not undo it, the update records the source position of the change
 * in the table property {@value #POSITION} in the same commit, and a change at or before that
 * position is not applied again. The replayed rows have the shape of their time, not of the table's
 * now: {@value #HISTORY} records, per change, its position and the Iceberg schema before it, so
 * that {@link #schemaAt} finds the schema the rows at a position were written for, and their columns
 * map to the table's by field id (a renamed column keeps its values).
 */
@Internal
public final class IcebergSchemaUpdates {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergSchemaUpdates.class);
    private static final int ATTEMPTS = 10;

    /** Schema commits that lost a race with another commit and looked again, in this JVM (for tests). */
    @VisibleForTesting
    static final AtomicLong RACES = new AtomicLong();

    /** Table property: the source position (its order) of the last schema change applied. */
    public static final String POSITION = "inlet.schema-change.position";

    /** Table property: {@code position:schema-id-before;...} of every schema change applied, in order. */
    public static final String HISTORY = "inlet.schema-change.history";

    private IcebergSchemaUpdates() {}

    /**
     * Applies the change to the table.
     *
     * @param order the change's source position order when the source orders its changes totally (a
     *     binlog), else {@link Long#MIN_VALUE}
     * @return the column changes this call went on without ({@link SchemaChange#isBestEffort()
     *     try-evolve}), in words; empty when it applied all of them, or the table had the change already
     * @throws InletStopException naming the table, the column and what to do when Iceberg cannot
     *     follow the change (a narrowing or another type, a changed primary key)
     */
    public static List<String> apply(Table table, SchemaChange change, long order) {
        if (change.primaryKeyChanged()) {
            throw stop(
                    table,
                    change,
                    "the primary key changed from " + change.before().primaryKey() + " to "
                            + change.after().primaryKey() + "; the table's equality fields cannot follow that"
                            + " while the job runs. Recreate the Iceberg table with the new key (a new snapshot of"
                            + " the source fills it)");
        }
        for (ColumnChange c : change.changes()) {
            if (c.kind() == ColumnChange.Kind.RENAMED
                    && change.before().primaryKey().contains(c.column())) {
                // The writers find the key by its columns' names; they would lose it mid-stream.
                throw stop(
                        table,
                        change,
                        "the primary-key column '" + c.column() + "' was renamed to '"
                                + c.newName().orElseThrow()
                                + "', which the sink does not follow while the job runs. Rename the Iceberg"
                                + " column (ALTER TABLE ... RENAME COLUMN) and start the job again");
            }
        }
        for (int attempt = 1; ; attempt++) {
            table.refresh();
            String recorded = table.properties().get(POSITION);
            if (order != Long.MIN_VALUE && recorded != null && Long.parseLong(recorded) >= order) {
                LOG.info(
                        "Iceberg table {}: the schema change of {} v{} -> v{} is applied already (position {} <="
                                + " {}).",
                        table.name(),
                        change.tableId(),
                        change.previousVersion(),
                        change.newVersion(),
                        order,
                        recorded);
                return List.of();
            }
            Transaction txn = table.newTransaction();
            UpdateSchema update = txn.updateSchema();
            List<String> applied;
            List<String> kept = new ArrayList<>();
            Map<String, String> defaults = new HashMap<>();
            try {
                applied = plan(table, change, update, kept, defaults);
            } catch (ValidationException | IllegalArgumentException e) {
                // Iceberg refuses the update itself (a partition or sort field on a dropped column, a name
                // taken): the same on every restart. Other failures (the catalog unreachable) may pass.
                throw stop(table, change, "Iceberg refuses the update: " + e.getMessage());
            }
            if (applied.isEmpty() && kept.isEmpty()) {
                return List.of();
            }
            try {
                // Committed even when empty: it guards the position and history below. Iceberg retries a
                // transaction that lost a race by applying its updates again to the new metadata; a schema
                // update refuses that (it was planned on the old schema) and we plan again, but a properties
                // update would write this plan's position and history back over a newer change's.
                update.commit();
                if (order != Long.MIN_VALUE || !defaults.isEmpty()) {
                    // Created only when set: a transaction refuses to commit with an update left open.
                    UpdateProperties properties = txn.updateProperties();
                    if (order != Long.MIN_VALUE) {
                        String history = table.properties().get(HISTORY);
                        String entry = order + ":" + table.schema().schemaId();
                        properties
                                .set(POSITION, String.valueOf(order))
                                .set(HISTORY, history == null || history.isEmpty() ? entry : history + ";" + entry);
                    }
                    if (!defaults.isEmpty()) {
                        // In the same commit as the column: the committer fills the rows before it (IcebergDefaults).
                        List<Integer> added = new ArrayList<>();
                        for (Map.Entry<String, String> d : defaults.entrySet()) {
                            int id = txn.table().schema().findField(d.getKey()).fieldId();
                            properties.set(IcebergDefaults.DEFAULT_PREFIX + id, d.getValue());
                            added.add(id);
                        }
                        IcebergDefaults.markPending(properties, added);
                    }
                    properties.commit();
                }
                txn.commitTransaction();
                LOG.info(
                        "Iceberg table {}: schema updated for {} v{} -> v{}: {}.",
                        table.name(),
                        change.tableId(),
                        change.previousVersion(),
                        change.newVersion(),
                        applied.isEmpty() ? "nothing" : String.join(", ", applied));
                if (!kept.isEmpty()) {
                    LOG.warn(
                            "Iceberg table {}: 'schema-change.behavior' = 'try-evolve' goes on without part of the"
                                    + " schema change of {}{}: {}.",
                            table.name(),
                            change.tableId(),
                            change.statement().map(st -> " (" + st + ")").orElse(""),
                            String.join("; ", kept));
                }
                return kept;
            } catch (CommitFailedException e) {
                // Another writer subtask (or job) changed the table meanwhile: look again.
                if (attempt >= ATTEMPTS) {
                    throw new IllegalStateException(
                            "Iceberg table " + table.name() + ": the schema update for " + change + " failed "
                                    + ATTEMPTS + " times against concurrent commits.",
                            e);
                }
                RACES.incrementAndGet();
                LOG.debug("Iceberg table {}: schema update raced another commit; looking again.", table.name(), e);
            } catch (ValidationException | IllegalArgumentException e) {
                throw stop(table, change, "Iceberg refuses the update: " + e.getMessage());
            }
        }
    }

    /**
     * The Iceberg schema that rows from the source position were written for: the schema before the first
     * schema change after that position, or the current one when no change came after it (or the source's
     * positions are not ordered: {@link Long#MIN_VALUE}).
     */
    public static Schema schemaAt(Table table, long order) {
        String history = table.properties().get(HISTORY);
        if (order == Long.MIN_VALUE || history == null || history.isEmpty()) {
            return table.schema();
        }
        for (String entry : history.split(";")) {
            int colon = entry.indexOf(':');
            if (Long.parseLong(entry.substring(0, colon)) > order) {
                Schema before = table.schemas().get(Integer.parseInt(entry.substring(colon + 1)));
                return before != null ? before : table.schema();
            }
        }
        return table.schema();
    }

    /** The last position {@link #HISTORY} records, or {@link Long#MIN_VALUE}. */
    public static long lastPosition(Table table) {
        String last = table.properties().get(POSITION);
        return last == null ? Long.MIN_VALUE : Long.parseLong(last);
    }

    /**
     * Adds to the update what the table still lacks of the change; returns what it added, in words, and
     * adds to {@code kept} what a best-effort change goes on without.
     */
    private static List<String> plan(
            Table table, SchemaChange change, UpdateSchema update, List<String> kept, Map<String, String> defaults) {
        Schema schema = table.schema();
        List<String> applied = new ArrayList<>();
        // Names after the change to names in the table now: UpdateSchema resolves names against the schema
        // it started from, also for a column renamed in the same update.
        Map<String, String> tableName = new HashMap<>();
        for (ColumnChange c : change.changes()) {
            if (c.kind() == ColumnChange.Kind.RENAMED) {
                String to = c.newName().orElseThrow();
                if (schema.findField(c.column()) != null) {
                    if (schema.findField(to) != null) {
                        throw stop(
                                table,
                                change,
                                "column '" + c.column() + "' was renamed to '" + to + "', which the table has as"
                                        + " another column; rename it in Iceberg first");
                    }
                    update.renameColumn(c.column(), to);
                    tableName.put(to, c.column());
                    applied.add("renamed " + c.column() + " to " + to);
                }
            }
        }
        for (ColumnChange c : change.changes()) {
            switch (c.kind()) {
                case ADDED: {
                    String name = c.column();
                    if (schema.findField(tableName.getOrDefault(name, name)) != null) {
                        break; // added already
                    }
                    Type type = icebergType(table, change, name, c.newType().orElseThrow());
                    // Optional even for a NOT NULL column: the rows written before have no value for it.
                    update.addColumn(
                            name,
                            type,
                            change.after().column(name).flatMap(Column::comment).orElse(null));
                    String after = c.after().orElse(null);
                    if (after == null) {
                        update.moveFirst(name);
                    } else if (schema.findField(tableName.getOrDefault(after, after)) != null
                            || addedEarlier(change, after)) {
                        update.moveAfter(name, tableName.getOrDefault(after, after));
                    }
                    applied.add("added " + name + " " + type + (after == null ? " first" : " after " + after)
                            + c.defaultValue()
                                    .map(d -> ", default '" + d + "' for the rows before")
                                    .orElse(""));
                    c.defaultValue().ifPresent(d -> defaults.put(name, d));
                    break;
                }
                case RETYPED: {
                    String name = tableName.getOrDefault(c.column(), c.column());
                    Types.NestedField field = schema.findField(name);
                    if (field == null) {
                        throw stop(table, change, "column '" + c.column() + "' is not in the table");
                    }
                    LogicalType to = c.newType().orElseThrow();
                    Type wanted = icebergType(table, change, c.column(), to);
                    if (!field.type().equals(wanted)) {
                        if (widens(field.type(), wanted)) {
                            update.updateColumn(name, wanted.asPrimitiveType());
                            applied.add("widened " + c.column() + " to " + wanted);
                        } else if (change.isBestEffort() && widens(wanted, field.type())) {
                            // Narrowed in the source: the lake's wider column holds every new value as it is.
                            kept.add("column '" + c.column() + "' stays " + field.type() + " (the source's " + to
                                    + " fits in it)");
                        } else {
                            throw stop(
                                    table,
                                    change,
                                    "column '" + c.column() + "' changed from "
                                            + c.oldType().orElseThrow()
                                            + " to " + to + ", but Iceberg's column is " + field.type()
                                            + " and Iceberg can only widen int to long, float to double and a"
                                            + " decimal's precision (same scale)"
                                            + (change.isBestEffort()
                                                    ? "; 'try-evolve' keeps a column only when it holds every value"
                                                            + " of the new type"
                                                    : ""));
                        }
                    }
                    if (to.isNullable() && field.isRequired()) {
                        update.makeColumnOptional(name);
                        applied.add("made " + c.column() + " optional");
                    }
                    break;
                }
                case DROPPED: {
                    Types.NestedField field = schema.findField(c.column());
                    if (field == null) {
                        break;
                    }
                    if (change.isBestEffort() && laysOutTheTable(table, field)) {
                        // Iceberg refuses to drop a partition or sort source column: keep it, NULL from here on.
                        if (field.isRequired()) {
                            update.makeColumnOptional(c.column());
                            applied.add("made " + c.column() + " optional");
                        }
                        kept.add("column '" + c.column() + "' stays (it partitions or sorts the table), NULL in"
                                + " rows from here on");
                    } else {
                        update.deleteColumn(c.column());
                        applied.add("dropped " + c.column());
                    }
                    break;
                }
                default:
                    break; // renames above
            }
        }
        return applied;
    }

    /**
     * Whether a column of type {@code column} can take values of type {@code values}: the same type, one
     * that holds every value, or one Iceberg can widen to it.
     */
    public static boolean canTake(Type column, Type values) {
        return column.equals(values) || widens(values, column) || widens(column, values);
    }

    /**
     * Brings an existing table along to the rows a job is built with, when the job follows schema
     * changes: columns the table lacks are added (optional, after the column they follow in the rows),
     * types the rows widen are widened, columns the rows have as nullable are made optional. Columns only
     * the table has stay: a job restored from a savepoint taken before a change replays that change, and
     * its rows from before it fill them. Once per table, whichever process builds the job first.
     *
     * @return whether the table changed
     */
    public static boolean union(Table table, TableDescriptor rows) {
        for (int attempt = 1; ; attempt++) {
            table.refresh();
            Schema schema = table.schema();
            UpdateSchema update = table.updateSchema();
            List<String> applied = new ArrayList<>();
            String previous = null;
            for (Column c : rows.columns()) {
                Type wanted = FlinkSchemaUtil.convert(c.type().getLogicalType());
                Types.NestedField have = schema.findField(c.name());
                if (have == null) {
                    update.addColumn(c.name(), wanted, c.comment().orElse(null));
                    if (previous == null) {
                        update.moveFirst(c.name());
                    } else {
                        update.moveAfter(c.name(), previous);
                    }
                    applied.add("added " + c.name() + " " + wanted);
                } else {
                    if (widens(have.type(), wanted)) {
                        update.updateColumn(c.name(), wanted.asPrimitiveType());
                        applied.add("widened " + c.name() + " to " + wanted);
                    }
                    if (have.isRequired() && c.isNullable()) {
                        update.makeColumnOptional(c.name());
                        applied.add("made " + c.name() + " optional");
                    }
                }
                previous = c.name();
            }
            for (Types.NestedField f : schema.columns()) {
                if (rows.column(f.name()).isEmpty() && f.isRequired()) {
                    // The rows leave it NULL: required, every write would fail the same way on each restart.
                    update.makeColumnOptional(f.name());
                    applied.add("made " + f.name() + " optional (the rows lack it)");
                }
            }
            if (applied.isEmpty()) {
                return false;
            }
            try {
                update.commit();
                LOG.info(
                        "Iceberg table {}: brought along to the rows of {} (the job follows schema changes): {}.",
                        table.name(),
                        rows.tableId(),
                        String.join(", ", applied));
                return true;
            } catch (CommitFailedException e) {
                if (attempt >= ATTEMPTS) {
                    throw new IllegalStateException(
                            "Iceberg table " + table.name() + ": bringing it along to " + rows.tableId() + " failed "
                                    + ATTEMPTS + " times against concurrent commits.",
                            e);
                }
            }
        }
    }

    /**
     * Whether Iceberg can widen a column of type {@code from} to {@code to} (int to long, float to double,
     * a decimal's precision): then a {@code to} column also holds every {@code from} value as it is.
     */
    private static boolean widens(Type from, Type to) {
        return !from.equals(to)
                && from.isPrimitiveType()
                && to.isPrimitiveType()
                && TypeUtil.isPromotionAllowed(from, to.asPrimitiveType());
    }

    private static boolean laysOutTheTable(Table table, Types.NestedField field) {
        return table.specs().values().stream()
                        .flatMap(spec -> spec.fields().stream())
                        .anyMatch(f -> f.sourceId() == field.fieldId())
                || table.sortOrder().fields().stream().anyMatch(f -> f.sourceId() == field.fieldId());
    }

    private static boolean addedEarlier(SchemaChange change, String column) {
        return change.changes().stream()
                .anyMatch(c -> c.kind() == ColumnChange.Kind.ADDED && c.column().equals(column));
    }

    private static Type icebergType(Table table, SchemaChange change, String column, LogicalType type) {
        try {
            return FlinkSchemaUtil.convert(type);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            throw stop(table, change, "column '" + column + "' has the type " + type + ", which Iceberg cannot hold");
        }
    }

    private static InletStopException stop(Table table, SchemaChange change, String why) {
        return new InletStopException("Iceberg table " + table.name() + " cannot follow the schema change of "
                + change.tableId() + change.statement().map(s -> " (" + s + ")").orElse("") + ": " + why
                + ". The job stops before writing a row of the new shape; rows before the change are committed"
                + " up to the last checkpoint.");
    }
}
