package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Gives each event its routed table id and that table's schema version. A schema change of a table
 * routed one to one is that table's change under its new id. A schema change of one of several
 * tables merged into one (shards) makes the merged table the union of what its tables have: a column
 * the shard added is added, a column it dropped or renamed away stays (the other shards still fill it;
 * NULL in this shard's rows), a type it widened is widened, a type it narrowed stays wide; rows keep
 * their own shard's shape and reach the sink by column name.
 */
@Internal
public final class RouteFunction implements MapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final HashMap<TableId, TableId> targets;
    private final HashMap<TableId, TableDescriptor> outputs;
    /** Targets that more than one table is routed to. */
    private final HashSet<TableId> merged = new HashSet<>();

    /** Per merged target, its version now (this instance's: rows say their own type). */
    private transient Map<TableId, TableDescriptor> mergedNow;

    public RouteFunction(Map<TableId, TableId> targets, List<TableDescriptor> outputs) {
        this.targets = new HashMap<>(targets);
        this.outputs = new HashMap<>();
        outputs.forEach(t -> this.outputs.put(t.tableId(), t));
        Set<TableId> seen = new HashSet<>();
        for (TableId target : targets.values()) {
            if (!seen.add(target)) {
                merged.add(target);
            }
        }
    }

    @Override
    public ChangeEvent map(ChangeEvent event) {
        TableId target = targets.get(event.tableId());
        if (target == null) {
            throw new IllegalStateException(
                    "route: an event of table " + event.tableId() + ", which the source did not declare.");
        }
        if (merged.contains(target)) {
            if (mergedNow == null) {
                mergedNow = new HashMap<>(outputs);
            }
            TableDescriptor now = mergedNow.get(target);
            if (event.isSchemaChange()) {
                return union(event, now);
            }
            // Rows of a version the job was built with are the merged table's declared version; rows of a version
            // born while the job runs say their type and go as the merged table's version now.
            return event.withTable(
                    target,
                    event.rowType().isPresent()
                            ? now.schemaVersion()
                            : outputs.get(target).schemaVersion());
        }
        // One table to one: the versions stay, also those born while the job runs.
        return event.isSchemaChange()
                ? ChangeEvent.schemaChange(
                        event.schemaChange().withTableId(target), event.sourceTimestamp(), event.position())
                : event.withTable(target, event.schemaVersion());
    }

    /** The merged table's change for one shard's change: the union of the two shapes. */
    private ChangeEvent union(ChangeEvent event, TableDescriptor now) {
        SchemaChange shard = event.schemaChange();
        TableDescriptor after = shard.after();
        String where = "route (tables merged into " + now.tableId() + ")";
        if (!after.primaryKey().equals(now.primaryKey())) {
            throw new InletStopException("The " + where + " cannot follow the schema change of " + event.tableId()
                    + shard.statement().map(s -> " (" + s + ")").orElse("") + ": its primary key is now "
                    + after.primaryKey() + ", the merged table's " + now.primaryKey() + ". Route the table"
                    + " elsewhere, and start the job again from its last checkpoint.");
        }
        List<Column> columns = new ArrayList<>(now.columns());
        String previous = null;
        for (Column c : after.columns()) {
            int at = indexOf(columns, c.name());
            if (at < 0) {
                Column added = c.isNullable() ? c : c.withType(c.type().nullable());
                int prev = previous == null ? -1 : indexOf(columns, previous);
                columns.add(prev + 1, added);
            } else {
                LogicalType have = columns.get(at).type().getLogicalType();
                LogicalType got = c.type().getLogicalType();
                if (!have.copy(true).equals(got.copy(true))) {
                    if (LogicalTypeCasts.supportsImplicitCast(have, got)) {
                        boolean nullable = columns.get(at).isNullable() || c.isNullable();
                        columns.set(
                                at, columns.get(at).withType(nullable ? c.type().nullable() : c.type()));
                    } else if (!LogicalTypeCasts.supportsImplicitCast(got, have)) {
                        throw new InletStopException("The " + where + " cannot follow the schema change of "
                                + event.tableId()
                                + shard.statement().map(s -> " (" + s + ")").orElse("")
                                + ": its column '" + c.name() + "' is now " + got.asSummaryString()
                                + ", which the merged column (" + have.asSummaryString() + ") can neither hold nor"
                                + " widen to. Route the table elsewhere, or give the shards the same type.");
                    }
                }
                if (c.isNullable() && !columns.get(at).isNullable()) {
                    columns.set(
                            at, columns.get(at).withType(columns.get(at).type().nullable()));
                }
            }
            previous = c.name();
        }
        // Columns the shard no longer has stay: the other shards fill them.
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            if (after.column(c.name()).isEmpty() && !c.isNullable()) {
                columns.set(i, c.withType(c.type().nullable()));
            }
        }
        TableDescriptor next = now.toBuilder()
                .columns(columns)
                .schemaVersion(Math.max(now.schemaVersion(), after.schemaVersion()) + 1)
                .build();
        SchemaChange change = SchemaChange.between(
                        now, next, Map.of(), shard.statement().orElse(null))
                .withBestEffort(shard.isBestEffort());
        mergedNow.put(now.tableId(), next);
        return ChangeEvent.schemaChange(change, event.sourceTimestamp(), event.position());
    }

    private static int indexOf(List<Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
