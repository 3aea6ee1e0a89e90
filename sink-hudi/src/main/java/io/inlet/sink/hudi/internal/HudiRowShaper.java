package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.RebuildRequiredException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.ColumnDefaults;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sends each event's row, in the Hudi table's row type, to its table's side output, from which that
 * table's Hudi writer reads. Rows of any schema version are read into the table's columns by name:
 * TINYINT and SMALLINT values as INT, a column the table holds wider (BIGINT, DOUBLE, a longer
 * DECIMAL, where the source narrowed it) widened, a column the row's version lacks left NULL. The
 * change's source position ({@link io.inlet.core.event.SourcePosition#order()}) goes where the sink
 * added the precombine column, and an empty soft-delete flag after it where the sink added that.
 * Drops {@code -U} unless the table keeps a changelog (Hudi's writer would otherwise upsert the old
 * row image).
 *
 * <p>A schema change the table's columns already take (a longer VARCHAR, a change the job was rebuilt
 * for) passes. One that adds a column or makes one nullable stops the job with a {@link
 * RebuildRequiredException}: Hudi 0.14's writer fixes its schema when it opens. One that Hudi cannot
 * take at all (a column dropped or renamed, which every row written after would overwrite with NULL;
 * a widened or other new type, which Hudi 0.14 cannot read its older files as; a new key) stops it for
 * good, naming the column.
 */
@Internal
public final class HudiRowShaper extends ProcessFunction<ChangeEvent, RowData> implements CheckpointedFunction {

    private static final long serialVersionUID = 4L;

    private static final Logger LOG = LoggerFactory.getLogger(HudiRowShaper.class);

    private final HashMap<TableId, OutputTag<RowData>> tags;
    private final HashMap<TableId, RowType> sourceTypes;
    private final HashMap<TableId, RowType> writeTypes;
    private final HashMap<TableId, Integer> added;
    private final HashMap<TableId, Boolean> changelog;
    private final HashMap<TableId, HashSet<String>> newColumns;
    /** Per table, the columns its Hudi table keeps that the source no longer has (dropped or renamed). */
    private final HashMap<TableId, HashSet<String>> keptColumns;
    /** Per table whose rows can be given a default later, where it records one and those recorded. */
    private final HashMap<TableId, HudiDefaults.Table> defaults;

    /** Per table, the recorded defaults as values of the write type, by column. */
    private transient Map<TableId, Map<String, Object>> defaultValues;

    /** The tables whose hard deletes were said. */
    private transient Set<TableId> hardDeletesSaid;

    private transient Map<TableId, Map<RowType, Shape>> shapes;
    /** Per table, the columns new to its Hudi table that no row written yet had. */
    private transient Map<TableId, Set<String>> unwritten;
    /**
     * Per table, the columns rows have written, as the job's last checkpoint kept them (union of every
     * subtask's): a restored job must know a column has values, whatever the table looked like at build.
     */
    private transient Map<TableId, Set<String>> restoredWritten;

    private transient ListState<String> writtenState;

    private static final ListStateDescriptor<String> WRITTEN =
            new ListStateDescriptor<>("hudi-written-columns", StringSerializer.INSTANCE);
    private static final char SEPARATOR = '\u0000';

