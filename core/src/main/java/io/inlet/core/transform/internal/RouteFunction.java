package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.MapFunction;

import java.util.HashMap;
import java.util.Map;

/** Gives each event its routed table id and that table's schema version. */
@Internal
public final class RouteFunction implements MapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final HashMap<TableId, TableId> targets;
    private final HashMap<TableId, Integer> versions;

    public RouteFunction(Map<TableId, TableId> targets, Map<TableId, Integer> versions) {
        this.targets = new HashMap<>(targets);
        this.versions = new HashMap<>(versions);
    }

    @Override
    public ChangeEvent map(ChangeEvent event) {
        TableId target = targets.get(event.tableId());
        if (target == null) {
            throw new IllegalStateException(
                    "route: an event of table " + event.tableId() + ", which the source did not declare.");
        }
        return event.withTable(target, versions.get(target));
    }
}
