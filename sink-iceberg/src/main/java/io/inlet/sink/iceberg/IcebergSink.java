package io.inlet.sink.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangePartitioning;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.sink.iceberg.internal.IcebergRowConverter;
import io.inlet.sink.iceberg.internal.IcebergSchemaUpdates;
import io.inlet.sink.iceberg.internal.IcebergTables;
import io.inlet.sink.iceberg.internal.SnapshotReconciler;
import io.inlet.sink.iceberg.internal.TableCommittable;
import io.inlet.sink.iceberg.internal.TableCommittableSerializer;
import io.inlet.sink.iceberg.internal.TableKeySelector;
import io.inlet.sink.iceberg.internal.TablesCommitter;
import io.inlet.sink.iceberg.internal.TablesWriter;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Writes each table to its own Iceberg format-v2 table keyed by its primary key (identifier fields):
 * updates and deletes remove the old row, inserts add, exactly once (data is committed when a
 * checkpoint completes). Two operators serve any number of tables: a writer (Iceberg's Flink delta
 * writers, one per table and subtask) and a committer that commits each checkpoint of each table as
 * its own snapshot, also when a checkpoint was aborted before the committer saw it. Missing
 * namespaces and tables are created from the descriptors; existing ones are checked for a
 * compatible schema and key first. When the
 * source takes a snapshot from scratch over tables that hold rows, the rows it no longer finds are
 * removed once it is committed ({@link IcebergSinkOptions#RECONCILE_SNAPSHOTS}).
 *
 * <p>The catalog is built through Iceberg's {@code CatalogLoader} with a Hadoop configuration of its
 * own, so it works on Flink runtimes without Hadoop in the parent class loader.
 *
 * <pre>{@code
 * IcebergSink sink = IcebergSink.builder()
 *     .catalogType("hadoop").warehouse("file:///data/warehouse")
 *     .tableProperty("write.target-file-size-bytes", "134217728")
 *     .partitionSpec("lake.orders", "bucket(id, 16)")
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class IcebergSink implements ChangeSink {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergSink.class);

    private final IcebergCatalogConfig catalog;
    private final String defaultDatabase;
    private final WriteMode writeMode;

    @Nullable
    private final Integer writeParallelism;

    private final DistributionMode distributionMode;
    private final Map<String, String> tableProperties;
    private final Map<String, String> partitionSpecs;
    private final boolean reconcileSnapshots;
    private final int maxOpenWriters;
    private final long maxBufferedBytes;

    private IcebergSink(Builder b) {
        this.catalog = IcebergCatalogConfig.of(
                b.catalogName, b.catalogType, b.catalogImpl, b.catalogProperties, b.hadoopProperties);
        this.defaultDatabase = b.defaultDatabase;
        this.writeMode = b.writeMode;
        this.writeParallelism = b.writeParallelism;
        this.distributionMode = b.distributionMode;
        this.tableProperties = new LinkedHashMap<>(b.tableProperties);
        this.partitionSpecs = new LinkedHashMap<>(b.partitionSpecs);
        this.reconcileSnapshots = b.reconcileSnapshots;
        this.maxOpenWriters = b.maxOpenWriters;
        this.maxBufferedBytes = b.maxBufferedBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "iceberg";
    }

    @Override
    public boolean requiresCheckpointing() {
        return true;
    }

    @Override
    public boolean requiresPrimaryKey() {
        return true;
    }

    /** The Iceberg table a table id is written to. */
    public TableIdentifier identifier(TableId id) {
        return TableIdentifier.of(Namespace.of(id.database() == null ? defaultDatabase : id.database()), id.table());
    }

    @Override
    public List<String> targetTables(List<TableDescriptor> tables) {
        List<String> out = new ArrayList<>();
        for (TableDescriptor t : tables) {
            out.add("iceberg:" + catalog.identity() + "/" + identifier(t.tableId()));
        }
        return out;
    }

    /** Where the sink writes: its catalog's implementation and location. */
    @Override
    public String uidSeed() {
        return catalog.identity();
    }

    @Override
    public void validate(List<TableDescriptor> tables) {
        validate(tables, false);
    }

    /**
     * As {@link #validate(List)}; when the source follows schema changes, an existing table whose
     * columns differ from the rows' is no problem where the job can bring it along: columns it lacks are
     * added when the job is built, columns only it has stay (a job restored from a savepoint taken
     * before a change replays that change), types the rows widen are widened.
     */
    @Override
    public void validate(List<TableDescriptor> tables, boolean schemaChangesFollowed) {
        List<String> problems = new ArrayList<>(catalog.writeProblems());
        for (String key : partitionSpecs.keySet()) {
            if (tables.stream().noneMatch(t -> t.tableId().identifier().equals(key))) {
                problems.add("'partition-spec." + key + "' names no table of the pipeline; its tables are "
                        + tables.stream()
                                .map(t -> t.tableId().identifier())
                                .collect(java.util.stream.Collectors.toList())
                        + ".");
            }
        }
        Map<TableDescriptor, Schema> schemas = new LinkedHashMap<>();
        for (TableDescriptor t : tables) {
            try {
                Schema schema = IcebergTables.schema(t);
                PartitionSpec spec = IcebergTables.spec(
                        schema, t, partitionSpecs.get(t.tableId().identifier()));
                if (writeMode != WriteMode.CHANGELOG) {
                    String p = IcebergTables.upsertPartitionProblem(
                            identifier(t.tableId()).toString(), spec, schema, t.primaryKey());
                    if (p != null) {
                        problems.add(p);
                    }
                }
                schemas.put(t, schema);
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        withCatalog(c -> {
            for (Map.Entry<TableDescriptor, Schema> e : schemas.entrySet()) {
                TableIdentifier id = identifier(e.getKey().tableId());
                if (c.tableExists(id)) {
                    Table table = c.loadTable(id);
                    problems.addAll(
                            IcebergTables.compatibility(table, e.getValue(), e.getKey(), schemaChangesFollowed));
                    if (writeMode != WriteMode.CHANGELOG) {
                        String p = IcebergTables.upsertPartitionProblem(
                                id.toString(),
                                table.spec(),
                                table.schema(),
                                e.getKey().primaryKey());
                        if (p != null) {
                            problems.add(p);
                        }
                    }
                }
            }
            return null;
        });
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
    }

    /** Per table: where it goes, whether it exists and holds rows, and how it will be written. Reads only. */
    @Override
    public List<String> describe(List<TableDescriptor> tables) {
        return withCatalog(c -> {
            List<String> out = new ArrayList<>();
            for (TableDescriptor t : tables) {
                TableIdentifier id = identifier(t.tableId());
                String state;
                boolean holdsRows = false;
                if (c.tableExists(id)) {
                    Table table = c.loadTable(id);
                    holdsRows = !isEmpty(table);
                    Snapshot current = table.currentSnapshot();
                    state = "exists ("
                            + (current == null
                                    ? "no snapshot"
                                    : current.summary().getOrDefault("total-records", "?") + " rows in snapshot "
                                            + current.snapshotId())
                            + ", " + table.spec() + ")";
                } else {
                    state = "will be created (" + IcebergTables.schema(t).asStruct() + ", identifier fields "
                            + t.primaryKey() + ")";
                }
                out.add(identifier(t.tableId()) + ": " + state + "; " + writeModeText(holdsRows));
            }
            return out;
        });
    }

    private String writeModeText(boolean holdsRows) {
        switch (writeMode) {
            case UPSERT:
                return "write-mode upsert";
            case CHANGELOG:
                return "write-mode changelog";
            default:
                return "write-mode auto: upsert if the source may deliver a change twice, else changelog"
                        + (holdsRows ? " with snapshot rows upserted (the table holds rows)" : "")
                        + (reconcileSnapshots ? "; a snapshot from scratch removes rows it no longer finds" : "");
        }
    }

    @Override
    public void addSink(DataStream<ChangeEvent> stream, SinkContext context) {
        Map<TableId, TablesWriter.TableWrite> writes = new LinkedHashMap<>();
        Map<TableId, Table> byPartition = new LinkedHashMap<>();
        withCatalog(c -> {
            for (TableDescriptor t : context.tables()) {
                TableIdentifier id = identifier(t.tableId());
                boolean created = false;
                Table table;
                if (c.tableExists(id)) {
                    table = c.loadTable(id);
                    if (context.schemaChangesFollowed() && IcebergSchemaUpdates.union(table, t)) {
                        table.refresh();
                    }
                } else {
                    table = create(c, t, id);
                    created = true;
                }
                boolean holdsRows = !created && !isEmpty(table);
                boolean up = decideUpsert(table, holdsRows, context.changesMayRepeat());
                // Rows reach the writer in the table's Flink type, which Iceberg's delta writers read them with.
                RowType target = FlinkSchemaUtil.convert(table.schema());
                writes.put(
                        t.tableId(),
                        new TablesWriter.TableWrite(
                                id.toString(),
                                IcebergTables.names(table.schema()).equals(t.columnNames())
                                        ? new IcebergRowConverter(t.toRowType(), target)
                                        : IcebergRowConverter.byName(t.toRowType(), target),
                                target,
                                t.primaryKey(),
                                up,
                                !up && writeMode == WriteMode.AUTO && holdsRows,
                                t.schemaVersion()));
                if (distributionMode == DistributionMode.HASH && table.spec().isPartitioned()) {
                    byPartition.put(t.tableId(), table);
                }
            }
            return null;
        });
        int parallelism = writeParallelism != null ? writeParallelism : stream.getParallelism();
        // By table and key; schema changes to every writer, so each learns a new version before its rows.
        SingleOutputStreamOperator<TableCommittable> written = ChangePartitioning.byKey(
                        stream,
                        new TableKeySelector(context.tables(), byPartition),
                        new TableKeySelector.ByHash(),
                        parallelism,
                        "Iceberg",
                        context.uid("route"))
                .transform(
                        "Iceberg: write " + writes.size() + " table(s)",
                        TableCommittableSerializer.TYPE,
                        new TablesWriter(catalog.loader(), writes, maxOpenWriters, maxBufferedBytes))
                .uid(context.uid("writer"))
                .setParallelism(parallelism);
        List<String> tableNames = new ArrayList<>();
        writes.values().forEach(w -> tableNames.add(w.table()));
        written.transform("Iceberg: commit", Types.VOID, new TablesCommitter(catalog.loader(), tableNames))
                .uid(context.uid("committer"))
                .setParallelism(1)
                .setMaxParallelism(1)
                .addSink(new DiscardingSink<>())
                .name("Iceberg: committed")
                .uid(context.uid("committed"))
                .setParallelism(1);
        if (reconcileSnapshots) {
            List<String> names = new ArrayList<>();
            context.tables().forEach(t -> names.add(identifier(t.tableId()).toString()));
            context.snapshotSignals()
                    .ifPresent(signals -> signals.stream()
                            .addSink(new SnapshotReconciler(catalog.loader(), names))
                            .name("Iceberg: remove rows a new snapshot no longer finds")
                            .uid(context.uid("snapshot-reconciler"))
                            .setParallelism(1));
        }
    }

    private Table create(Catalog c, TableDescriptor t, TableIdentifier id) {
        Schema schema = IcebergTables.schema(t);
        PartitionSpec spec =
                IcebergTables.spec(schema, t, partitionSpecs.get(t.tableId().identifier()));
        if (c instanceof SupportsNamespaces) {
            SupportsNamespaces ns = (SupportsNamespaces) c;
            if (!ns.namespaceExists(id.namespace())) {
                try {
                    ns.createNamespace(id.namespace());
                    LOG.info("Created Iceberg namespace {} in {}", id.namespace(), catalog);
                } catch (AlreadyExistsException e) {
                    // created concurrently: fine
                }
            }
        }
        Map<String, String> props = new LinkedHashMap<>(t.properties());
        props.putAll(tableProperties);
        props.put(TableProperties.FORMAT_VERSION, "2");
        t.comment().ifPresent(comment -> props.putIfAbsent("comment", comment));
        try {
            Table table = c.buildTable(id, schema)
                    .withPartitionSpec(spec)
                    .withProperties(props)
                    .create();
            LOG.info(
                    "Created Iceberg table {} ({}, identifier fields {}, {}) in {}",
                    id,
                    schema.asStruct(),
                    t.primaryKey(),
                    spec,
                    catalog);
            return table;
        } catch (AlreadyExistsException e) {
            return c.loadTable(id);
        }
    }

    /**
     * Whether to write upserts: always in upsert mode, never in changelog mode; in auto mode for a
     * source that may repeat changes (a repeated insert would otherwise add a second row). Otherwise
     * auto writes a changelog, and when the table already holds rows, the rows of a snapshot (which
     * may be rows the table has: a new snapshot over old data, whether or not the job restored
     * anything) are upserted one by one ({@link TablesWriter}); the binlog's changes, delivered once,
     * are written as they are.
     */
    private boolean decideUpsert(Table table, boolean holdsRows, boolean sourceRepeats) {
        switch (writeMode) {
            case UPSERT:
                return true;
            case CHANGELOG:
                return false;
            default:
                if (sourceRepeats) {
                    LOG.info(
                            "Iceberg table {}: write-mode auto chose upsert (the source may deliver a" + " change"
                                    + " more than once).",
                            table.name());
                    return true;
                }
                LOG.info(
                        "Iceberg table {}: write-mode auto chose changelog{}.",
                        table.name(),
                        holdsRows
                                ? ", with snapshot rows upserted (the table holds rows a new snapshot may repeat)"
                                : " (the table is new or empty)");
                return false;
        }
    }

    private static boolean isEmpty(Table table) {
        Snapshot s = table.currentSnapshot();
        if (s == null) {
            return true;
        }
        String records = s.summary().get("total-records");
        String deletes = s.summary().get("total-equality-deletes");
        return "0".equals(records) && (deletes == null || "0".equals(deletes));
    }

    private interface CatalogWork<T> {
        T run(Catalog catalog);
    }

    private <T> T withCatalog(CatalogWork<T> work) {
        Catalog c;
        try {
            c = catalog.loader().loadCatalog();
        } catch (RuntimeException | LinkageError e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            // The root cause goes into the message: the pipeline reports problems as text.
            throw new InletValidationException(
                    "Cannot open the Iceberg catalog " + catalog + ": " + e
                            + (root != e ? ", caused by " + root : "")
                            + ". Check the catalog options ('catalog-type', 'warehouse', 'uri', 'catalog.*').",
                    e);
        }
        try {
            return work.run(c);
        } catch (InletValidationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InletValidationException("The Iceberg catalog " + catalog + " failed: " + e, e);
        } finally {
            if (c instanceof Closeable) {
                try {
                    ((Closeable) c).close();
                } catch (IOException e) {
                    LOG.warn("Closing the Iceberg catalog {} failed", catalog, e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "IcebergSink{" + catalog + ", write-mode=" + writeMode.name().toLowerCase(Locale.ROOT)
                + (reconcileSnapshots ? "" : ", reconcile-snapshots=false") + "}";
    }

    /** Builds an {@link IcebergSink}; {@link #build()} checks the options. */
    @PublicEvolving
    public static final class Builder {
        private String catalogName = IcebergSinkOptions.CATALOG_NAME.defaultValue();
        private String catalogType = IcebergSinkOptions.CATALOG_TYPE.defaultValue();

        @Nullable
        private String catalogImpl;

        private final Map<String, String> catalogProperties = new HashMap<>();
        private final Map<String, String> hadoopProperties = new HashMap<>();
        private String defaultDatabase = IcebergSinkOptions.DEFAULT_DATABASE.defaultValue();
        private WriteMode writeMode = WriteMode.AUTO;

        @Nullable
        private Integer writeParallelism;

        private DistributionMode distributionMode = DistributionMode.NONE;
        private final Map<String, String> tableProperties = new LinkedHashMap<>();
        private final Map<String, String> partitionSpecs = new LinkedHashMap<>();
        private boolean reconcileSnapshots = IcebergSinkOptions.RECONCILE_SNAPSHOTS.defaultValue();
        private int maxOpenWriters = IcebergSinkOptions.WRITE_MAX_OPEN_WRITERS.defaultValue();
        private long maxBufferedBytes =
                IcebergSinkOptions.WRITE_MAX_BUFFERED_BYTES.defaultValue().getBytes();

        private Builder() {}

        public Builder catalogName(String name) {
            this.catalogName = Objects.requireNonNull(name);
            return this;
        }

        /** hadoop, hive, rest, jdbc, glue or nessie. */
        public Builder catalogType(String type) {
            this.catalogType = Objects.requireNonNull(type);
            return this;
        }

        /** Any Iceberg {@code Catalog} class; takes precedence over the type. */
        public Builder catalogImpl(String className) {
            this.catalogImpl = className;
            return this;
        }

        public Builder warehouse(String location) {
            catalogProperties.put(CatalogProperties.WAREHOUSE_LOCATION, location);
            return this;
        }

        public Builder uri(String uri) {
            catalogProperties.put(CatalogProperties.URI, uri);
            return this;
        }

        /** A catalog property, e.g. {@code io-impl} or {@code jdbc.user}. */
        public Builder catalogProperty(String key, String value) {
            catalogProperties.put(key, value);
            return this;
        }

        /** An entry of the catalog's own Hadoop configuration, e.g. {@code fs.s3a.endpoint}. */
        public Builder hadoopProperty(String key, String value) {
            hadoopProperties.put(key, value);
            return this;
        }

        public Builder defaultDatabase(String namespace) {
            this.defaultDatabase = Objects.requireNonNull(namespace);
            return this;
        }

        public Builder writeMode(WriteMode mode) {
            this.writeMode = Objects.requireNonNull(mode);
            return this;
        }

        public Builder writeParallelism(int parallelism) {
            this.writeParallelism = parallelism;
            return this;
        }

        /** Open table writers per write subtask; see {@link IcebergSinkOptions#WRITE_MAX_OPEN_WRITERS}. */
        public Builder maxOpenWriters(int writers) {
            this.maxOpenWriters = writers;
            return this;
        }

        /**
         * Estimated bytes the open writers of a write subtask hold; see {@link
         * IcebergSinkOptions#WRITE_MAX_BUFFERED_BYTES}.
         */
        public Builder maxBufferedBytes(long bytes) {
            this.maxBufferedBytes = bytes;
            return this;
        }

        public Builder distributionMode(String mode) {
            try {
                this.distributionMode = DistributionMode.fromName(mode);
            } catch (IllegalArgumentException e) {
                throw new InletValidationException(
                        "'distribution-mode' = '" + mode + "' is unknown; use none or hash.");
            }
            return this;
        }

        /** A property of the tables the sink creates, e.g. {@code write.target-file-size-bytes}. */
        public Builder tableProperty(String key, String value) {
            tableProperties.put(key, value);
            return this;
        }

        /**
         * Whether rows a new snapshot from scratch no longer finds are removed once it is committed
         * (default on); see {@link IcebergSinkOptions#RECONCILE_SNAPSHOTS}. Turn it off when other jobs
         * write the same tables.
         */
        public Builder reconcileSnapshots(boolean reconcile) {
            this.reconcileSnapshots = reconcile;
            return this;
        }

        /** The partition spec of a table the sink creates, e.g. {@code "bucket(id, 16)"}. */
        public Builder partitionSpec(String tableId, String spec) {
            partitionSpecs.put(TableId.parse(tableId).identifier(), spec);
            return this;
        }

        /**
         * @throws InletValidationException naming each invalid option and its fix
         */
        public IcebergSink build() {
            List<String> problems = new ArrayList<>();
            if (writeParallelism != null && writeParallelism < 1) {
                problems.add("'write-parallelism' must be positive, was " + writeParallelism + ".");
            }
            if (maxOpenWriters < 1) {
                problems.add("'write-max-open-writers' must be positive, was " + maxOpenWriters + ".");
            }
            if (maxBufferedBytes < 1) {
                problems.add("'write-max-buffered-bytes' must be positive, was " + maxBufferedBytes
                        + "; give a size such as '256mb'.");
            }
            if (distributionMode == DistributionMode.RANGE) {
                problems.add(
                        "'distribution-mode' = 'range' is not supported by Iceberg's Flink writer; use none or hash.");
            }
            if (tableProperties.containsKey(TableProperties.FORMAT_VERSION)
                    && !"2".equals(tableProperties.get(TableProperties.FORMAT_VERSION))) {
                problems.add("'table.format-version' must be 2: updates and deletes need Iceberg v2 tables.");
            }
            IcebergSink sink = new IcebergSink(this);
            problems.addAll(sink.catalog.writeProblems());
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems);
            }
            return sink;
        }
    }
}
