package io.inlet.source.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.source.iceberg.IcebergSourceOptions.BeforeImages;
import io.inlet.source.iceberg.IcebergSourceOptions.StartingStrategy;
import io.inlet.source.iceberg.internal.ChangeFileSource;
import io.inlet.source.iceberg.internal.ChangePairingOperator;
import io.inlet.source.iceberg.internal.CommitColumns;
import io.inlet.source.iceberg.internal.IdentifierKeys;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Reads an Iceberg format-v2 table as a changelog: {@code +I}, {@code -U}/{@code +U} with the full
 * before-image, and {@code -D}, snapshot by snapshot in commit order, whatever wrote it (Inlet's sink,
 * Iceberg's Flink upsert or changelog writer: equality deletes of keys or of whole rows, position
 * deletes). Per snapshot each key's net change: a key inserted and deleted within one snapshot emits
 * nothing, and so does a compaction ({@code replace}). Iceberg's own Flink source reads appends only
 * and skips every snapshot with deletes.
 *
 * <p>In parallel: the enumerator plans each snapshot into file splits (a file the snapshot added, an
 * older file its deletes reach, a file it removed), any reader reads any split, and a keyed operator
 * pairs each key's removed and added rows into its net change once the snapshot is read whole. Each
 * key's changes leave in commit order; changes of different keys within a snapshot in no set order.
 * By default no before-images are kept: they are read from the files, and the pairing keeps per key
 * only the rows of the snapshots being read (at most eight ahead), none after. With {@code
 * beforeImages(BeforeImages.STATE)} it keeps each live key's latest row (state as large as the
 * table), so that key-only deletes (upsert tables) need not read older files again.
 *
 * <p>Exactly once: the enumerator's position (snapshots found, epochs planned, splits not read), the
 * readers' splits with the rows emitted, and the pairing's rows are all in the checkpoint. The read
 * is in the table's schema when the source was built; the output has no timestamps or watermarks.
 *
 * <pre>{@code
 * IcebergChangelogSource source = IcebergChangelogSource.builder()
 *         .catalogLoader(CatalogLoader.hadoop("lake", new Configuration(false), Map.of("warehouse", warehouse)))
 *         .table("shop.orders")
 *         .build();
 * DataStream<RowData> changes = source.createStream(env);
 * }</pre>
 */
@PublicEvolving
public final class IcebergChangelogSource implements Serializable {

    private static final long serialVersionUID = 1L;

    private final CatalogLoader catalogLoader;
    private final String table;
    private final StartingStrategy strategy;
    private final Long startSnapshotId;
    private final Long startTimestamp;
    private final long intervalMs;
    private final BeforeImages beforeImages;

    @Nullable
    private final Integer parallelism;

    private final String uidPrefix;
    private final String schemaJson;
    private final RowType rowType;
    private final List<String> primaryKey;

