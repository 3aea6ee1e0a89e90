package io.inlet.source.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.SourceContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.source.iceberg.IcebergSourceOptions.StartingStrategy;
import io.inlet.source.iceberg.internal.CommitColumns;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.iceberg.flink.CatalogLoader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An Iceberg table as the source of an Inlet pipeline ({@code source("iceberg", options)}): each
 * table's changelog, as {@link IcebergChangelogSource} reads it, becomes change events, so that a
 * lake table can feed another lake table, a Hudi table or any Inlet sink. Each event's position is
 * {@link SourcePosition#iceberg} (the snapshot that made the change, ordered by its sequence
 * number), its timestamp the snapshot's commit time. Exactly once: the read is in the checkpoint.
 *
 * <pre>{@code
 * Pipeline.builder()
 *         .source(IcebergChangeSource.builder()
 *                 .catalog(IcebergCatalogConfig.of("lake", "hadoop", null, Map.of("warehouse", warehouse), Map.of()))
 *                 .tables("shop.orders", "shop.customers")
 *                 .build())
 *         .sink(HudiSink.builder().path(lake).build())
 *         .build()
 *         .execute();
 * }</pre>
 */
@PublicEvolving
public final class IcebergChangeSource implements ChangeSource {

    private final CatalogLoader catalogLoader;
    private final List<String> tables;

    /** The read options, the same for every table; its catalog and table are set per table. */
    private final IcebergChangelogSource.Builder read;

    /** Per table, built (and its table loaded) by {@link #discoverTables()}. */
    private List<IcebergChangelogSource> reads;

    private IcebergChangeSource(Builder b) {
        this.catalogLoader = b.catalogLoader;
        this.tables = List.copyOf(b.tables);
        this.read = b.read.copy();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "iceberg";
    }

    /** Loads each table: it must exist, be format v2 readable and have identifier fields. */
    @Override
    public List<TableDescriptor> discoverTables() {
        List<IcebergChangelogSource> built = new ArrayList<>();
        List<TableDescriptor> descriptors = new ArrayList<>();
        for (String table : tables) {
            IcebergChangelogSource source;
            try {
                source = read.catalogLoader(catalogLoader).table(table).build();
            } catch (IllegalArgumentException e) {
                throw new InletValidationException(e.getMessage(), e);
            } catch (RuntimeException e) {
                throw new InletValidationException(
                        "Cannot load Iceberg table " + table + " for the iceberg source: " + e
                                + ". Check 'catalog-table' and the catalog settings.",
                        e);
            }
            built.add(source);
            descriptors.add(descriptor(source));
        }
        this.reads = built;
        return descriptors;
    }

    private static TableId tableId(String table) {
        int dot = table.lastIndexOf('.');
        return TableId.of(table.substring(0, dot), table.substring(dot + 1));
    }

    /** The table's columns in Flink's types as Iceberg's Flink module maps them, and its key. */
    private static TableDescriptor descriptor(IcebergChangelogSource read) {
        TableDescriptor.Builder d = TableDescriptor.builder(tableId(read.table()));
        for (RowType.RowField f : read.rowType().getFields()) {
            d.column(f.getName(), TypeConversions.fromLogicalToDataType(f.getType()));
        }
        return d.primaryKey(read.primaryKey()).build();
    }

