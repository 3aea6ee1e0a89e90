package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.source.iceberg.IcebergSourceOptions.StartingStrategy;

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
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.flink.CatalogLoader;

import javax.annotation.Nullable;

/**
 * The FLIP-27 half of the changelog read: an enumerator that plans snapshots into file splits and
 * readers that emit each file's added and removed rows, tagged and stamped with their epoch. Its
 * output is not a changelog yet: the keyed {@link ChangePairingOperator} makes it one.
 */
@Internal
public final class ChangeFileSource
        implements Source<RowData, ChangeSplit, ChangelogPosition>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final CatalogLoader catalogLoader;
    private final String table;
    private final String schemaJson;
    private final RowType rowType;
    private final StartingStrategy strategy;

    @Nullable
    private final Long startSnapshotId;

    @Nullable
    private final Long startTimestamp;

    private final long intervalMs;
    private final boolean keysFromState;

    /**
     * @param rowType the rows' type on the way to the pairing: the table's with the {@link
     *     CommitColumns}, every column nullable (a key-only delete carries its key only)
     * @param keysFromState before-images STATE: key-only deletes are read as keys
     */
    public ChangeFileSource(
            CatalogLoader catalogLoader,
            String table,
            String schemaJson,
            RowType rowType,
            StartingStrategy strategy,
            @Nullable Long startSnapshotId,
            @Nullable Long startTimestamp,
            long intervalMs,
            boolean keysFromState) {
        this.catalogLoader = catalogLoader;
        this.table = table;
        this.schemaJson = schemaJson;
        this.rowType = rowType;
        this.strategy = strategy;
        this.startSnapshotId = startSnapshotId;
        this.startTimestamp = startTimestamp;
        this.intervalMs = intervalMs;
        this.keysFromState = keysFromState;
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
    public SourceReader<RowData, ChangeSplit> createReader(SourceReaderContext context) {
        return new ChangelogReader(context, catalogLoader, table, schemaJson);
    }

    @Override
    public SplitEnumerator<ChangeSplit, ChangelogPosition> createEnumerator(
            SplitEnumeratorContext<ChangeSplit> context) {
        return restoreEnumerator(context, ChangelogPosition.initial());
    }

    @Override
    public SplitEnumerator<ChangeSplit, ChangelogPosition> restoreEnumerator(
            SplitEnumeratorContext<ChangeSplit> context, ChangelogPosition position) {
        return new ChangelogEnumerator(
                context,
                catalogLoader,
                table,
                strategy,
                startSnapshotId,
                startTimestamp,
                intervalMs,
                keysFromState,
                SchemaParser.fromJson(schemaJson),
                position);
    }

    @Override
    public SimpleVersionedSerializer<ChangeSplit> getSplitSerializer() {
        return ChangeSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<ChangelogPosition> getEnumeratorCheckpointSerializer() {
        return ChangelogPosition.Serializer.INSTANCE;
    }
}
