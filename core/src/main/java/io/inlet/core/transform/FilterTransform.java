package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.transform.internal.FilterExpression;
import io.inlet.core.transform.internal.RowFilterOperator;
import io.inlet.core.transform.internal.TableSelector;
import io.inlet.core.transform.internal.ViewChanges;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the rows of the selected tables that meet a condition; other tables pass unchanged.
 *
 * <p>The sink sees what the filtered table would see. An update is judged by both of its rows: old
 * row in and new row out becomes a {@code -D} of the old row (the row leaves the view), old out and
 * new in a {@code +I} of the new row, both in the {@code -U}/{@code +U} pair, both out nothing. An
 * update that changes the primary key is a delete of the old key and an insert of the new one, each
 * judged on its row. Inserts and deletes are judged by their row.
 *
 * <pre>{@code
 * ChangeTransform shipped = FilterTransform.builder()
 *     .sourceTable("shop\\.orders")
 *     .filter("status = 'shipped' AND amount > 0")
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class FilterTransform implements ChangeTransform {

    private final TableSelector selector;
    private final String condition;
    private final FilterExpression expression;

    private FilterTransform(TableSelector selector, String condition, FilterExpression expression) {
        this.selector = selector;
        this.condition = condition;
        this.expression = expression;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "filter";
    }

    @Override
    public List<TableDescriptor> transformTables(List<TableDescriptor> input) {
        List<String> problems = new ArrayList<>();
        for (TableDescriptor t : selector.select("filter '" + condition + "'", input)) {
            try {
                expression.bind(t);
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return input;
    }

    @Override
    public DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context) {
        return input.transform(
                        "Filter: " + condition,
                        context.outputTypeInfo(),
                        new RowFilterOperator(new ViewChanges(selector, expression, context.inputTables())))
                .uid(context.uid("filter"))
                // Same parallelism as the input: chained, so each row's changes stay in order.
                .setParallelism(input.getParallelism());
    }

    @Override
    public String toString() {
        return "FilterTransform{source-table=" + selector.regex() + ", filter=" + condition + "}";
    }

    /** Builds a {@link FilterTransform}. */
    @PublicEvolving
    public static final class Builder {
        private String sourceTable = CoreOptions.SOURCE_TABLE.defaultValue();
        private String filter;

        private Builder() {}

        /** The tables to filter: a regular expression over {@code database.table}; default all. */
        public Builder sourceTable(String regex) {
            this.sourceTable = regex;
            return this;
        }

        /** The condition, see {@link CoreOptions#FILTER}. */
        public Builder filter(String condition) {
            this.filter = condition;
            return this;
        }

        /**
         * @throws InletValidationException when the condition is missing or cannot be parsed, or the
         *     table expression is not a regular expression
         */
        public FilterTransform build() {
            if (filter == null || filter.trim().isEmpty()) {
                throw new InletValidationException("filter: the option '" + CoreOptions.FILTER.key()
                        + "' is required, e.g. \"status = 'shipped'\".");
            }
            return new FilterTransform(TableSelector.of("filter", sourceTable), filter, FilterExpression.parse(filter));
        }
    }
}