    /**
     * @param sourceTypes each table's row type as the job was built (the rows that do not say theirs)
     * @param writeTypes each table's row type in Hudi
     * @param added how many columns the sink adds at the end of each table's write type (precombine, soft delete)
     * @param newColumns per table, the columns its Hudi table did not have when the job was built
     * @param keptColumns per table, the columns its Hudi table keeps though the source dropped or renamed
     *     them ({@code lenient}): rows leave them NULL, and no schema change needs them
     * @param defaults per table whose rows from before an {@code ADD COLUMN ... DEFAULT} can be given the
     *     default ({@link HudiDefaults}); a row whose version lacks a recorded column gets its default
     */
    public HudiRowShaper(
            Map<TableId, OutputTag<RowData>> tags,
            Map<TableId, RowType> sourceTypes,
            Map<TableId, RowType> writeTypes,
            Map<TableId, Integer> added,
            Map<TableId, Boolean> changelog,
            Map<TableId, ? extends Set<String>> newColumns,
            Map<TableId, ? extends Set<String>> keptColumns,
            Map<TableId, HudiDefaults.Table> defaults) {
        this.tags = new HashMap<>(tags);
        this.sourceTypes = new HashMap<>(sourceTypes);
        this.writeTypes = new HashMap<>(writeTypes);
        this.added = new HashMap<>(added);
        this.changelog = new HashMap<>(changelog);
        this.newColumns = new HashMap<>();
        newColumns.forEach((id, columns) -> this.newColumns.put(id, new HashSet<>(columns)));
        this.keptColumns = new HashMap<>();
        keptColumns.forEach((id, columns) -> this.keptColumns.put(id, new HashSet<>(columns)));
        this.defaults = new HashMap<>(defaults);
    }

    private enum Conversion {
        NONE,
        TO_INT,
        TO_LONG,
        TO_DOUBLE,
        DECIMAL
    }

    /** How rows of one source type are read into a table's write type. */
    private static final class Shape {
        final RowData.FieldGetter[] getters; // per write column; null where the source type lacks it
        final Object[] fill; // per write column the source type lacks: its recorded default, or null
        final Conversion[] conversions;
        final DecimalType[] decimals;
        final int added;
        final boolean identity;

        Shape(TableId table, RowType source, RowType write, int added, Map<String, Object> defaults) {
            int n = write.getFieldCount() - added;
            getters = new RowData.FieldGetter[n];
            fill = new Object[n];
            conversions = new Conversion[n];
            decimals = new DecimalType[n];
            this.added = added;
            boolean same = n == source.getFieldCount() && added == 0;
            for (int i = 0; i < n; i++) {
                int j = source.getFieldIndex(write.getFieldNames().get(i));
                same &= j == i;
                conversions[i] = Conversion.NONE;
                if (j < 0) {
                    // A column this version of the table does not have yet: its default where the source
                    // added it with one (the row is from before, as MySQL has it), else NULL.
                    fill[i] = defaults.get(write.getFieldNames().get(i));
                    continue;
                }
                LogicalType from = source.getTypeAt(j);
                LogicalType to = write.getTypeAt(i);
                getters[i] = RowData.createFieldGetter(from, j);
                conversions[i] = conversion(from, to);
                if (conversions[i] == Conversion.DECIMAL) {
                    decimals[i] = (DecimalType) to;
                }
                same &= conversions[i] == Conversion.NONE;
            }
            for (String column : source.getFieldNames()) {
                if (write.getFieldIndex(column) < 0) {
                    throw new InletStopException("The Hudi sink got rows of table " + table + " with a column '"
                            + column + "' its Hudi table does not have (columns: " + write.getFieldNames()
                            + "), without a schema change before them. Report this as a bug in Inlet.");
                }
            }
            identity = same;
        }

        private static Conversion conversion(LogicalType from, LogicalType to) {
            LogicalTypeRoot a = from.getTypeRoot();
            LogicalTypeRoot b = to.getTypeRoot();
            if (b == LogicalTypeRoot.INTEGER && (a == LogicalTypeRoot.TINYINT || a == LogicalTypeRoot.SMALLINT)) {
                return Conversion.TO_INT;
            }
            if (b == LogicalTypeRoot.BIGINT && a != LogicalTypeRoot.BIGINT) {
                return Conversion.TO_LONG;
            }
            if (b == LogicalTypeRoot.DOUBLE && a == LogicalTypeRoot.FLOAT) {
                return Conversion.TO_DOUBLE;
            }
            if (b == LogicalTypeRoot.DECIMAL && !from.copy(true).equals(to.copy(true))) {
                return Conversion.DECIMAL;
            }
            return Conversion.NONE;
        }
    }

