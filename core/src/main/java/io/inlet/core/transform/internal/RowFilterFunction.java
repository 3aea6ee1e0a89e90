package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs a {@link FilterExpression} on the rows of the selected tables; counts what it drops. */
@Internal
public final class RowFilterFunction extends RichFilterFunction<ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final TableSelector selector;
    private final FilterExpression expression;
    private final List<TableDescriptor> tables;

    private transient Map<TableId, FilterExpression.RowPredicate> predicates;
    private transient Counter dropped;

    public RowFilterFunction(TableSelector selector, FilterExpression expression, List<TableDescriptor> tables) {
        this.selector = selector;
        this.expression = expression;
        this.tables = tables;
    }

    @Override
    public void open(Configuration parameters) {
        predicates = new HashMap<>();
        for (TableDescriptor t : tables) {
            if (selector.matches(t.tableId())) {
                predicates.put(t.tableId(), expression.bind(t));
            }
        }
        dropped = getRuntimeContext().getMetricGroup().addGroup("inlet").counter("numRecordsFilteredOut");
    }

    @Override
    public boolean filter(ChangeEvent event) {
        FilterExpression.RowPredicate p = predicates.get(event.tableId());
        if (p == null || Boolean.TRUE.equals(p.test(event.row()))) {
            return true;
        }
        dropped.inc();
        return false;
    }
}
