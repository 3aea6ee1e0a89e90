package io.inlet.source.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.source.iceberg.IcebergSourceOptions.StartingStrategy;
import io.inlet.source.iceberg.internal.ChangelogEnumerator;
import io.inlet.source.iceberg.internal.ChangelogPosition;
import io.inlet.source.iceberg.internal.ChangelogReader;
import io.inlet.source.iceberg.internal.SnapshotSplit;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;

/**
 * Reads an Iceberg format-v2 table as a changelog: {@code +I}, {@code -U}/{@code +U} with the full
 * before-image, and {@code -D}, snapshot by snapshot in commit order, whatever wrote it (Inlet's sink,
 * Iceberg's Flink upsert or changelog writer: equality deletes of keys or of whole rows, position
 * deletes). Per snapshot each key's net change: a key inserted and deleted within one snapshot emits
 * nothing, and so does a compaction ({@code replace}). Iceberg's own Flink source reads appends only
 * and skips every snapshot with deletes.
 *
 * <p>Exactly once: the position (the last snapshot planned, the snapshots not read yet) is in the
 * checkpoint, and a snapshot's changes are emitted in one step between two checkpoints. The read
 * runs with parallelism one for now, one snapshot at a time; a snapshot's changes are held in memory
 * while they are emitted.
 *
 * <pre>{@code
 * IcebergChangelogSource source = IcebergChangelogSource.builder()
 *         .catalogLoader(CatalogLoader.hadoop("lake", new Configuration(false), Map.of("warehouse", warehouse)))
 *         .table("shop.orders")
 *         .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders changelog").setParallelism(1);
 * }</pre>
 */
@PublicEvolving
public final class IcebergChangelogSource
        implements Source<RowData, SnapshotSplit, ChangelogPosition>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final CatalogLoader catalogLoader;
    private final String table;
    private final StartingStrategy strategy;
    private final Long startSnapshotId;
    private final Long startTimestamp;
    private final long intervalMs;
    private final RowType rowType;

    private IcebergChangelogSource(Builder b, RowType rowType) {
        this.catalogLoader = b.catalogLoader;
        this.table = b.table;
        this.strategy = b.strategy;
        this.startSnapshotId = b.startSnapshotId;
        this.startTimestamp = b.startTimestamp;
        this.intervalMs = b.monitorInterval.toMillis();
        this.rowType = rowType;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The table's rows, in its schema when the source was built. */
    public RowType rowType() {
        return rowType;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return InternalTypeInfo.of(rowType);
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, SnapshotSplit> createReader(SourceReaderContext context) {
        return new ChangelogReader(context, catalogLoader, table);
    }

    @Override
    public SplitEnumerator<SnapshotSplit, ChangelogPosition> createEnumerator(
            SplitEnumeratorContext<SnapshotSplit> context) {
        return restoreEnumerator(context, ChangelogPosition.initial());
    }

    @Override
    public SplitEnumerator<SnapshotSplit, ChangelogPosition> restoreEnumerator(
            SplitEnumeratorContext<SnapshotSplit> context, ChangelogPosition position) {
        return new ChangelogEnumerator(
                context, catalogLoader, table, strategy, startSnapshotId, startTimestamp, intervalMs, position);
    }

    @Override
    public SimpleVersionedSerializer<SnapshotSplit> getSplitSerializer() {
        return SnapshotSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<ChangelogPosition> getEnumeratorCheckpointSerializer() {
        return ChangelogPosition.Serializer.INSTANCE;
    }

    /** Builds an {@link IcebergChangelogSource}; {@link #build()} loads the table and checks the options. */
    @PublicEvolving
    public static final class Builder {
        private CatalogLoader catalogLoader;
        private String table;
        private StartingStrategy strategy = IcebergSourceOptions.STARTING_STRATEGY.defaultValue();
        private Long startSnapshotId;
        private Long startTimestamp;
        private Duration monitorInterval = IcebergSourceOptions.MONITOR_INTERVAL.defaultValue();

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

        public IcebergChangelogSource build() {
            Objects.requireNonNull(catalogLoader, "catalogLoader is required: the catalog the table is in");
            if (table == null || table.isBlank()) {
                throw new IllegalArgumentException("table is required: the Iceberg table to read, as namespace.table");
            }
            Objects.requireNonNull(strategy, "starting-strategy must not be null");
            if (strategy == StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID && startSnapshotId == null) {
                throw new IllegalArgumentException("starting-strategy INCREMENTAL_FROM_SNAPSHOT_ID needs"
                        + " start-snapshot-id: set startSnapshotId(...).");
            }
            if (strategy == StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP && startTimestamp == null) {
                throw new IllegalArgumentException("starting-strategy INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP needs"
                        + " start-snapshot-timestamp: set startSnapshotTimestamp(...).");
            }
            if (monitorInterval == null || monitorInterval.isNegative() || monitorInterval.isZero()) {
                throw new IllegalArgumentException("monitor-interval must be positive, got " + monitorInterval);
            }
            Catalog catalog = catalogLoader.loadCatalog();
            try {
                Table t = catalog.loadTable(TableIdentifier.parse(table));
                if (t.schema().identifierFieldIds().isEmpty()) {
                    throw new IllegalArgumentException("Iceberg table " + table + " has no identifier fields (a primary"
                            + " key), so its changes cannot be told apart by key: set them, e.g. ALTER TABLE ... SET"
                            + " IDENTIFIER FIELDS id, or write it with Inlet's sink, which sets them.");
                }
                return new IcebergChangelogSource(this, FlinkSchemaUtil.convert(t.schema()));
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