    @Override
    public void processElement(ChangeEvent event, Context ctx, Collector<RowData> out) {
        TableId id = event.tableId();
        OutputTag<RowData> tag = tags.get(id);
        if (tag == null) {
            throw new IllegalStateException(
                    "The Hudi sink got an event of table " + id + ", which it was not built for.");
        }
        if (event.isSchemaChange()) {
            check(event);
            return;
        }
        RowData row = event.row();
        if (row.getRowKind() == RowKind.UPDATE_BEFORE && !changelog.get(id)) {
            return; // the +U that follows carries the row; Hudi applies upserts by key
        }
        if (shapes == null) {
            shapes = new HashMap<>();
        }
        RowType type = event.rowType().orElse(sourceTypes.get(id));
        Shape shape = shapes.computeIfAbsent(id, k -> new HashMap<>()).computeIfAbsent(type, t -> {
            unwritten(id).removeAll(t.getFieldNames()); // from here on the table holds values of these columns
            return new Shape(id, t, writeTypes.get(id), added.get(id), defaultValues(id));
        });
        if (!shape.identity) {
            row = reshape(shape, row, event.position().order());
        }
        if (row.getRowKind() == RowKind.DELETE && filling(id)) {
            row = softDelete(id, (GenericRowData) row);
        }
        ctx.output(tag, row);
    }

    /** The columns the table keeps though the source no longer has them. */
    private Set<String> kept(TableId id) {
        Set<String> k = keptColumns.get(id);
        return k == null ? Set.of() : k;
    }

    private boolean filling(TableId id) {
        HudiDefaults.Table t = defaults.get(id);
        return t != null && t.filling();
    }

    /**
     * The delete as a soft one: the row's values with Hudi's {@code _hoodie_is_deleted} set, an upsert that
     * every merge orders by its ordering value. While the job gives rows from before an added column its
     * default, such a row of the same key may reach the writer after the delete, and Hudi 0.14 lets any record
     * that follows a hard delete win. A row without a value where the table needs one (a key-only before
     * image) stays a hard delete, said once.
     */
    private RowData softDelete(TableId id, GenericRowData row) {
        RowType write = writeTypes.get(id);
        int deleted = write.getFieldCount() - 1;
        for (int i = 0; i < deleted; i++) {
            if (row.isNullAt(i) && !write.getTypeAt(i).isNullable()) {
                if (hardDeletesSaid == null) {
                    hardDeletesSaid = new HashSet<>();
                }
                if (hardDeletesSaid.add(id)) {
                    LOG.warn(
                            "Hudi table of {}: a delete without a value of the NOT NULL column '{}' (a before image of"
                                    + " the key only) is written as a hard delete while the rows from before an"
                                    + " added column are given its default; such a row may come back if it is"
                                    + " among them.",
                            id,
                            write.getFieldNames().get(i));
                }
                return row;
            }
        }
        GenericRowData out = new GenericRowData(RowKind.INSERT, row.getArity());
        for (int i = 0; i < deleted; i++) {
            out.setField(i, row.getField(i));
        }
        out.setField(deleted, true);
        return out;
    }

    /** The table's recorded defaults as values of its write type, by column; kept columns have none. */
    private Map<String, Object> defaultValues(TableId id) {
        if (defaultValues == null) {
            defaultValues = new HashMap<>();
        }
        return defaultValues.computeIfAbsent(id, k -> {
            Map<String, Object> out = new HashMap<>();
            HudiDefaults.Table table = defaults.get(k);
            if (table == null) {
                return out;
            }
            RowType write = writeTypes.get(k);
            for (HudiDefaults.Added a : table.recorded()) {
                int i = write.getFieldIndex(a.column());
                if (i < 0 || i >= write.getFieldCount() - added.get(k) || kept(k).contains(a.column())) {
                    continue;
                }
                try {
                    out.put(a.column(), ColumnDefaults.parse(a.defaultText(), write.getTypeAt(i)));
                } catch (IllegalArgumentException e) {
                    LOG.warn(
                            "Hudi table of {}: the recorded default {} is no value of {}; rows without the column"
                                    + " get NULL there.",
                            k,
                            a,
                            write.getTypeAt(i).asSummaryString(),
                            e);
                }
            }
            return out;
        });
    }

