package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.transform.internal.ColumnLists;
import io.inlet.core.transform.internal.ProjectionFunction;
import io.inlet.core.transform.internal.TableSelector;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps, orders and renames the columns of the selected tables; other tables pass unchanged.
 *
 * <p>A primary key (and partitioning) survives, renamed, when all its columns are kept; a table whose
 * key column is dropped loses its key, which upsert sinks then reject before the job starts.
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
        for (TableDescriptor t : input) {
            if (!selector.matches(t.tableId())) {
                out.add(t);
                continue;
            }
            try {
                out.add(project(t));
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return out;
    }

    /** Source column name to output name, in output order. */
    private Map<String, String> mapping(TableDescriptor t) {
        Set<String> named = new HashSet<>();
        for (ColumnLists.Item i : items) {
            if (!i.star) {
                if (t.indexOf(i.name) < 0) {
                    throw new InletValidationException("projection: the column '"
                            + i.name
                            + "' does not exist in table "
                            + t.tableId()
                            + " (columns: "
                            + String.join(", ", t.columnNames())
                            + "). Fix 'projection', or narrow 'source-table' to tables that have it.");
                }
                named.add(i.name);
            }
        }
        Map<String, String> m = new LinkedHashMap<>();
        Set<String> outNames = new HashSet<>();
        for (ColumnLists.Item i : items) {
            List<String[]> pairs = new ArrayList<>();
            if (i.star) {
                for (String c : t.columnNames()) {
                    if (!named.contains(c)) {
                        pairs.add(new String[] {c, c});
                    }
                }
            } else {
                pairs.add(new String[] {i.name, i.alias});
            }
            for (String[] p : pairs) {
                if (m.containsKey(p[0])) {
                    throw new InletValidationException("projection: the column '" + p[0] + "' of table " + t.tableId()
                            + " is listed twice in '" + projection + "'.");
                }
                if (!outNames.add(p[1])) {
                    throw new InletValidationException("projection: table " + t.tableId()
                            + " would get two columns named '" + p[1] + "'; rename one with AS.");
                }
                m.put(p[0], p[1]);
            }
        }
        return m;
    }

    private TableDescriptor project(TableDescriptor t) {
        Map<String, String> m = mapping(t);
        List<Column> cols = new ArrayList<>();
        m.forEach((from, to) -> cols.add(t.column(from).get().withName(to)));
        List<String> pk = renamedIfAllKept(t.primaryKey(), m);
        List<String> partitions = renamedIfAllKept(t.partitionKeys(), m);
        return t.toBuilder()
                .columns(cols)
                .primaryKey(pk)
                .partitionKeys(partitions)
                .build();
    }

    private static List<String> renamedIfAllKept(List<String> keys, Map<String, String> m) {
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            if (!m.containsKey(k)) {
                return new ArrayList<>();
            }
            out.add(m.get(k));
        }
        return out;
    }

    @Override
    public DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context) {
        Map<io.inlet.core.table.TableId, int[]> positions = new LinkedHashMap<>();
        for (TableDescriptor t : context.inputTables()) {
            if (selector.matches(t.tableId())) {
                positions.put(t.tableId(), sourcePositions(t));
            }
        }
        return input.map(new ProjectionFunction(context.inputTables(), positions), context.outputTypeInfo())
                .name("Projection: " + projection)
                .uid(context.uid("projection"))
                // Same parallelism as the input: chained, so each row's changes stay in order.
                .setParallelism(input.getParallelism());
    }

    private int[] sourcePositions(TableDescriptor t) {
        return mapping(t).keySet().stream().mapToInt(t::indexOf).toArray();
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
