package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a built-in transform follows the schema changes of the tables it transforms. Each version of
 * an input table, declared when the job was built or announced by a schema change while it runs, is
 * prepared once (keyed by its row type, which the rows of a version born at runtime carry). A schema
 * change is checked against the transform first: when the transform no longer applies (a column it
 * names was dropped, renamed or retyped beyond what it accepts) the job stops naming the transform,
 * the table and the column, before any row of the new version is read. Otherwise the change goes on
 * as the change of the transform's output tables.
 *
 * <p>Not thread-safe; one per operator instance.
 *
 * @param <P> what the transform prepares for one input version (field getters, a bound condition)
 */
@Internal
public final class FollowedTables<P> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** A transform's work for one version of an input table. */
    public interface Planner<P> extends Serializable {

        /**
         * Prepares the transform for one version of a selected table.
         *
         * @throws InletValidationException when the transform does not apply to it, naming the column
         */
        P prepare(TableDescriptor input);

        /** The table the transform makes of that version. */
        TableDescriptor output(TableDescriptor input, P work);

        /** The name an input column has in the output, or null when the output leaves it out. */
        @Nullable
        default String outputName(P work, String inputColumn) {
            return inputColumn;
        }
    }

    /** One prepared version of an input table. */
    public static final class Version<P> {
        public final TableDescriptor input;
        public final P work;
        public final TableDescriptor output;
        /** The output rows' type, which rows of a version born at runtime say. */
        public final RowType outputType;
        /** Getters for every field of the input rows. */
        public final RowData.FieldGetter[] inputGetters;

        Version(TableDescriptor input, P work, TableDescriptor output) {
            this.input = input;
            this.work = work;
            this.output = output;
            this.outputType = output.toRowType();
            RowType type = input.toRowType();
            this.inputGetters = new RowData.FieldGetter[type.getFieldCount()];
            for (int i = 0; i < inputGetters.length; i++) {
                inputGetters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
            }
        }

        /** The event with the transformed row: saying its type only where the input row did. */
        public ChangeEvent emit(ChangeEvent in, RowData row) {
            return in.rowType().isPresent()
                    ? in.withRow(row, in.schemaVersion(), outputType)
                    : in.withRow(row, in.schemaVersion());
        }
    }

    private final String transform;
    private final TableSelector selector;
    private final List<TableDescriptor> inputTables;
    private final Planner<P> planner;

    private transient Map<TableId, Version<P>> declared;
    private transient Map<TableId, Map<RowType, Version<P>>> learned;
    private transient Map<TableId, TableDescriptor> latest;

    /**
     * @param transform the transform as its stop messages name it, e.g. {@code projection 'id, name'}
     */
    public FollowedTables(
            String transform, TableSelector selector, List<TableDescriptor> inputTables, Planner<P> planner) {
        this.transform = transform;
        this.selector = selector;
        this.inputTables = new ArrayList<>(inputTables);
        this.planner = planner;
    }

    private void init() {
        declared = new HashMap<>();
        learned = new HashMap<>();
        latest = new HashMap<>();
        for (TableDescriptor t : inputTables) {
            if (selector.matches(t.tableId())) {
                P work = planner.prepare(t);
                declared.put(t.tableId(), new Version<>(t, work, planner.output(t, work)));
                latest.put(t.tableId(), t);
            }
        }
    }

    /** Prepares the declared versions (in {@code open()}), so a transform that cannot apply fails at the start. */
    public void open() {
        if (declared == null) {
            init();
        }
    }

    /** Whether the transform works on this table (else its events pass unchanged). */
    public boolean selects(TableId table) {
        open();
        return declared.containsKey(table);
    }

    /**
     * The prepared version of a row event's table, or null for a table the transform does not select.
     *
     * @throws InletStopException when the transform does not apply to the row's version
     */
    @Nullable
    public Version<P> of(ChangeEvent row) {
        open();
        Version<P> v = declared.get(row.tableId());
        if (v == null || row.rowType().isEmpty()) {
            return v;
        }
        RowType type = row.rowType().get();
        Version<P> known =
                learned.computeIfAbsent(row.tableId(), k -> new HashMap<>()).get(type);
        if (known != null) {
            return known;
        }
        // A version no schema change announced to this operator: its columns are the row type's, its
        // key and properties those of the table's latest version.
        TableDescriptor input;
        try {
            input = latest.get(row.tableId()).toBuilder()
                    .columns(columnsOf(type))
                    .schemaVersion(row.schemaVersion())
                    .build();
        } catch (RuntimeException e) {
            throw new InletStopException("The " + transform + " transform met a row of table " + row.tableId()
                    + " in version " + row.schemaVersion() + " (" + type.asSummaryString()
                    + ") that no schema change announced, and cannot tell its key: " + e.getMessage());
        }
        return prepared(row, input);
    }

    /**
     * Follows a schema change event of any table: checks the transform against the new version of a
     * selected table and returns the change of the transform's output; passes other tables' changes.
     *
     * @throws InletStopException naming the transform, the table and the column when the transform no
     *     longer applies
     */
    public ChangeEvent follow(ChangeEvent event) {
        if (!selects(event.tableId())) {
            return event;
        }
        SchemaChange change = event.schemaChange();
        // Prepared afresh, not looked up by row type: a version may have the row type of an earlier one (a
        // column added, then dropped) with another number or key, and the output change must be the input's.
        Version<P> before = prepared(event, change.before());
        Version<P> after = prepared(event, change.after());
        latest.put(event.tableId(), change.after());
        if (before.output == before.input && after.output == after.input) {
            return event; // the transform keeps the table's shape: the change is the output's change
        }
        Map<String, String> renames = new LinkedHashMap<>();
        for (ColumnChange c : change.changes()) {
            if (c.kind() == ColumnChange.Kind.RENAMED) {
                String from = planner.outputName(before.work, c.column());
                String to = planner.outputName(after.work, c.newName().get());
                if (from != null && to != null && !from.equals(to)) {
                    renames.put(from, to);
                }
            }
        }
        try {
            SchemaChange out = SchemaChange.between(
                            before.output.toBuilder()
                                    .schemaVersion(change.previousVersion())
                                    .build(),
                            after.output.toBuilder()
                                    .schemaVersion(change.newVersion())
                                    .build(),
                            renames,
                            change.statement().orElse(null))
                    .withBestEffort(change.isBestEffort());
            return ChangeEvent.schemaChange(out, event.sourceTimestamp(), event.position());
        } catch (IllegalArgumentException e) {
            // The same on every restart: a stop, not a failure.
            throw new InletStopException("The " + transform + " transform cannot pass on the schema change of table "
                    + event.tableId() + " at " + event.position() + ": " + e.getMessage());
        }
    }

    private Version<P> prepared(ChangeEvent event, TableDescriptor input) {
        P work;
        try {
            work = planner.prepare(input);
        } catch (InletValidationException e) {
            String what = event.isSchemaChange()
                    ? "its schema change " + event.schemaChange().changes()
                            + event.schemaChange()
                                    .statement()
                                    .map(s -> " (" + s + ")")
                                    .orElse("")
                    : "the version its rows have now";
            throw new InletStopException("The " + transform + " transform no longer applies to table "
                    + input.tableId() + " after " + what + " at " + event.position() + ": "
                    + String.join(" ", e.problems())
                    + " Change the transform for the table's new schema and start the job again (from its"
                    + " last checkpoint or a savepoint), or set 'schema-change.behavior' = 'fail' on the"
                    + " source to stop at such a change before it is read.");
        }
        Version<P> v = new Version<>(input, work, planner.output(input, work));
        learned.computeIfAbsent(input.tableId(), k -> new HashMap<>()).put(input.toRowType(), v);
        return v;
    }

    private static List<Column> columnsOf(RowType type) {
        List<Column> columns = new ArrayList<>();
        for (RowType.RowField f : type.getFields()) {
            columns.add(Column.of(f.getName(), TypeConversions.fromLogicalToDataType(f.getType())));
        }
        return columns;
    }
}
