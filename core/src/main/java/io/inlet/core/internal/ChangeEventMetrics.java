package io.inlet.core.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.types.RowKind;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts the events the source emits per table and kind, and tracks the last source timestamp, in
 * Flink's metric groups: {@code <operator>.inlet.table.<database.table>.numRecordsInsert} (and
 * {@code ...UpdateBefore}, {@code ...UpdateAfter}, {@code ...Delete}), {@code numSchemaChanges} (schema
 * changes followed while the job runs), {@code lastSourceTimestamp}
 * (epoch ms), {@code changeLagMs} (ms from the change in the source to the pipeline seeing it, the
 * lag to alert on) and {@code changeIdleMs} (ms since the table's last change reached the pipeline,
 * -1 before the first). The names are Inlet's own: Flink's sources register {@code
 * currentEmitEventTimeLag} and {@code sourceIdleTime} per operator, and a second metric of one name in
 * a reporter's scope is dropped. Chained to the source, it passes events on unchanged.
 */
@Internal
public final class ChangeEventMetrics extends RichMapFunction<ChangeEvent, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    public static final String GROUP = "inlet";
    public static final String TABLE_GROUP = "table";

    private static final String[] COUNTER_NAMES = new String[RowKind.values().length];

    static {
        COUNTER_NAMES[RowKind.INSERT.ordinal()] = "numRecordsInsert";
        COUNTER_NAMES[RowKind.UPDATE_BEFORE.ordinal()] = "numRecordsUpdateBefore";
        COUNTER_NAMES[RowKind.UPDATE_AFTER.ordinal()] = "numRecordsUpdateAfter";
        COUNTER_NAMES[RowKind.DELETE.ordinal()] = "numRecordsDelete";
    }

    private transient Map<TableId, TableMetrics> tables;
    private transient MetricGroup group;

    @Override
    public void open(Configuration parameters) {
        tables = new HashMap<>();
        group = getRuntimeContext().getMetricGroup().addGroup(GROUP);
    }

    @Override
    public ChangeEvent map(ChangeEvent event) {
        TableMetrics m = tables.get(event.tableId());
        if (m == null) {
            m = new TableMetrics(group.addGroup(TABLE_GROUP, event.tableId().identifier()));
            tables.put(event.tableId(), m);
        }
        if (event.isSchemaChange()) {
            m.schemaChanges.inc();
            return event;
        }
        m.counters[event.kind().ordinal()].inc();
        long now = System.currentTimeMillis();
        m.lastSeen = now;
        if (event.hasSourceTimestamp()) {
            m.lastSourceTimestamp = event.sourceTimestamp();
            m.lag = now - event.sourceTimestamp();
        }
        return event;
    }

    private static final class TableMetrics {
        final Counter[] counters = new Counter[COUNTER_NAMES.length];
        final Counter schemaChanges;
        volatile long lastSourceTimestamp = -1L;
        volatile long lag = -1L;
        volatile long lastSeen = -1L;

        TableMetrics(MetricGroup g) {
            for (int i = 0; i < counters.length; i++) {
                counters[i] = g.counter(COUNTER_NAMES[i]);
            }
            schemaChanges = g.counter("numSchemaChanges");
            g.gauge("lastSourceTimestamp", (Gauge<Long>) () -> lastSourceTimestamp);
            g.gauge("changeLagMs", (Gauge<Long>) () -> lag);
            g.gauge("changeIdleMs", (Gauge<Long>) () -> lastSeen < 0 ? -1L : System.currentTimeMillis() - lastSeen);
        }
    }
}
