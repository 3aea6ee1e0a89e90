package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.source.iceberg.internal.ChangelogEvents.EpochsComplete;
import io.inlet.source.iceberg.internal.ChangelogEvents.ReaderProgress;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.CloseableIterator;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the file splits it is given, one after the other, and emits each row tagged ({@code +I}
 * added, {@code -D} removed) with its epoch as the record timestamp and its snapshot's sequence
 * number and commit time appended ({@link CommitColumns}). When the enumerator says every
 * epoch up to e is read, it emits the watermark e, held back below the epoch of any split it still
 * has to read; the keyed pairing then emits those epochs.
 *
 * <p>Its checkpoint holds the split being read with the number of rows emitted (read again, that many
 * skipped), the splits not started, and the splits read to the end until their epoch is complete, so
 * that a restored enumerator hears of them again.
 */
@Internal
public final class ChangelogReader implements SourceReader<RowData, ChangeSplit> {

    /** Rows emitted per call, so that checkpoints and events get their turn within a large file. */
    private static final int BATCH = 1024;

    private final SourceReaderContext context;
    private final CatalogLoader catalogLoader;
    private final String table;
    private final String schemaJson;

    private final ArrayDeque<ChangeSplit> toRead = new ArrayDeque<>();
    /** Read to the end, their epoch not yet complete. */
    private final List<ChangeSplit> finished = new ArrayList<>();
    /** Finished splits the enumerator has not been told of. */
    private final List<String> unreported = new ArrayList<>();

    private ChangeSplit current;
    private CloseableIterator<RowData> rows;
    private long emitted;

    /** Epochs start at 1: before any is announced, every epoch up to 0 is complete. */
    private long announced = 0;

    private long watermark = Long.MIN_VALUE;
    private boolean requested;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    private Catalog catalog;
    private ChangeSplitReader reader;

    /** The emitted row: the file's row with the current split's commit columns; both reused. */
    private final JoinedRowData joined = new JoinedRowData();

    private GenericRowData commit;

    public ChangelogReader(SourceReaderContext context, CatalogLoader catalogLoader, String table, String schemaJson) {
        this.context = context;
        this.catalogLoader = catalogLoader;
        this.table = table;
        this.schemaJson = schemaJson;
    }

    @Override
    public void start() {
        catalog = catalogLoader.loadCatalog();
        Table loaded = catalog.loadTable(TableIdentifier.parse(table));
        Schema schema = SchemaParser.fromJson(schemaJson);
        reader = new ChangeSplitReader(loaded, schema);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<RowData> output) {
        if (current == null && !toRead.isEmpty()) {
            current = toRead.poll();
            rows = reader.open(current);
            commit = CommitColumns.of(current.snapshotId(), current.sequenceNumber(), current.commitMillis());
            emitted = 0;
            // Restored mid-split: the same rows come in the same order.
            while (emitted < current.offset() && rows.hasNext()) {
                rows.next();
                emitted++;
            }
        }
        if (current != null) {
            int n = 0;
            while (n < BATCH && rows.hasNext()) {
                RowData row = rows.next();
                joined.replace(row, commit);
                joined.setRowKind(row.getRowKind());
                output.collect(joined, current.epoch());
                emitted++;
                n++;
            }
            if (!rows.hasNext()) {
                closeRows();
                finished.add(current.done());
                unreported.add(current.splitId());
                current = null;
            }
        }
        if (!unreported.isEmpty() || (current == null && toRead.isEmpty() && !requested)) {
            boolean wants = current == null && toRead.isEmpty() && !requested;
            context.sendSourceEventToCoordinator(new ReaderProgress(unreported, wants));
            unreported.clear();
            requested |= wants;
        }
        emitWatermark(output);
        if (current != null || !toRead.isEmpty()) {
            return InputStatus.MORE_AVAILABLE;
        }
        available = new CompletableFuture<>();
        return InputStatus.NOTHING_AVAILABLE;
    }

    /** The epochs announced complete, but none this reader still has a split of. */
    private void emitWatermark(ReaderOutput<RowData> output) {
        long mark = announced;
        if (current != null) {
            mark = Math.min(mark, current.epoch() - 1);
        }
        for (ChangeSplit s : toRead) {
            mark = Math.min(mark, s.epoch() - 1);
        }
        if (mark > watermark) {
            watermark = mark;
            output.emitWatermark(new Watermark(mark));
        }
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return current != null || !toRead.isEmpty() || !unreported.isEmpty() || announced > watermark
                ? CompletableFuture.completedFuture(null)
                : available;
    }

    @Override
    public void addSplits(List<ChangeSplit> splits) {
        for (ChangeSplit s : splits) {
            if (s.finished()) {
                // Restored: read before the checkpoint, and the enumerator may not know yet.
                finished.add(s);
                unreported.add(s.splitId());
            } else {
                toRead.add(s);
            }
        }
        requested = false;
        available.complete(null);
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof EpochsComplete) {
            long epoch = ((EpochsComplete) event).epoch;
            if (epoch > announced) {
                announced = epoch;
                finished.removeIf(s -> s.epoch() <= epoch);
                available.complete(null);
            }
        }
    }

    @Override
    public void notifyNoMoreSplits() {}

    @Override
    public List<ChangeSplit> snapshotState(long checkpointId) {
        List<ChangeSplit> state = new ArrayList<>(finished);
        if (current != null) {
            state.add(current.at(emitted));
        }
        state.addAll(toRead);
        return state;
    }

    private void closeRows() {
        try {
            rows.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows = null;
    }

    @Override
    public void close() throws Exception {
        if (rows != null) {
            rows.close();
        }
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }
}
