package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.transform.internal.RouteFunction;
import io.inlet.core.transform.internal.TableSelector;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;

/**
 * Renames tables by regular expression, and merges the tables routed to one id into one table (for
 * example sharded {@code orders_01}, {@code orders_02}). Rules are tried in order; the first whose
 * {@code source-table} matches the whole {@code database.table} id applies; unmatched tables keep
 * their id.
 *
 * <p>Merged tables must have the same column names and types (nullability may differ: the merged
 * column is nullable if any is) and the same primary key. Rows of shards share the target's key
 * space: make sure their keys do not collide, or keep the tables apart.
 *
 * <pre>{@code
 * ChangeTransform toLake = RouteTransform.builder()
 *     .route("inventory\\.orders_[0-9]+", "lake.orders")    // merge the shards
 *     .route("inventory\\.(.*)", "lake.$1")                 // everything else, renamed
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class RouteTransform implements ChangeTransform {

    private final List<TableSelector> sources;
    private final List<String> targets;

    private RouteTransform(List<TableSelector> sources, List<String> targets) {
        this.sources = sources;
        this.targets = targets;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "route";
    }

    /** Where each input table goes. */
    private Map<TableId, TableId> targetIds(List<TableDescriptor> input) {
        List<String> problems = new ArrayList<>();
        for (int r = 0; r < sources.size(); r++) {
            TableSelector s = sources.get(r);
            if (input.stream().noneMatch(t -> s.matches(t.tableId()))) {
                try {
                    s.select("route '" + s.regex() + "' -> '" + targets.get(r) + "'", input);
                } catch (InletValidationException e) {
                    problems.addAll(e.problems());
                }
            }
        }
        Map<TableId, TableId> out = new LinkedHashMap<>();
        for (TableDescriptor t : input) {
            TableId target = t.tableId();
            for (int r = 0; r < sources.size(); r++) {
                Matcher m = sources.get(r).match(t.tableId());
                if (m != null) {
                    try {
                        // Expands $n against the whole-id match (replaceAll would search again).
                        StringBuffer id = new StringBuffer();
                        m.appendReplacement(id, targets.get(r));
                        target = TableId.parse(id.toString());
                    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                        problems.add("route: 'sink-table' = '"
                                + targets.get(r)
                                + "' gives no valid table id for "
                                + t.tableId()
                                + ": "
                                + e.getMessage()
                                + " Refer only to groups that 'source-table' has ($1 ...).");
                    }
                    break;
                }
            }
            out.put(t.tableId(), target);
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return out;
    }

    @Override
    public List<TableDescriptor> transformTables(List<TableDescriptor> input) {
        Map<TableId, TableId> ids = targetIds(input);
        Map<TableId, List<TableDescriptor>> byTarget = new LinkedHashMap<>();
        for (TableDescriptor t : input) {
            byTarget.computeIfAbsent(ids.get(t.tableId()), k -> new ArrayList<>())
                    .add(t);
        }
        List<String> problems = new ArrayList<>();
        List<TableDescriptor> out = new ArrayList<>();
        byTarget.forEach((target, group) -> {
            try {
                out.add(merge(target, group));
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
        });
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return out;
    }

    private static TableDescriptor merge(TableId target, List<TableDescriptor> group) {
        TableDescriptor first = group.get(0);
        List<Column> columns = new ArrayList<>(first.columns());
        int version = first.schemaVersion();
        for (TableDescriptor other : group.subList(1, group.size())) {
            String why = differences(first, other);
            if (why != null) {
                throw new InletValidationException("route: cannot merge "
                        + other.tableId()
                        + " into "
                        + target
                        + " together with "
                        + first.tableId()
                        + ": "
                        + why
                        + ". Route them to different tables, or project them to the same columns first.");
            }
            for (int i = 0; i < columns.size(); i++) {
                if (other.columns().get(i).isNullable() && !columns.get(i).isNullable()) {
                    columns.set(i, columns.get(i).withType(columns.get(i).type().nullable()));
                }
            }
            version = Math.max(version, other.schemaVersion());
        }
        return first.toBuilder().columns(columns).schemaVersion(version).build().withTableId(target);
    }

    /** Why two tables cannot be merged, or null. */
    private static String differences(TableDescriptor a, TableDescriptor b) {
        if (!a.columnNames().equals(b.columnNames())) {
            return "their columns differ: " + a.columnNames() + " vs " + b.columnNames();
        }
        for (int i = 0; i < a.columns().size(); i++) {
            Column x = a.columns().get(i);
            Column y = b.columns().get(i);
            if (!x.type()
                    .getLogicalType()
                    .copy(true)
                    .equals(y.type().getLogicalType().copy(true))) {
                return "column '"
                        + x.name()
                        + "' is "
                        + x.type().getLogicalType().asSummaryString()
                        + " in one and "
                        + y.type().getLogicalType().asSummaryString()
                        + " in the other";
            }
        }
        if (!a.primaryKey().equals(b.primaryKey())) {
            return "their primary keys differ: " + a.primaryKey() + " vs " + b.primaryKey();
        }
        if (!a.partitionKeys().equals(b.partitionKeys())) {
            return "their partition columns differ: " + a.partitionKeys() + " vs " + b.partitionKeys();
        }
        return null;
    }

    @Override
    public DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context) {
        Map<TableId, TableId> ids = targetIds(context.inputTables());
        return input.map(new RouteFunction(ids, context.outputTables()), context.outputTypeInfo())
                .name("Route")
                .uid(context.uid("route"))
                // Same parallelism as the input: chained, so each row's changes stay in order.
                .setParallelism(input.getParallelism());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RouteTransform{");
        for (int i = 0; i < sources.size(); i++) {
            sb.append(i == 0 ? "" : ", ")
                    .append(sources.get(i).regex())
                    .append(" -> ")
                    .append(targets.get(i));
        }
        return sb.append('}').toString();
    }

    /** Builds a {@link RouteTransform}. */
    @PublicEvolving
    public static final class Builder {
        private final List<String> sourceTables = new ArrayList<>();
        private final List<String> sinkTables = new ArrayList<>();

        private Builder() {}

        /**
         * Adds a rule: tables whose whole id matches {@code sourceTable} go to {@code sinkTable},
         * where {@code $1}, {@code $2} ... are the expression's groups.
         */
        public Builder route(String sourceTable, String sinkTable) {
            sourceTables.add(Objects.requireNonNull(sourceTable, "source-table"));
            sinkTables.add(Objects.requireNonNull(sinkTable, "sink-table"));
            return this;
        }

        public RouteTransform build() {
            if (sourceTables.isEmpty()) {
                throw new InletValidationException(
                        "route: no rule; add one with route(\"inventory\\\\.(.*)\", \"lake.$1\") or the options"
                                + " 'source-table' and 'sink-table'.");
            }
            List<TableSelector> selectors = new ArrayList<>();
            for (String s : sourceTables) {
                selectors.add(TableSelector.of("route", s));
            }
            return new RouteTransform(selectors, new ArrayList<>(sinkTables));
        }
    }
}
