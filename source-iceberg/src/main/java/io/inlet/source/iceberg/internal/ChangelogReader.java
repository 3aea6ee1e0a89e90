package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;

import java.io.Closeable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the snapshots it is given, in order: a snapshot's changes ({@link SnapshotChanges}) are
 * emitted in one step, so a checkpoint holds a snapshot either still to read (in this reader's
 * state) or read whole (its changes before the barrier). Asks for the next snapshot once it has
 * none.
 */
@Internal
public final class ChangelogReader implements SourceReader<RowData, SnapshotSplit> {

    private final SourceReaderContext context;
    private final CatalogLoader catalogLoader;
    private final String table;
    private final ArrayDeque<SnapshotSplit> splits = new ArrayDeque<>();

    private CompletableFuture<Void> available = new CompletableFuture<>();
    private Catalog catalog;
    private Table loaded;
    private SnapshotChanges changes;

    public ChangelogReader(SourceReaderContext context, CatalogLoader catalogLoader, String table) {
        this.context = context;
        this.catalogLoader = catalogLoader;
        this.table = table;
    }

    @Override
    public void start() {
        catalog = catalogLoader.loadCatalog();
        loaded = catalog.loadTable(TableIdentifier.parse(table));
        changes = new SnapshotChanges(loaded);
        if (splits.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<RowData> output) {
        SnapshotSplit split = splits.peek();
        if (split == null) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        loaded.refresh();
        Snapshot snapshot = loaded.snapshot(split.snapshotId());
        if (snapshot == null) {
            throw new IllegalStateException("Iceberg table " + table + ": snapshot " + split.snapshotId()
                    + " expired before its changes were read; start the read again or keep snapshots longer"
                    + " (history.expire.*).");
        }
        List<RowData> rows = split.initial() ? changes.rows(snapshot) : changes.of(snapshot);
        for (RowData row : rows) {
            output.collect(row, snapshot.timestampMillis());
        }
        splits.poll();
        if (splits.isEmpty()) {
            available = new CompletableFuture<>();
            context.sendSplitRequest();
            return InputStatus.NOTHING_AVAILABLE;
        }
        return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return splits.isEmpty() ? available : CompletableFuture.completedFuture(null);
    }

    @Override
    public void addSplits(List<SnapshotSplit> added) {
        splits.addAll(added);
        available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {}

    @Override
    public List<SnapshotSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(splits);
    }

    @Override
    public void close() throws Exception {
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }
}