    private IcebergChangelogSource(Builder b, Schema schema) {
        this.catalogLoader = b.catalogLoader;
        this.table = b.table;
        this.strategy = b.strategy;
        this.startSnapshotId = b.startSnapshotId;
        this.startTimestamp = b.startTimestamp;
        this.intervalMs = b.monitorInterval.toMillis();
        this.beforeImages = b.beforeImages;
        this.parallelism = b.parallelism;
        this.uidPrefix = b.uidPrefix != null ? b.uidPrefix : "inlet-iceberg-changelog-" + b.table;
        this.schemaJson = SchemaParser.toJson(schema);
        this.rowType = FlinkSchemaUtil.convert(schema);
        List<String> key = new ArrayList<>();
        schema.identifierFieldNames().forEach(key::add);
        key.sort((a, c) -> Integer.compare(rowType.getFieldIndex(a), rowType.getFieldIndex(c)));
        this.primaryKey = List.copyOf(key);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The table's rows, in its schema when the source was built. */
    public RowType rowType() {
        return rowType;
    }

    /** The table's identifier fields, in column order: the changelog's key. */
    public List<String> primaryKey() {
        return primaryKey;
    }

    /** The table read, as {@code namespace.table}. */
    public String table() {
        return table;
    }

    /** Adds the read to the job; operator uids are the {@code uidPrefix} with {@code -files} and {@code -changes}. */
    public DataStream<RowData> createStream(StreamExecutionEnvironment env) {
        return createStream(env, suffix -> uidPrefix + "-" + suffix);
    }

    /**
     * Adds the read to the job with the uids the function gives for {@code files} and {@code changes}
     * (the SQL planner's own, for a table source); none where it gives {@code null}.
     */
    public DataStream<RowData> createStream(StreamExecutionEnvironment env, Function<String, String> uids) {
        return stream(env, uids, false);
    }

    /**
     * The changes; with {@code keepCommit} each row has the {@link CommitColumns} of its snapshot
     * after the table's columns.
     */
    DataStream<RowData> stream(StreamExecutionEnvironment env, Function<String, String> uids, boolean keepCommit) {
        RowType withCommit = CommitColumns.appendTo(rowType);
        boolean keysFromState = beforeImages == BeforeImages.STATE;
        ChangeFileSource files = new ChangeFileSource(
                catalogLoader,
                table,
                schemaJson,
                ChangePairingOperator.tagged(withCommit),
                strategy,
                startSnapshotId,
                startTimestamp,
                intervalMs,
                keysFromState);
        // The readers' records carry their snapshot's epoch as the timestamp, and their watermark says
        // which epochs are read whole: the strategy only lets them through, it generates nothing.
        DataStreamSource<RowData> tagged =
                env.fromSource(files, WatermarkStrategy.noWatermarks(), "Iceberg " + table + " files");
        String filesUid = uids.apply("files");
        if (filesUid != null) {
            tagged.uid(filesUid);
        }
        IdentifierKeys keys = IdentifierKeys.of(SchemaParser.fromJson(schemaJson));
        SingleOutputStreamOperator<RowData> changes = tagged.keyBy(keys.selector())
                .transform(
                        "Iceberg " + table + " changelog",
                        InternalTypeInfo.of(keepCommit ? withCommit : rowType),
                        new ChangePairingOperator(withCommit, keepCommit, keysFromState));
        String changesUid = uids.apply("changes");
        if (changesUid != null) {
            changes.uid(changesUid);
        }
        if (parallelism != null) {
            tagged.setParallelism(parallelism);
            changes.setParallelism(parallelism);
        }
        return changes;
    }

    /** Builds an {@link IcebergChangelogSource}; {@link #build()} loads the table and checks the options. */
    @PublicEvolving
    public static final class Builder {
        private CatalogLoader catalogLoader;
        private String table;
        // Read by IcebergChangeSource's builder, which takes the same read options for every table.
        StartingStrategy strategy = IcebergSourceOptions.STARTING_STRATEGY.defaultValue();
        Long startSnapshotId;
        private Long startTimestamp;
        private Duration monitorInterval = IcebergSourceOptions.MONITOR_INTERVAL.defaultValue();
        private BeforeImages beforeImages = IcebergSourceOptions.BEFORE_IMAGES.defaultValue();
        Integer parallelism;
        private String uidPrefix;

        private Builder() {}

        /** The catalog of the table, e.g. {@code CatalogLoader.hadoop(...)}, {@code CatalogLoader.rest(...)}. */
        public Builder catalogLoader(CatalogLoader catalogLoader) {
            this.catalogLoader = catalogLoader;
            return this;
        }

        /** The table, as {@code namespace.table}. */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** {@code starting-strategy}. */
        public Builder startingStrategy(StartingStrategy strategy) {
            this.strategy = strategy;
            return this;
        }

        /** {@code start-snapshot-id}, with {@link StartingStrategy#INCREMENTAL_FROM_SNAPSHOT_ID}. */
        public Builder startSnapshotId(long snapshotId) {
            this.startSnapshotId = snapshotId;
            return this;
        }

        /** {@code start-snapshot-timestamp}, with {@link StartingStrategy#INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP}. */
        public Builder startSnapshotTimestamp(long epochMillis) {
            this.startTimestamp = epochMillis;
            return this;
        }

        /** {@code monitor-interval}. */
        public Builder monitorInterval(Duration interval) {
            this.monitorInterval = interval;
            return this;
        }

        /**
         * {@code before-images}: where removed rows' values come from ({@link BeforeImages}); {@code
         * STATE} keeps each key's latest row and reads upsert tables several times faster.
         */
        public Builder beforeImages(BeforeImages beforeImages) {
            this.beforeImages = beforeImages;
            return this;
        }

        /**
         * The read options among these, by their keys ({@code starting-strategy}, {@code
         * start-snapshot-id}, {@code start-snapshot-timestamp}, {@code monitor-interval}, {@code
         * before-images}); other keys are left alone, as a SQL table's options hold the table's
         * properties too.
         */
        public Builder options(Map<String, String> options) {
            Configuration conf = Configuration.fromMap(options);
            // Only the keys present: a setting made before on this builder stays unless overridden.
            conf.getOptional(IcebergSourceOptions.STARTING_STRATEGY).ifPresent(st -> this.strategy = st);
            conf.getOptional(IcebergSourceOptions.START_SNAPSHOT_ID).ifPresent(id -> this.startSnapshotId = id);
            conf.getOptional(IcebergSourceOptions.START_SNAPSHOT_TIMESTAMP).ifPresent(t -> this.startTimestamp = t);
            conf.getOptional(IcebergSourceOptions.MONITOR_INTERVAL).ifPresent(i -> this.monitorInterval = i);
            conf.getOptional(IcebergSourceOptions.BEFORE_IMAGES).ifPresent(b -> this.beforeImages = b);
            return this;
        }

        /** The parallelism of the readers and of the keyed pairing; the job's default if not set. */
        public Builder parallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** Prefix of the operators' uids (their state); {@code inlet-iceberg-changelog-<table>} if not set. */
        public Builder uidPrefix(String uidPrefix) {
            this.uidPrefix = uidPrefix;
            return this;
        }

        /** A builder with the same settings, which later changes to this one do not reach. */
        Builder copy() {
            Builder b = new Builder();
            b.catalogLoader = catalogLoader;
            b.table = table;
            b.strategy = strategy;
            b.startSnapshotId = startSnapshotId;
            b.startTimestamp = startTimestamp;
            b.monitorInterval = monitorInterval;
            b.beforeImages = beforeImages;
            b.parallelism = parallelism;
            b.uidPrefix = uidPrefix;
            return b;
        }

        /** The problems of the read options, each with its fix; the table and catalog aside. */
        List<String> readProblems() {
            List<String> problems = new ArrayList<>();
            if (strategy == null) {
                problems.add("'starting-strategy' must not be null.");
            } else if (strategy == StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID && startSnapshotId == null) {
                problems.add("'starting-strategy' INCREMENTAL_FROM_SNAPSHOT_ID needs 'start-snapshot-id':"
                        + " set startSnapshotId(...).");
            } else if (strategy == StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP && startTimestamp == null) {
                problems.add("'starting-strategy' INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP needs"
                        + " 'start-snapshot-timestamp': set startSnapshotTimestamp(...).");
            }
            if (beforeImages == null) {
                problems.add("'before-images' must not be null: FILES (the default) or STATE.");
            } else if (beforeImages == BeforeImages.STATE
                    && strategy != null
                    && strategy != StartingStrategy.TABLE_SCAN_THEN_INCREMENTAL
                    && strategy != StartingStrategy.INCREMENTAL_FROM_EARLIEST_SNAPSHOT) {
                problems.add("'before-images' STATE keeps each key's latest row, so the read must see every"
                        + " live row, but 'starting-strategy' " + strategy + " starts after rows it would miss:"
                        + " use TABLE_SCAN_THEN_INCREMENTAL or INCREMENTAL_FROM_EARLIEST_SNAPSHOT, or"
                        + " before-images FILES.");
            }
            if (monitorInterval == null || monitorInterval.isNegative() || monitorInterval.isZero()) {
                problems.add("'monitor-interval' must be positive, got " + monitorInterval + ".");
            }
            if (parallelism != null && parallelism < 1) {
                problems.add("parallelism must be at least 1, got " + parallelism
                        + ": leave it unset for the job's default.");
            }
            if (uidPrefix != null && uidPrefix.isBlank()) {
                problems.add("uidPrefix must not be blank: leave it unset for the default.");
            }
            return problems;
        }

        public IcebergChangelogSource build() {
            Objects.requireNonNull(catalogLoader, "catalogLoader is required: the catalog the table is in");
            if (table == null || table.isBlank()) {
                throw new IllegalArgumentException("table is required: the Iceberg table to read, as namespace.table");
            }
            List<String> problems = readProblems();
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join(" ", problems));
            }
            Catalog catalog = catalogLoader.loadCatalog();
            try {
                Table t = catalog.loadTable(TableIdentifier.parse(table));
                if (t.schema().identifierFieldIds().isEmpty()) {
                    throw new IllegalArgumentException("Iceberg table " + table + " has no identifier fields (a primary"
                            + " key), so its changes cannot be told apart by key: set them, e.g. ALTER TABLE ... SET"
                            + " IDENTIFIER FIELDS id, or write it with Inlet's sink, which sets them.");
                }
                return new IcebergChangelogSource(this, t.schema());
            } finally {
                if (catalog instanceof Closeable) {
                    try {
                        ((Closeable) catalog).close();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }
}
