package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.transform.internal.ColumnLists;
import io.inlet.core.transform.internal.FollowedTables;
import io.inlet.core.transform.internal.Projection;
import io.inlet.core.transform.internal.ProjectionFunction;
import io.inlet.core.transform.internal.TableSelector;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps, orders and renames the columns of the selected tables; other tables pass unchanged.
 *
 * <p>A primary key (and partitioning) survives, renamed, when all its columns are kept; a table whose
 * key column is dropped loses its key, which upsert sinks then reject before the job starts.
 *
 * <p>Schema changes of a projected table are followed while the job runs: {@code *} picks up an
 * added column at its place in the table, and a rename of a column {@code *} covers renames it in
 * the output. A change that takes away or renames a column the list names stops the job, naming
 * the column, before any row of the new shape is read.
 *
 * <pre>{@code
 * ChangeTransform slim = ProjectionTransform.builder()
 *     .sourceTable("shop\\.customers")
 *     .projection("id, full_name AS name, email")   // or "*, full_name AS name"
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class ProjectionTransform implements ChangeTransform {

    private final TableSelector selector;
    private final String projection;
    private final List<ColumnLists.Item> items;

    private ProjectionTransform(TableSelector selector, String projection, List<ColumnLists.Item> items) {
        this.selector = selector;
        this.projection = projection;
        this.items = items;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "projection";
    }

    @Override
    public List<TableDescriptor> transformTables(List<TableDescriptor> input) {
        selector.select("projection '" + projection + "'", input);
        List<String> problems = new ArrayList<>();
        List<TableDescriptor> out = new ArrayList<>(input.size());
        Projection planner = new Projection(projection, items);
        for (TableDescriptor t : input) {
            if (!selector.matches(t.tableId())) {
                out.add(t);
                continue;
            }
            try {
                out.add(planner.output(t, planner.prepare(t)));
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return out;
    }

    @Override
    public DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context) {
        FollowedTables<Projection.Work> tables = new FollowedTables<>(
                "projection '" + projection + "'", selector, context.inputTables(), new Projection(projection, items));
        return input.map(new ProjectionFunction(tables), context.outputTypeInfo())
                .name("Projection: " + projection)
                .uid(context.uid("projection"))
                // Same parallelism as the input: chained, so each row's changes stay in order.
                .setParallelism(input.getParallelism());
    }

    @Override
    public String toString() {
        return "ProjectionTransform{source-table=" + selector.regex() + ", projection=" + projection + "}";
    }

    /** Builds a {@link ProjectionTransform}. */
    @PublicEvolving
    public static final class Builder {
        private String sourceTable = CoreOptions.SOURCE_TABLE.defaultValue();
        private String projection;

        private Builder() {}

        /** The tables to project: a regular expression over {@code database.table}; default all. */
        public Builder sourceTable(String regex) {
            this.sourceTable = regex;
            return this;
        }

        /** The column list, see {@link CoreOptions#PROJECTION}. */
        public Builder projection(String columns) {
            this.projection = columns;
            return this;
        }

        public ProjectionTransform build() {
            if (projection == null || projection.trim().isEmpty()) {
                throw new InletValidationException("projection: the option '" + CoreOptions.PROJECTION.key()
                        + "' is required, e.g. 'id, name AS customer'.");
            }
            List<ColumnLists.Item> items = ColumnLists.parse("projection", CoreOptions.PROJECTION.key(), projection);
            if (items.stream().filter(i -> i.star).count() > 1) {
                throw new InletValidationException("projection: '*' may appear once in '" + projection + "'.");
            }
            return new ProjectionTransform(TableSelector.of("projection", sourceTable), projection, items);
        }
    }
}
