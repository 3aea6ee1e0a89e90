package io.inlet.sink.hudi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.spi.SnapshotSignals;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.sink.hudi.internal.HoodieRecordKryoSerializer;
import io.inlet.sink.hudi.internal.HudiColumns;
import io.inlet.sink.hudi.internal.HudiDefaults;
import io.inlet.sink.hudi.internal.HudiDefaultsBackfill;
import io.inlet.sink.hudi.internal.HudiRowShaper;
import io.inlet.sink.hudi.internal.HudiTableSpec;
import io.inlet.sink.hudi.internal.HudiTables;
import io.inlet.sink.hudi.internal.HudiWriters;
import io.inlet.sink.hudi.internal.SnapshotReconciler;

import org.apache.avro.Schema;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.util.OutputTag;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes each table to its own Hudi table at {@code <path>/<database>/<table>} through Hudi's Flink
 * writer: MERGE_ON_READ by default (COPY_ON_WRITE available), the primary key as record key, a
 * precombine field that orders versions of a row (by default the change's position in its source,
 * {@link io.inlet.core.event.SourcePosition#order()}, in a column the sink adds), optional partition
 * fields. Names are handed to Hudi as they are, never through a SQL parser. Hudi creates a missing table on
 * the first write; an existing one is checked first. Data is committed on checkpoints. When the
 * source takes a snapshot from scratch over tables that hold rows, the rows it no longer finds are
 * deleted ({@link HudiSinkOptions#RECONCILE_SNAPSHOTS}).
 *
 * <pre>{@code
 * HudiSink sink = HudiSink.builder()
 *     .path("s3a://lake/hudi")
 *     .option("compaction.delta_commits", "5")
 *     .option("index.type", "BUCKET")
 *     .partitionFields("inventory.orders", "region")
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class HudiSink implements ChangeSink {

    private static final Logger LOG = LoggerFactory.getLogger(HudiSink.class);

    private final String path;
    private final String tableType;

    @Nullable
    private final String precombineField;

    private final boolean changelog;
    private final String defaultDatabase;
    private final Map<String, String> hudiOptions;
    private final Map<String, List<String>> partitionFields;
    private final boolean reconcileSnapshots;
    /** What the sink found at each table's path, read once per build (the sink is used where the job is built). */
    private final transient Map<TableId, Optional<Properties>> existingTables = new HashMap<>();

    /** Built once: every look at the tables would otherwise parse Hadoop's defaults again. */
    private transient Configuration hadoopConf;
    /** Each existing table's schema now (its newest commit's), read once per build. */
    private final transient Map<TableId, Optional<Schema>> currentSchemas = new HashMap<>();
    /**
     * Whether the source keeps dropped and renamed columns in the lake, as the last build said: the
     * table's columns the rows lack are then written on, NULL.
     */
    private transient boolean droppedColumnsKept;

    private HudiSink(Builder b) {
        this.path = b.path.replaceAll("/+$", "");
        this.tableType = b.tableType;
        this.precombineField = b.precombineField;
        this.changelog = b.changelog;
        this.defaultDatabase = b.defaultDatabase;
        this.hudiOptions = new LinkedHashMap<>(b.hudiOptions);
        this.partitionFields = new LinkedHashMap<>(b.partitionFields);
        this.reconcileSnapshots = b.reconcileSnapshots;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "hudi";
    }

    @Override
    public boolean requiresCheckpointing() {
        return true;
    }

    @Override
    public boolean requiresPrimaryKey() {
        return true;
    }

    /** Where a table is written. */
    public String tablePath(TableId id) {
        return path + "/" + (id.database() == null ? defaultDatabase : id.database()) + "/" + id.table();
    }

    /** Hudi's table name: it also names the writer's operator uids, so it must stay stable. */
    private static String hudiName(TableId id) {
        return (id.database() == null ? "" : id.database() + "__").replaceAll("[^A-Za-z0-9_]", "_")
                + id.table().replaceAll("[^A-Za-z0-9_]", "_");
    }

    private String precombine(TableDescriptor t) {
        return precombineField != null ? precombineField : HudiSinkOptions.SOURCE_POSITION_COLUMN;
    }

    private boolean addsPrecombine(TableDescriptor t) {
        return precombineField == null;
    }

    /** Hudi's payload that compares ordering values before it applies a delete, in every merge. */
    static final String ORDERED_PAYLOAD = "org.apache.hudi.common.model.DefaultHoodieRecordPayload";

    /**
     * Whether the table takes soft deletes (Hudi's {@code _hoodie_is_deleted} column, written with
     * {@link #ORDERED_PAYLOAD}), which the sink writes for rows a new snapshot no longer finds: with
     * reconciliation on, the sink's own precombine column, no changelog and no payload of the user's;
     * a new table gets them, an existing one only if it was created with them.
     */
    private boolean softDeletes(TableDescriptor t) {
        if (!reconcileSnapshots || !addsPrecombine(t) || changelog || hudiOptions.containsKey(PAYLOAD_CLASS)) {
            return false;
        }
        Optional<Properties> existing = existing(t);
        return existing.isEmpty()
                || (HudiTables.hasColumn(existing.get(), HudiSinkOptions.DELETED_COLUMN)
                        && ORDERED_PAYLOAD.equals(existing.get().getProperty("hoodie.compaction.payload.class")));
    }

    private static final String PAYLOAD_CLASS = "payload.class";
    private static final String INDEX_BOOTSTRAP = "index.bootstrap.enabled";
    private static final String INDEX_BOOTSTRAP_TASKS =
            "write.index_bootstrap.tasks"; // FlinkOptions.INDEX_BOOTSTRAP_TASKS
    private static final String ALLOW_EMPTY_COMMIT = "hoodie.allow.empty.commit";

    /**
     * Whether the writer loads the existing table's keys into its index when the job starts: with
     * Hudi's default index (Flink state), a job without state would otherwise know no key, and a row
     * of a key the table has would land in another file group, next to the old one (a duplicate).
     * Costs a read of the table's keys at each start; not with an index of the user's choosing.
     */
    private boolean bootstrapsIndex(TableDescriptor t) {
        return existing(t).isPresent()
                && !hudiOptions.containsKey("index.type")
                && !hudiOptions.containsKey(INDEX_BOOTSTRAP);
    }

    /** The table's {@code hoodie.properties}, if it exists; read once per table. */
    private Optional<Properties> existing(TableDescriptor t) {
        return existingTables.computeIfAbsent(t.tableId(), id -> {
            try {
                return HudiTables.properties(tablePath(id), hadoopConf());
            } catch (IOException e) {
                throw new InletValidationException(
                        "Cannot read the Hudi table at " + tablePath(id) + ": " + e
                                + ". Check 'path' and its file system's settings.",
                        e);
            }
        });
    }

    /** The existing table's schema now, if the table exists. */
    private Optional<Schema> currentSchema(TableDescriptor t) {
        return currentSchemas.computeIfAbsent(t.tableId(), id -> {
            Optional<Properties> existing = existing(t);
            if (existing.isEmpty()) {
                return Optional.empty();
            }
            try {
                return HudiTables.currentSchema(tablePath(id), existing.get(), hadoopConf());
            } catch (IOException e) {
                throw new InletValidationException(
                        "Cannot read the timeline of the Hudi table at " + tablePath(id) + ": " + e
                                + ". Check 'path' and its file system's settings.",
                        e);
            }
        });
    }

    private List<String> partitions(TableDescriptor t) {
        return partitionFields.getOrDefault(t.tableId().identifier(), t.partitionKeys());
    }

    @Override
    public List<String> targetTables(List<TableDescriptor> tables) {
        return tables.stream().map(t -> "hudi:" + tablePath(t.tableId())).collect(Collectors.toList());
    }

    /** Where the sink writes: its base path. */
    @Override
    public String uidSeed() {
        return path;
    }

    /** Hudi 0.14's writers fix their schema when they open: added and widened columns need a new job. */
    @Override
    public boolean rebuildsForSchemaChanges() {
        return true;
    }

    @Override
    public void validate(List<TableDescriptor> tables) {
        validate(tables, false);
    }

    /**
     * As {@link #validate(List)}; when the source follows schema changes, an existing table may lack
     * columns the rows have (added since it was written: the job writes them on, nullable) or hold a
     * column wider than the rows (it stays). A column the table has and the rows do not (dropped or
     * renamed) is refused: Hudi writes whole rows and would overwrite its values with NULL; so is a
     * column the rows have wider, which Hudi 0.14 cannot read its older files as.
     */
    @Override
    public void validate(List<TableDescriptor> tables, boolean schemaChangesFollowed) {
        validate(tables, schemaChangesFollowed, false);
    }

    /**
     * As {@link #validate(List, boolean)}; when the source keeps dropped and renamed columns in the lake
     * ({@code schema-change.behavior} = {@code lenient}, or {@code exclude.schema.changes} with {@code
     * drop.column} or {@code rename.column}), a column the existing table has and the rows lack is no
     * problem either: the sink writes it on, NULL in every row written from now on, as the job before it
     * did after the drop or rename. {@link #writeRowType} then has it after the rows' columns.
     */
    @Override
    public void validate(List<TableDescriptor> tables, boolean schemaChangesFollowed, boolean droppedColumnsKept) {
        this.droppedColumnsKept = schemaChangesFollowed && droppedColumnsKept;
        existingTables.clear(); // a sink may serve several pipelines, one after another: read the tables again
        currentSchemas.clear();
        List<String> problems = new ArrayList<>();
        for (String key : partitionFields.keySet()) {
            if (tables.stream().noneMatch(t -> t.tableId().identifier().equals(key))) {
                problems.add("'partition-fields." + key + "' names no table of the pipeline; its tables are "
                        + tables.stream().map(t -> t.tableId().identifier()).collect(Collectors.toList()) + ".");
            }
        }
        for (TableDescriptor t : tables) {
            String pre = precombine(t);
            if (addsPrecombine(t) && t.indexOf(pre) >= 0) {
                problems.add("Table " + t.tableId() + " already has a column '" + pre
                        + "', the precombine column the Hudi sink"
                        + " would add. Name the ordering column with 'precombine.field'.");
            } else if (softDeletes(t) && t.indexOf(HudiSinkOptions.DELETED_COLUMN) >= 0) {
                problems.add("Table " + t.tableId() + " has a column '" + HudiSinkOptions.DELETED_COLUMN
                        + "', which Hudi reads as"
                        + " 'this row is deleted'. Leave it out at the source ('exclude-columns')" + " or"
                        + " rename it in a projection.");
            } else if (!addsPrecombine(t) && t.indexOf(pre) < 0) {
                problems.add("'precombine.field' = '" + pre + "' is no column of table " + t.tableId() + " (columns: "
                        + String.join(", ", t.columnNames()) + ").");
            }
            for (Column c : t.columns()) {
                LogicalType type = c.type().getLogicalType();
                int precision = type instanceof TimestampType
                        ? ((TimestampType) type).getPrecision()
                        : type instanceof LocalZonedTimestampType ? ((LocalZonedTimestampType) type).getPrecision() : 0;
                if (precision > 6) {
                    problems.add(
                            "Column " + t.tableId() + "." + c.name() + " is " + type.asSummaryString() + "; Hudi stores"
                                    + " timestamps with at most microseconds, so its nanoseconds would be"
                                    + " lost. Leave" + " the column out at"
                                    + " the source or write the table elsewhere.");
                }
            }
            for (String p : partitions(t)) {
                if (t.indexOf(p) < 0) {
                    problems.add("The partition field '" + p + "' is no column of table " + t.tableId() + ".");
                }
            }
            try {
                Optional<Properties> existing = existing(t); // read once per build, as currentSchema(t) does
                if (existing.isPresent()) {
                    problems.addAll(HudiTables.differences(
                            tablePath(t.tableId()),
                            existing.get(),
                            currentSchema(t).orElse(null),
                            t,
                            tableType,
                            pre,
                            partitions(t),
                            addsPrecombine(t),
                            schemaChangesFollowed,
                            this.droppedColumnsKept));
                }
            } catch (InletValidationException e) {
                problems.addAll(e.problems()); // the table cannot be read: the message names the path and the fix
            } catch (RuntimeException e) {
                problems.add("Cannot read the Hudi table at " + tablePath(t.tableId()) + ": " + e
                        + ". Check 'path' and its" + " file system's settings.");
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
    }

    /**
     * The row type of the Hudi table written for a table: its columns, with TINYINT and SMALLINT
     * widened to INT (Parquet stores them as 32-bit ints, and Hudi's Flink reader fails on base files
     * it must read into a SMALLINT column) and TIME at millisecond precision (what Flink's TIME holds,
     * the most Hudi's Avro TIME takes); a column an existing table lacks nullable (its rows written
     * before have none), one it holds wider in its wider type; then the precombine column the sink
     * adds, if it adds one. A Flink SQL reader of the table declares these columns.
     */
    public RowType writeRowType(TableDescriptor t) {
        List<RowType.RowField> fields = new ArrayList<>();
        Optional<Schema> table = currentSchema(t);
        for (Column c : t.columns()) {
            LogicalType type = HudiColumns.written(c.type().getLogicalType());
            if (table.isPresent()) {
                Schema.Field f = table.get().getField(c.name());
                LogicalType held = f == null ? null : HudiColumns.numeric(f.schema());
                if (f == null) {
                    type = type.copy(true);
                } else if (held != null && HudiColumns.widens(type, held)) {
                    type = held.copy(type.isNullable() || held.isNullable());
                } else if (HudiColumns.nullable(f.schema())) {
                    // E.g. added NOT NULL with a default: the rows from before hold NULL, so it stays nullable.
                    type = type.copy(true);
                }
            }
            fields.add(new RowType.RowField(c.name(), type, c.comment().orElse(null)));
        }
        for (Schema.Field kept : keptColumns(t)) {
            fields.add(new RowType.RowField(
                    kept.name(),
                    HudiColumns.flinkType(kept.schema()),
                    "no longer at the source (dropped or renamed); NULL in rows written since"));
        }
        if (addsPrecombine(t)) {
            fields.add(new RowType.RowField(
                    precombine(t),
                    new BigIntType(false),
                    "the change's position in its source (binlog file, position and row, or the"
                            + " Kafka record's); orders versions"));
        }
        if (softDeletes(t)) {
            fields.add(new RowType.RowField(
                    HudiSinkOptions.DELETED_COLUMN,
                    new BooleanType(true),
                    "Hudi's soft-delete flag: set only on deletes the sink writes, which readers never see"));
        }
        return new RowType(false, fields);
    }

    /**
     * The existing table's columns the rows of {@code t} lack, in the table's order, where the source
     * keeps dropped and renamed columns; else none.
     */
    private List<Schema.Field> keptColumns(TableDescriptor t) {
        Optional<Schema> table = currentSchema(t);
        if (!droppedColumnsKept || table.isEmpty()) {
            return List.of();
        }
        return table.get().getFields().stream()
                .filter(f -> !f.name().startsWith("_hoodie_") && t.indexOf(f.name()) < 0)
                .filter(f -> !(addsPrecombine(t) && f.name().equals(precombine(t))))
                .collect(Collectors.toList());
    }

    /**
     * When the checkpoint or savepoint the job restores from completed (its metadata file's time), {@link
     * Long#MAX_VALUE} for a job that restores none, {@link Long#MIN_VALUE} when it cannot be told: a
     * default marked given after it is given again (see {@link HudiDefaults.Added#givenBefore}).
     */
    private static long restoredAt(StreamExecutionEnvironment env) {
        Optional<String> restore = env.getConfiguration().getOptional(SavepointConfigOptions.SAVEPOINT_PATH);
        if (restore.isEmpty()) {
            return Long.MAX_VALUE;
        }
        try {
            org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(restore.get());
            if (!path.getName().equals("_metadata")) {
                path = new org.apache.flink.core.fs.Path(path, "_metadata");
            }
            return path.getFileSystem().getFileStatus(path).getModificationTime();
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Cannot tell when the checkpoint {} the job restores from completed; the defaults of added"
                            + " columns are given to the rows from before them again.",
                    restore.get(),
                    e);
            return Long.MIN_VALUE;
        }
    }

    /** The table's delta commits in flight now, left by the job before this one. */
    private Set<String> writesAtBuild(TableDescriptor t) {
        try {
            return HudiTables.pendingWrites(tablePath(t.tableId()), hadoopConf());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot read the timeline of the Hudi table at " + tablePath(t.tableId()), e);
        }
    }

    @Override
    public void addSink(DataStream<ChangeEvent> stream, SinkContext context) {
        droppedColumnsKept = context.schemaChangesFollowed() && context.droppedColumnsKept();
        // Hudi's writer sends its records between operators through Kryo; see the serializer for why.
        HoodieRecordKryoSerializer.register(stream.getExecutionEnvironment().getConfig());
        Map<TableId, OutputTag<RowData>> tags = new LinkedHashMap<>();
        Map<TableId, RowType> sourceTypes = new HashMap<>();
        Map<TableId, Boolean> keepChangelog = new HashMap<>();
        Map<TableId, RowType> writeTypes = new HashMap<>();
        Map<TableId, Integer> added = new HashMap<>();
        Map<TableId, Set<String>> newColumns = new HashMap<>();
        Map<TableId, Set<String>> kept = new HashMap<>();
        Map<TableId, HudiDefaults.Table> defaults = new HashMap<>();
        Map<TableId, HudiDefaultsBackfill.TableFill> fills = new LinkedHashMap<>();
        // Read once: when the checkpoint the job restores from completed, against which defaults marked given count.
        long restoredAt = restoredAt(stream.getExecutionEnvironment());
        for (TableDescriptor t : context.tables()) {
            kept.put(
                    t.tableId(), keptColumns(t).stream().map(Schema.Field::name).collect(Collectors.toSet()));
            Optional<Schema> table = currentSchema(t);
            newColumns.put(
                    t.tableId(),
                    // A table this job creates has no rows from before any change: nothing is new to it.
                    t.columnNames().stream()
                            .filter(c -> table.isPresent() && table.get().getField(c) == null)
                            .collect(Collectors.toSet()));
            RowType source = t.toRowType();
            RowType write = writeRowType(t);
            sourceTypes.put(t.tableId(), source);
            writeTypes.put(t.tableId(), write);
            added.put(t.tableId(), (addsPrecombine(t) ? 1 : 0) + (softDeletes(t) ? 1 : 0));
            keepChangelog.put(t.tableId(), changelog);
            tags.put(t.tableId(), new OutputTag<>("hudi-" + t.tableId().identifier(), InternalTypeInfo.of(write)));
            if (softDeletes(t)) {
                // Ordered by the sink's own position, deletes compared by it: rows can be given a default later.
                List<HudiDefaults.Added> recorded =
                        table.isPresent() ? HudiDefaults.read(tablePath(t.tableId()), hadoopConf()) : List.of();
                Set<String> keptHere = kept.get(t.tableId());
                List<HudiDefaults.Added> pending = recorded.stream()
                        .filter(a -> !a.givenBefore(restoredAt))
                        // a column the source no longer has stays NULL in the rows written from now on
                        .filter(a -> write.getFieldIndex(a.column()) >= 0 && !keptHere.contains(a.column()))
                        .collect(Collectors.toList());
                defaults.put(
                        t.tableId(),
                        new HudiDefaults.Table(tablePath(t.tableId()), recorded, !pending.isEmpty(), hudiOptions));
                if (!pending.isEmpty()) {
                    // Read as the table is now: without the columns it does not have yet.
                    RowType read = new RowType(
                            false,
                            write.getFields().stream()
                                    .filter(f -> table.get().getField(f.getName()) != null)
                                    .collect(Collectors.toList()));
                    fills.put(
                            t.tableId(),
                            new HudiDefaultsBackfill.TableFill(
                                    spec(t, read),
                                    write,
                                    tags.get(t.tableId()),
                                    tablePath(t.tableId()),
                                    precombine(t),
                                    pending,
                                    writesAtBuild(t)));
                    LOG.info(
                            "Hudi table {}: gives the rows from before a change the default of {}",
                            hudiName(t.tableId()),
                            pending);
                }
            }
        }
        SingleOutputStreamOperator<RowData> split = stream.process(
                        new HudiRowShaper(
                                tags, sourceTypes, writeTypes, added, keepChangelog, newColumns, kept, defaults),
                        tags.values().iterator().next().getTypeInfo())
                .name("Hudi: split by table")
                .uid(context.uid("split"))
                .setParallelism(stream.getParallelism());
        SingleOutputStreamOperator<RowData> reconciler = reconciler(context, tags, writeTypes);
        // Only in a job built while a table has defaults pending: stateless, so the next job may leave it out.
        SingleOutputStreamOperator<RowData> backfill = fills.isEmpty()
                ? null
                : stream.filter(HudiDefaultsBackfill.NO_EVENTS)
                        .name("Hudi: no events")
                        .uid(context.uid("defaults-input"))
                        .setParallelism(stream.getParallelism())
                        .transform(
                                "Hudi: give rows from before an added column its default",
                                tags.values().iterator().next().getTypeInfo(),
                                new HudiDefaultsBackfill(new ArrayList<>(fills.values())))
                        .uid(context.uid("defaults"))
                        .setParallelism(1);
        for (TableDescriptor t : context.tables()) {
            List<String> parts = partitions(t);
            DataStream<RowData> rows = split.getSideOutput(tags.get(t.tableId()));
            if (reconciler != null && softDeletes(t)) {
                rows = rows.union(reconciler.getSideOutput(tags.get(t.tableId())));
            }
            if (fills.containsKey(t.tableId())) {
                rows = rows.union(backfill.getSideOutput(tags.get(t.tableId())));
            }
            HudiWriters.write(rows, spec(t, writeTypes.get(t.tableId())));
            LOG.info(
                    "Hudi table {} at {}: {} keyed by {}, precombine {}{}",
                    hudiName(t.tableId()),
                    tablePath(t.tableId()),
                    tableType,
                    t.primaryKey(),
                    precombine(t),
                    parts.isEmpty() ? "" : ", partitioned by " + parts);
        }
    }

    /** Per table: its path, whether it exists, its key, ordering and partitions. Reads only. */
    @Override
    public List<String> describe(List<TableDescriptor> tables) {
        List<String> out = new ArrayList<>();
        for (TableDescriptor t : tables) {
            List<String> parts = partitions(t);
            out.add(tablePath(t.tableId()) + ": " + (existing(t).isPresent() ? "exists" : "will be created") + ", "
                    + tableType
                    + ", record key " + t.primaryKey() + ", precombine " + precombine(t)
                    + (parts.isEmpty() ? "" : ", partitioned by " + parts)
                    + (changelog ? ", keeps a changelog" : "")
                    + (softDeletes(t) ? "; a snapshot from scratch deletes rows it no longer finds" : "")
                    + (bootstrapsIndex(t) ? "; loads its keys into the index when the job starts" : ""));
        }
        return out;
    }

    /**
     * The operator that deletes the rows a new snapshot from scratch no longer finds, when the source
     * sends snapshot signals and a table can take soft deletes; null otherwise.
     */
    @Nullable
    private SingleOutputStreamOperator<RowData> reconciler(
            SinkContext context, Map<TableId, OutputTag<RowData>> tags, Map<TableId, RowType> writeTypes) {
        if (!reconcileSnapshots || !context.snapshotSignals().isPresent()) {
            return null;
        }
        List<SnapshotReconciler.TableRead> reads = new ArrayList<>();
        for (TableDescriptor t : context.tables()) {
            if (existing(t).isEmpty()) {
                continue; // created by this job: a snapshot fills it, nothing older to delete
            }
            if (softDeletes(t)) {
                reads.add(new SnapshotReconciler.TableRead(
                        spec(t, writeTypes.get(t.tableId())),
                        tags.get(t.tableId()),
                        precombine(t),
                        HudiSinkOptions.DELETED_COLUMN));
            } else {
                LOG.warn(
                        "Hudi table {}: rows a new snapshot from scratch no longer finds stay in the"
                                + " table: deleting them needs"
                                + " the sink's own precombine column, changelog.enabled=false, no" + " 'payload.class'"
                                + " of yours, and a table"
                                + " this version created (with the column {} and {}).",
                        tablePath(t.tableId()),
                        HudiSinkOptions.DELETED_COLUMN,
                        ORDERED_PAYLOAD);
            }
        }
        if (reads.isEmpty()) {
            return null;
        }
        SnapshotSignals signals = context.snapshotSignals().get();
        return signals.stream()
                .transform(
                        "Hudi: delete rows a new snapshot no longer finds",
                        tags.values().iterator().next().getTypeInfo(),
                        new SnapshotReconciler(reads, signals.snapshotOrder()))
                .uid(context.uid("snapshot-reconciler"))
                .setParallelism(1);
    }

    /** The Hadoop configuration of the sink's own look at its tables: the {@code hadoop.*} options. */
    private Configuration hadoopConf() {
        if (hadoopConf == null) {
            hadoopConf = HudiTables.hadoopConf(hudiOptions);
        }
        return hadoopConf;
    }

    /** What Hudi's table factory gets for the table. */
    private HudiTableSpec spec(TableDescriptor t, RowType writeType) {
        Map<String, String> comments = new HashMap<>();
        t.columns().forEach(c -> c.comment().ifPresent(text -> comments.put(c.name(), text)));
        return HudiTableSpec.of(hudiName(t.tableId()), writeType, comments, t.primaryKey(), partitions(t), options(t));
    }

    private static final String HIVE_SYNC_ENABLED = "hive_sync.enabled";
    private static final String HIVE_SYNC_DB = "hive_sync.db";
    private static final String HIVE_SYNC_TABLE = "hive_sync.table";
    private static final String HIVE_SYNC_AS_DATASOURCE = "hoodie.datasource.hive_sync.sync_as_datasource";

    /** The options Hudi's writer of the table gets. */
    @VisibleForTesting
    Map<String, String> options(TableDescriptor t) {
        Map<String, String> o = new LinkedHashMap<>();
        // Without a changelog: one version per key in each write batch, the later on equal ordering
        // values. Otherwise a MERGE_ON_READ batch holding a delete and a re-insert of one key writes
        // the insert's data block before the delete block, and the re-inserted row reads as deleted.
        // With a changelog every change must stay, and deletes are data rows there, in order.
        o.put("write.precombine", String.valueOf(!changelog));
        // An instant per checkpoint, empty ones included: Hudi 0.14's coordinator starts no new instant
        // after an empty checkpoint, and a writer whose next checkpoint carries data can then wait inside
        // it for an acknowledgement until the checkpoint times out (HudiCheckpointsITCase met it; Hudi 1.0
        // made this the default, HUDI-7819). The user's own value wins.
        o.put(ALLOW_EMPTY_COMMIT, "true");
        if (softDeletes(t)) {
            // Compares ordering values before it applies a delete in every merge (Hudi's Flink default,
            // EventTimeAvroPayload, lets a soft delete beat a newer row in a base file).
            o.put(PAYLOAD_CLASS, ORDERED_PAYLOAD);
        }
        if (bootstrapsIndex(t)) {
            o.put(INDEX_BOOTSTRAP, "true");
            // One bootstrap task: with more, each waits in Hudi 0.14's BootstrapOperator for the others
            // in a loop that swallows the cancellation's interrupt, so a job failing before every one
            // has loaded its keys can never cancel that task, and never restart (see the README).
            // With one there is nothing to wait for. The user's own value wins.
            o.put(INDEX_BOOTSTRAP_TASKS, "1");
        }
        o.putAll(hudiOptions);
        if (Boolean.parseBoolean(hudiOptions.getOrDefault(HIVE_SYNC_ENABLED, "false"))) {
            // Each table syncs to a Hive table of its own name, in its source database unless
            // 'hive_sync.db' names one for all; Hudi would name them after the factory's placeholders.
            o.putIfAbsent(HIVE_SYNC_DB, t.tableId().database());
            o.put(HIVE_SYNC_TABLE, t.tableId().table());
            boolean hasTime = t.columns().stream()
                    .anyMatch(c -> c.type().getLogicalType().getTypeRoot() == LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE);
            if (hasTime && !hudiOptions.containsKey(HIVE_SYNC_AS_DATASOURCE)) {
                // Hudi 0.14 also writes Spark's data source properties into the Hive table, and cannot
                // express a TIME column there ("Unsupport convert INT32 to spark sql type"): the table
                // would never sync, with nothing but an ERROR per commit in the log.
                LOG.warn(
                        "Table {} has a TIME column: its Hive sync leaves out Spark's data source properties"
                                + " ('{}' = 'false'), which Hudi cannot write for TIME; Spark reads it as a Hive"
                                + " table.",
                        t.tableId(),
                        HIVE_SYNC_AS_DATASOURCE);
                o.put(HIVE_SYNC_AS_DATASOURCE, "false");
            }
        }
        o.put(HudiSinkOptions.PATH.key(), tablePath(t.tableId()));
        o.put(HudiSinkOptions.TABLE_TYPE.key(), tableType);
        o.put(HudiSinkOptions.PRECOMBINE_FIELD.key(), precombine(t));
        o.put(HudiSinkOptions.CHANGELOG_ENABLED.key(), String.valueOf(changelog));
        return o;
    }

    @Override
    public String toString() {
        return "HudiSink{path=" + path + ", table.type=" + tableType + ", precombine.field="
                + (precombineField == null ? HudiSinkOptions.SOURCE_POSITION_COLUMN + " (added)" : precombineField)
                + "}";
    }

    /** Builds a {@link HudiSink}; {@link #build()} checks the options. */
    @PublicEvolving
    public static final class Builder {
        private String path;
        private String tableType = HudiSinkOptions.TABLE_TYPE.defaultValue();

        @Nullable
        private String precombineField;

        private boolean changelog = HudiSinkOptions.CHANGELOG_ENABLED.defaultValue();
        private String defaultDatabase = HudiSinkOptions.DEFAULT_DATABASE.defaultValue();
        private final Map<String, String> hudiOptions = new LinkedHashMap<>();
        private final Map<String, List<String>> partitionFields = new LinkedHashMap<>();
        private boolean reconcileSnapshots = HudiSinkOptions.RECONCILE_SNAPSHOTS.defaultValue();

        private Builder() {}

        /** The base path; tables go to {@code <path>/<database>/<table>}. */
        public Builder path(String basePath) {
            this.path = basePath;
            return this;
        }

        /** MERGE_ON_READ (default) or COPY_ON_WRITE. */
        public Builder tableType(String type) {
            this.tableType = type.trim().toUpperCase(Locale.ROOT);
            return this;
        }

        /** The column that orders versions of a row; default the source timestamp in an added column. */
        public Builder precombineField(String column) {
            this.precombineField = column;
            return this;
        }

        /** Keep every change for streaming readers ({@code changelog.enabled}). */
        public Builder changelog(boolean enabled) {
            this.changelog = enabled;
            return this;
        }

        public Builder defaultDatabase(String database) {
            this.defaultDatabase = database;
            return this;
        }

        /**
         * Whether rows a new snapshot from scratch no longer finds are deleted (default on); see {@link
         * HudiSinkOptions#RECONCILE_SNAPSHOTS}. Turn it off when other jobs write the same tables.
         */
        public Builder reconcileSnapshots(boolean reconcile) {
            this.reconcileSnapshots = reconcile;
            return this;
        }

        /** Any option of Hudi's Flink writer, e.g. {@code compaction.delta_commits} or {@code hive_sync.enabled}. */
        public Builder option(String key, String value) {
            hudiOptions.put(key, value);
            return this;
        }

        /** The partition columns of a table, comma-separated (default the descriptor's). */
        public Builder partitionFields(String tableId, String columns) {
            partitionFields.put(
                    TableId.parse(tableId).identifier(),
                    Arrays.stream(columns.split(","))
                            .map(String::trim)
                            .filter(s -> !s.isEmpty())
                            .collect(Collectors.toList()));
            return this;
        }

        /**
         * @throws InletValidationException naming each invalid option and its fix
         */
        public HudiSink build() {
            List<String> problems = new ArrayList<>();
            if (path == null || path.trim().isEmpty()) {
                problems.add(
                        "Set 'path', the base path of the Hudi tables, e.g. file:///data/hudi or s3a://bucket/hudi.");
            }
            if (!tableType.equals("MERGE_ON_READ") && !tableType.equals("COPY_ON_WRITE")) {
                problems.add("'table.type' = '" + tableType + "' is unknown; use MERGE_ON_READ or COPY_ON_WRITE.");
            }
            for (String reserved : List.of(
                    "path",
                    "table.type",
                    "precombine.field",
                    "changelog.enabled",
                    "hoodie.table.name",
                    "hoodie.datasource.write.recordkey.field",
                    "hoodie.datasource.write.partitionpath.field")) {
                if (hudiOptions.containsKey(reserved)) {
                    problems.add("Set '" + reserved
                            + "' with the sink's own option, not as a Hudi pass-through: the sink derives it"
                            + " per table (record key from the primary key, partition path from"
                            + " 'partition-fields.<table>').");
                }
            }
            if (hudiOptions.containsKey(HIVE_SYNC_TABLE)) {
                problems.add("'" + HIVE_SYNC_TABLE + "' would sync every table of the sink to one Hive table;"
                        + " remove it: each table syncs to a Hive table of its own name (in its source"
                        + " database, or in the one 'hive_sync.db' names).");
            }
            if (!changelog && "false".equalsIgnoreCase(hudiOptions.get("write.precombine"))) {
                problems.add("'write.precombine' = 'false' would let a batch that deletes and re-inserts a"
                        + " key read as deleted"
                        + " (Hudi writes a batch's data block before its delete block); leave it" + " at the"
                        + " sink's 'true'.");
            }
            if ("insert".equalsIgnoreCase(hudiOptions.get("write.operation"))
                    || "bulk_insert".equalsIgnoreCase(hudiOptions.get("write.operation"))) {
                problems.add("'write.operation' = '" + hudiOptions.get("write.operation")
                        + "' appends rows without applying updates"
                        + " and deletes; a change stream needs the default 'upsert'.");
            }
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems);
            }
            return new HudiSink(this);
        }
    }
}
