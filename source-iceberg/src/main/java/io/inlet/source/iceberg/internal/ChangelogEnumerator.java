package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.source.iceberg.IcebergSourceOptions.StartingStrategy;

import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Finds the table's new snapshots every monitor interval and hands them to the reader one at a time,
 * in commit order: the next only when the reader asks again, after it emitted the last one. That
 * keeps every key's changes in order; the read runs with parallelism one for now.
 */
@Internal
public final class ChangelogEnumerator implements SplitEnumerator<SnapshotSplit, ChangelogPosition> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangelogEnumerator.class);

    private final SplitEnumeratorContext<SnapshotSplit> context;
    private final CatalogLoader catalogLoader;
    private final String table;
    private final StartingStrategy strategy;
    private final Long startSnapshotId;
    private final Long startTimestamp;
    private final long intervalMs;

    private final ArrayDeque<SnapshotSplit> queued;
    private boolean started;
    private Long lastPlanned;
    private Integer waiting;

    /** What the looks on worker threads start from. */
    private volatile boolean startedView;

    private volatile Long lastPlannedView;

    private transient Catalog catalog;
    /** Loaded by the first look and refreshed by each after it (the looks run one at a time). */
    private transient Table loaded;

    public ChangelogEnumerator(
            SplitEnumeratorContext<SnapshotSplit> context,
            CatalogLoader catalogLoader,
            String table,
            StartingStrategy strategy,
            @Nullable Long startSnapshotId,
            @Nullable Long startTimestamp,
            long intervalMs,
            ChangelogPosition position) {
        this.context = context;
        this.catalogLoader = catalogLoader;
        this.table = table;
        this.strategy = strategy;
        this.startSnapshotId = startSnapshotId;
        this.startTimestamp = startTimestamp;
        this.intervalMs = intervalMs;
        this.queued = new ArrayDeque<>(position.queued);
        this.started = position.started;
        this.lastPlanned = position.lastPlanned;
    }

    /** What one look at the table found, from a position: the splits after it, and the last of them. */
    private static final class Found {
        final boolean fromStarted;
        final Long after;
        final Long last;
        final List<SnapshotSplit> splits;

        Found(boolean fromStarted, Long after, Long last, List<SnapshotSplit> splits) {
            this.fromStarted = fromStarted;
            this.after = after;
            this.last = last;
            this.splits = splits;
        }
    }

    @Override
    public void start() {
        if (context.currentParallelism() != 1) {
            throw new IllegalStateException("The Iceberg changelog source of " + table + " runs with parallelism 1 (it"
                    + " reads one snapshot at a time, in order), not " + context.currentParallelism()
                    + ": set it on the source, env.fromSource(...).setParallelism(1).");
        }
        catalog = catalogLoader.loadCatalog();
        startedView = started;
        lastPlannedView = lastPlanned;
        // A look may run before the last one's result is handled: found() drops a look from an older position.
        context.callAsync(() -> discover(startedView, lastPlannedView), this::found, 0, intervalMs);
    }

    /** On a worker thread: the snapshots after the given one, or the start's first ones. */
    private Found discover(boolean isStarted, Long after) {
        if (loaded == null) {
            loaded = catalog.loadTable(TableIdentifier.parse(table));
        } else {
            loaded.refresh();
        }
        Table t = loaded;
        Snapshot current = t.currentSnapshot();
        List<SnapshotSplit> splits = new ArrayList<>();
        Long from = after;
        if (!isStarted) {
            switch (strategy) {
                case TABLE_SCAN_THEN_INCREMENTAL:
                    if (current == null) {
                        from = null;
                    } else {
                        splits.add(SnapshotSplit.scan(current.snapshotId()));
                        return new Found(false, after, current.snapshotId(), splits);
                    }
                    break;
                case INCREMENTAL_FROM_LATEST_SNAPSHOT:
                    from = current == null ? null : current.parentId();
                    break;
                case INCREMENTAL_FROM_EARLIEST_SNAPSHOT:
                    from = null;
                    break;
                case INCREMENTAL_FROM_SNAPSHOT_ID:
                    Snapshot s = t.snapshot(startSnapshotId);
                    if (s == null) {
                        throw new IllegalArgumentException("Snapshot " + startSnapshotId + " (start-snapshot-id) is not"
                                + " in Iceberg table " + table + "'s history: expired, or of another table.");
                    }
                    from = s.parentId();
                    break;
                case INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP:
                    Snapshot first = null;
                    for (Snapshot a = current; a != null; a = a.parentId() == null ? null : t.snapshot(a.parentId())) {
                        if (a.timestampMillis() >= startTimestamp) {
                            first = a;
                        }
                    }
                    if (first == null) {
                        // Nothing committed at or after the timestamp yet: from the next snapshot on.
                        from = current == null ? null : current.snapshotId();
                    } else {
                        from = first.parentId();
                    }
                    break;
                default:
                    throw new IllegalStateException("Unknown starting strategy " + strategy);
            }
        }
        List<Snapshot> newer = new ArrayList<>();
        Snapshot s = current;
        while (s != null && (from == null || s.snapshotId() != from)) {
            newer.add(s);
            s = s.parentId() == null ? null : t.snapshot(s.parentId());
        }
        if (from != null && s == null) {
            throw new IllegalStateException("Iceberg table " + table + ": snapshot " + from + ", the last one read, is"
                    + " no longer an ancestor of the current snapshot ("
                    + (current == null ? "none" : current.snapshotId())
                    + "): it expired or the table was rolled back. Changes in between cannot be read; start the read"
                    + " again (e.g. starting-strategy TABLE_SCAN_THEN_INCREMENTAL) or keep snapshots longer"
                    + " (history.expire.*).");
        }
        Collections.reverse(newer);
        newer.forEach(n -> splits.add(SnapshotSplit.changes(n.snapshotId())));
        Long last = newer.isEmpty() ? from : newer.get(newer.size() - 1).snapshotId();
        return new Found(isStarted, after, last, splits);
    }

    /** On the coordinator thread: queues what a look found, unless a later look got there first. */
    private void found(Found f, Throwable error) {
        if (error != null) {
            if (error instanceof IllegalStateException || error instanceof IllegalArgumentException) {
                throw (RuntimeException) error;
            }
            LOG.warn(
                    "Looking for new snapshots of Iceberg table {} failed; trying again in {} ms.",
                    table,
                    intervalMs,
                    error);
            return;
        }
        if (f.fromStarted != started || !Objects.equals(f.after, lastPlanned)) {
            return; // planned from an older position
        }
        if (!f.splits.isEmpty()) {
            LOG.info("Iceberg table {}: {} new snapshot(s) to read: {}", table, f.splits.size(), f.splits);
        }
        started = true;
        lastPlanned = f.last;
        queued.addAll(f.splits);
        startedView = started;
        lastPlannedView = lastPlanned;
        assignIfWaiting();
    }

    private void assignIfWaiting() {
        if (waiting != null && !queued.isEmpty() && context.registeredReaders().containsKey(waiting)) {
            context.assignSplit(queued.poll(), waiting);
            waiting = null;
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        waiting = subtaskId;
        assignIfWaiting();
    }

    @Override
    public void addSplitsBack(List<SnapshotSplit> splits, int subtaskId) {
        // A reader failed before a checkpoint: its splits go first again, in order.
        List<SnapshotSplit> back = new ArrayList<>(splits);
        Collections.reverse(back);
        back.forEach(queued::addFirst);
    }

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public ChangelogPosition snapshotState(long checkpointId) {
        return new ChangelogPosition(started, lastPlanned, new ArrayList<>(queued));
    }

    @Override
    public void close() throws IOException {
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }
}