    private Set<String> unwritten(TableId id) {
        if (unwritten == null) {
            unwritten = new HashMap<>();
        }
        return unwritten.computeIfAbsent(id, k -> {
            Set<String> written = restoredWritten == null ? null : restoredWritten.get(k);
            if (written == null) {
                // A fresh start (or state from before this was kept): what the table lacked at build.
                return new HashSet<>(newColumns.getOrDefault(k, new HashSet<>()));
            }
            Set<String> out = new HashSet<>(dataColumns(k));
            out.removeAll(written);
            return out;
        });
    }

    private List<String> dataColumns(TableId id) {
        RowType write = writeTypes.get(id);
        return write.getFieldNames().subList(0, write.getFieldCount() - added.get(id));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        writtenState = context.getOperatorStateStore().getUnionListState(WRITTEN);
        restoredWritten = new HashMap<>();
        if (context.isRestored()) {
            for (String entry : writtenState.get()) {
                int at = entry.indexOf(SEPARATOR);
                TableId id = tableIds().get(entry.substring(0, at));
                if (id != null) {
                    restoredWritten.computeIfAbsent(id, k -> new HashSet<>()).add(entry.substring(at + 1));
                }
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        writtenState.clear();
        List<String> entries = new ArrayList<>();
        for (TableId id : writeTypes.keySet()) {
            Set<String> missing = unwritten(id);
            for (String column : dataColumns(id)) {
                if (!missing.contains(column)) {
                    entries.add(id.identifier() + SEPARATOR + column);
                }
            }
        }
        writtenState.addAll(entries);
    }

    private Map<String, TableId> tableIds() {
        Map<String, TableId> out = new HashMap<>();
        writeTypes.keySet().forEach(id -> out.put(id.identifier(), id));
        return out;
    }

    /**
     * Lets a schema change pass when the table's columns take its rows as they are; otherwise stops the
     * job, for a rebuild where Hudi can take the change after one, for good where it cannot. A version
     * without a column that is new to the table and that no row has written yet passes: its rows come
     * from before the column was added (a job rebuilt for the column reads again from the checkpoint
     * before it), and NULL is their value.
     */
    private void check(ChangeEvent event) {
        SchemaChange change = event.schemaChange();
        TableId id = event.tableId();
        RowType write = writeTypes.get(id);
        int n = write.getFieldCount() - added.get(id);
        RowType after = change.after().toRowType();
        String what = " the schema change of table " + id + " " + change.changes()
                + change.statement().map(s -> " (" + s + ")").orElse("") + " at " + event.position();
        List<String> cannot = new ArrayList<>();
        List<String> rebuild = new ArrayList<>();
        if (change.primaryKeyChanged()) {
            cannot.add("the primary key changed to " + change.after().primaryKey() + ", and Hudi keys the table's"
                    + " rows by " + change.before().primaryKey());
        }
        for (int i = 0; i < n; i++) {
            String column = write.getFieldNames().get(i);
            if (after.getFieldIndex(column) < 0 && !unwritten(id).contains(column) && !kept(id).contains(column)) {
                cannot.add("column '" + column + "' is no longer in the rows (dropped or renamed), and Hudi 0.14"
                        + " writes whole rows, so each row written from now on would overwrite its value with NULL."
                        + " To keep the column and its values, set 'exclude.schema.changes' = 'drop.column,"
                        + " rename.column' on the source");
            }
        }
        for (RowType.RowField f : after.getFields()) {
            int i = write.getFieldIndex(f.getName());
            if (i < 0 || i >= n) {
                rebuild.add("column '" + f.getName() + "' " + f.getType().asSummaryString() + " is new");
                continue;
            }
            LogicalType have = write.getTypeAt(i);
            LogicalType now = f.getType();
            if (HudiColumns.widens(have, now)) {
                cannot.add("column '" + f.getName() + "' widened from " + have.asSummaryString() + " to "
                        + now.asSummaryString() + ". " + HudiColumns.NO_WIDENING);
            } else if (!(kept(id).contains(f.getName())
                            ? HudiColumns.sameAvro(now, have) // typed from the table's Avro field, without precision
                            : HudiColumns.storedAlike(now, have))
                    && !HudiColumns.widens(now, have)) {
                cannot.add("column '" + f.getName() + "' changed from " + have.asSummaryString() + " to "
                        + now.asSummaryString() + ", which Hudi cannot read its rows written before as");
            } else if (now.isNullable() && !have.isNullable()) { // the table's column holds every value, not NULL
                rebuild.add("column '" + f.getName() + "' became nullable");
            }
        }
        if (!cannot.isEmpty()) {
            throw new InletStopException("The Hudi sink cannot follow" + what + ": " + String.join("; ", cannot)
                    + ". The job stops before any row of the new shape is written.");
        }
        HudiDefaults.Table table = defaults.get(id);
        for (ColumnChange c : change.changes()) {
            if (c.kind() != ColumnChange.Kind.ADDED || c.defaultValue().isEmpty()) {
                continue;
            }
            long order = event.position().order();
            // Only a binlog position orders the change among the rows' ordering values (a Kafka offset does not).
            if (table == null || event.position().kind() != SourcePosition.Kind.BINLOG) {
                // Said where it happens: without the sink's own ordering and soft deletes the rows cannot be
                // given their default safely (see HudiSink).
                LOG.warn(
                        "Hudi table of {}: column '{}' was added with the default '{}', which MySQL shows in the rows"
                                + " that existed before; the Hudi sink cannot give them that value here ({}): they"
                                + " read NULL there until each changes.",
                        id,
                        c.column(),
                        c.defaultValue().get(),
                        table == null
                                ? "the table is not ordered by the sink's own '_source_position' with soft deletes"
                                : "the change has no binlog position to tell the rows before it by");
                continue;
            }
            if (table.recorded(c.column()).isPresent()) {
                continue; // recorded by the job that met it first: the job built after it gives the default
            }
            HudiDefaults.record(
                    table.path(),
                    HudiDefaults.Added.of(c.column(), c.defaultValue().get(), order),
                    table.hadoopConf());
            rebuild.add("column '" + c.column() + "' was added with the default '"
                    + c.defaultValue().get()
                    + "', which the rows from before it take (recorded in the table: the next job gives it to"
                    + " them)");
        }
        if (!rebuild.isEmpty()) {
            throw new RebuildRequiredException(
                    id.toString(),
                    event.position().toString(),
                    "The Hudi sink needs a new job for" + what + ": " + String.join("; ", rebuild)
                            + ", and Hudi 0.14's writer fixes its schema when it opens. The job stops before"
                            + " any row of the new shape is written. Run under Inlet's PipelineRunner (every Inlet"
                            + " job jar is), it is rebuilt with the table's new schema and restored from its"
                            + " latest checkpoint by itself; otherwise start it again from that checkpoint.");
        }
        LOG.info(
                "The Hudi table takes{} as it is (columns {}).",
                what,
                write.getFieldNames().subList(0, n));
    }

    private static RowData reshape(Shape shape, RowData row, long order) {
        int n = shape.getters.length;
        GenericRowData out = new GenericRowData(row.getRowKind(), n + shape.added);
        for (int i = 0; i < n; i++) {
            if (shape.getters[i] == null) {
                out.setField(i, shape.fill[i]); // already of the write type
                continue;
            }
            Object v = shape.getters[i].getFieldOrNull(row);
            if (v != null) {
                switch (shape.conversions[i]) {
                    case TO_INT:
                        v = ((Number) v).intValue();
                        break;
                    case TO_LONG:
                        v = ((Number) v).longValue();
                        break;
                    case TO_DOUBLE:
                        v = ((Number) v).doubleValue();
                        break;
                    case DECIMAL:
                        DecimalType d = shape.decimals[i];
                        v = DecimalData.fromBigDecimal(
                                ((DecimalData) v).toBigDecimal(), d.getPrecision(), d.getScale());
                        break;
                    default:
                        break;
                }
            }
            out.setField(i, v);
        }
        if (shape.added > 0) {
            out.setField(n, order);
        }
        return out;
    }
}
