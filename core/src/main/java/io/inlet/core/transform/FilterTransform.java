package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.transform.internal.FilterExpression;
import io.inlet.core.transform.internal.RowFilterFunction;
import io.inlet.core.transform.internal.TableSelector;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the rows of the selected tables that meet a condition; other tables pass unchanged.
 *
 * <p>Each change is tested on its own row: an update whose old row passes and whose new row does not
 * reaches the sink as the {@code -U} alone, which removes the row there, as a filtered view should.
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
        return input.filter(new RowFilterFunction(selector, expression, context.inputTables()))
                .name("Filter: " + condition)
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
                throw new InletValidationException(
                        "filter: the option '" + CoreOptions.FILTER.key() + "' is required, e.g. \"status = 'shipped'\".");
            }
            return new FilterTransform(
                    TableSelector.of("filter", sourceTable), filter, FilterExpression.parse(filter));
        }
    }
}