    @Override
    public DataStream<ChangeEvent> createStream(StreamExecutionEnvironment env, SourceContext context) {
        if (reads == null) {
            throw new IllegalStateException(
                    "createStream before discoverTables: the pipeline discovers the tables first.");
        }
        DataStream<ChangeEvent> all = null;
        for (IcebergChangelogSource source : reads) {
            TableDescriptor table = context.tables().stream()
                    .filter(t -> t.tableId().equals(tableId(source.table())))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("Table " + source.table() + " was not discovered"));
            String prefix = source.table() + "-";
            DataStream<RowData> changes = source.stream(env, part -> context.uid(prefix + part), true);
            SingleOutputStreamOperator<ChangeEvent> events = changes.map(new ToChangeEvent(
                            table.tableId(),
                            table.schemaVersion(),
                            source.table(),
                            table.columns().size()))
                    .returns(context.typeInfo())
                    .name("Iceberg " + source.table() + " change events")
                    .uid(context.uid(prefix + "events"));
            if (read.parallelism != null) {
                events.setParallelism(read.parallelism);
            }
            all = all == null ? events : all.union(events);
        }
        return all;
    }

    @Override
    public String toString() {
        return "IcebergChangeSource{tables=" + tables + ", starting-strategy=" + read.strategy + "}";
    }

    /** A changelog row with its commit columns, as an event of its table. */
    static final class ToChangeEvent implements MapFunction<RowData, ChangeEvent> {
        private static final long serialVersionUID = 1L;

        private final TableId tableId;
        private final int schemaVersion;
        private final String table;
        private final int arity;

        private transient int[] tableFields;

        ToChangeEvent(TableId tableId, int schemaVersion, String table, int arity) {
            this.tableId = tableId;
            this.schemaVersion = schemaVersion;
            this.table = table;
            this.arity = arity;
        }

        @Override
        public ChangeEvent map(RowData row) {
            long sequenceNumber = CommitColumns.sequenceNumber(row, arity);
            SourcePosition position = SourcePosition.iceberg(
                    table,
                    CommitColumns.snapshotId(row, arity),
                    Math.max(SourcePosition.UNKNOWN_ORDER, sequenceNumber));
            if (tableFields == null) {
                tableFields = new int[arity];
                for (int i = 0; i < arity; i++) {
                    tableFields[i] = i;
                }
            }
            // Each event owns its row: a projection of the pairing's row, which is not reused.
            return ChangeEvent.of(
                    tableId,
                    schemaVersion,
                    ProjectedRowData.from(tableFields).replaceRow(row),
                    CommitColumns.commitMillis(row, arity),
                    position);
        }
    }

    /** Builds an {@link IcebergChangeSource}; {@link #build()} checks the options, tables load later. */
    @PublicEvolving
    public static final class Builder {
        private CatalogLoader catalogLoader;
        private final Set<String> tables = new LinkedHashSet<>();
        /** The read options, checked as the DataStream read checks them. */
        private final IcebergChangelogSource.Builder read = IcebergChangelogSource.builder();

        private Builder() {}

        /** The catalog, from the same settings the iceberg sink takes. */
        public Builder catalog(IcebergCatalogConfig catalog) {
            List<String> problems = catalog.problems();
            if (!problems.isEmpty()) {
                throw new InletValidationException("The iceberg source's catalog: " + String.join(" ", problems));
            }
            this.catalogLoader = catalog.loader();
            return this;
        }

        /** The catalog, as Iceberg's loader. */
        public Builder catalogLoader(CatalogLoader loader) {
            this.catalogLoader = loader;
            return this;
        }

        /** The tables, as {@code namespace.table}. */
        public Builder tables(String... names) {
            for (String n : names) {
                tables.add(Objects.requireNonNull(n, "table").trim());
            }
            return this;
        }

        /** {@code starting-strategy}, the same for every table. */
        public Builder startingStrategy(StartingStrategy strategy) {
            read.startingStrategy(strategy);
            return this;
        }

        /** {@code start-snapshot-id}: only with one table, as ids are per table. */
        public Builder startSnapshotId(long snapshotId) {
            read.startSnapshotId(snapshotId);
            return this;
        }

        /** {@code start-snapshot-timestamp}. */
        public Builder startSnapshotTimestamp(long epochMillis) {
            read.startSnapshotTimestamp(epochMillis);
            return this;
        }

        /** {@code monitor-interval}. */
        public Builder monitorInterval(Duration interval) {
            read.monitorInterval(interval);
            return this;
        }

        /** {@code before-images}, the same for every table ({@link IcebergChangelogSource.Builder#beforeImages}). */
        public Builder beforeImages(IcebergSourceOptions.BeforeImages beforeImages) {
            read.beforeImages(beforeImages);
            return this;
        }

        /** The parallelism of each table's readers and pairing; the job's default if not set. */
        public Builder parallelism(int parallelism) {
            read.parallelism(parallelism);
            return this;
        }

        /** The read options among these ({@link IcebergChangelogSource.Builder#options}). */
        public Builder options(Map<String, String> options) {
            read.options(options);
            return this;
        }

        public IcebergChangeSource build() {
            List<String> problems = new ArrayList<>();
            if (catalogLoader == null) {
                problems.add("A catalog is required: set 'catalog-type' and its settings ('warehouse', 'uri'),"
                        + " or catalog(...) / catalogLoader(...).");
            }
            if (tables.isEmpty()) {
                problems.add("'catalog-table' is required: the tables to read, e.g. 'shop.orders;shop.customers'.");
            }
            for (String t : tables) {
                if (t.isEmpty() || t.startsWith(".") || t.endsWith(".") || !t.contains(".")) {
                    problems.add("Table '" + t + "' is not namespace.table.");
                }
            }
            problems.addAll(read.readProblems());
            if (read.startSnapshotId != null && tables.size() > 1) {
                problems.add("'start-snapshot-id' names a snapshot of one table, but " + tables.size()
                        + " tables are read: read that table in a source of its own, or start from a timestamp.");
            }
            if (read.startSnapshotId != null && read.strategy != StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID) {
                problems.add("'start-snapshot-id' is set but 'starting-strategy' is " + read.strategy
                        + ": set it to INCREMENTAL_FROM_SNAPSHOT_ID, or drop the id.");
            }
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems);
            }
            return new IcebergChangeSource(this);
        }
    }
}
