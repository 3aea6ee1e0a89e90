package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A column list applied to one version of a table: which source columns it keeps, in which order,
 * under which names. {@code *} stands for every column not named elsewhere in the list, in the
 * table's order, so a column added while the job runs is picked up where the table has it.
 */
@Internal
public final class Projection implements FollowedTables.Planner<Projection.Work> {

    private static final long serialVersionUID = 1L;

    private final String text;
    private final List<ColumnLists.Item> items;

    public Projection(String text, List<ColumnLists.Item> items) {
        this.text = text;
        this.items = new ArrayList<>(items);
    }

    /** The projection of one table version: source positions in output order, and the names. */
    public static final class Work {
        public final int[] positions;
        final Map<String, String> names;

        Work(int[] positions, Map<String, String> names) {
            this.positions = positions;
            this.names = names;
        }
    }

    @Override
    public Work prepare(TableDescriptor t) {
        Map<String, String> m = mapping(t);
        return new Work(m.keySet().stream().mapToInt(t::indexOf).toArray(), m);
    }

    @Override
    public TableDescriptor output(TableDescriptor t, Work work) {
        List<Column> cols = new ArrayList<>();
        work.names.forEach((from, to) -> cols.add(t.column(from).get().withName(to)));
        return t.toBuilder()
                .columns(cols)
                .primaryKey(renamedIfAllKept(t.primaryKey(), work.names))
                .partitionKeys(renamedIfAllKept(t.partitionKeys(), work.names))
                .build();
    }

    @Override
    public String outputName(Work work, String inputColumn) {
        return work.names.get(inputColumn);
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
                            + " is listed twice in '" + text + "'.");
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
}
