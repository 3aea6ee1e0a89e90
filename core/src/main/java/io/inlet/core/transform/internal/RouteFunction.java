package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.MapFunction;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Gives each event its routed table id and that table's schema version. */
@Internal
public final class RouteFunction implements MapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final HashMap<TableId, TableId> targets;
    private final HashMap<TableId, Integer> versions;
    /** Targets that more than one table is routed to. */
    private final HashSet<TableId> merged = new HashSet<>();

    public RouteFunction(Map<TableId, TableId> targets, Map<TableId, Integer> versions) {
        this.targets = new HashMap<>(targets);
        this.versions = new HashMap<>(versions);
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
            if (event.isSchemaChange()) {
                throw UnfollowedSchemaChange.of("route (tables merged into " + target + ")", event);
            }
            return event.withTable(target, versions.get(target));
        }
        // One table to one: the versions stay, also those born while the job runs.
        return event.isSchemaChange()
                ? ChangeEvent.schemaChange(
                        event.schemaChange().withTableId(target), event.sourceTimestamp(), event.position())
                : event.withTable(target, event.schemaVersion());
    }
}
