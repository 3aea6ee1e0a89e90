package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.source.iceberg.IcebergSourceOptions.StartingStrategy;
import io.inlet.source.iceberg.internal.ChangelogEvents.EpochsComplete;
import io.inlet.source.iceberg.internal.ChangelogEvents.ReaderProgress;
import io.inlet.source.iceberg.internal.ChangelogPosition.OpenEpoch;
import io.inlet.source.iceberg.internal.ChangelogPosition.Unplanned;

import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.iceberg.Schema;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Finds the table's new snapshots every monitor interval, gives each an epoch (one number per
 * snapshot, in commit order), plans the epochs one after the other into file splits ({@link
 * SnapshotPlanner}, manifests read in parallel) and hands the splits to whichever reader asks, up to
 * {@link #MAX_OPEN_EPOCHS} epochs ahead. Readers say which splits they read to the end; when every
 * split of every epoch up to e is read, the enumerator tells all readers {@link EpochsComplete}(e),
 * and they let the keyed pairing emit those epochs.
 *
 * <p>After a failover that restarts the readers but not this enumerator, the splits handed out since
 * the last checkpoint come back ({@link #addSplitsBack}), and their epochs open again; the readers
 * hold back their watermark while they have splits of an epoch to read, so an epoch announced before
 * the failover is not emitted before its restored splits are read again.
 */
@Internal
public final class ChangelogEnumerator implements SplitEnumerator<ChangeSplit, ChangelogPosition> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangelogEnumerator.class);

    /** Epochs planned and not read to the end, at most: bounds the splits held here and the pairing's open epochs. */
    static final int MAX_OPEN_EPOCHS = 8;

    private final SplitEnumeratorContext<ChangeSplit> context;
    private final CatalogLoader catalogLoader;
    private final String table;
    private final StartingStrategy strategy;
    private final Long startSnapshotId;
    private final Long startTimestamp;
    private final long intervalMs;
    /** before-images STATE: key-only deletes are read as keys, the pairing holds the rows. */
    private final boolean keysFromState;
    /** The schema the read was built with, which the snapshots read must keep. */
    private final Schema readSchema;

    private boolean started;
    private Long lastFound;
    private long nextEpoch;
    private final ArrayDeque<Unplanned> unplanned;
    private final TreeMap<Long, OpenEpoch> open = new TreeMap<>();

    private final Set<Integer> waiting = new LinkedHashSet<>();
    private long announced;
    private boolean planning;

    /** What the looks on the worker thread start from. */
    private volatile boolean startedView;

    private volatile Long lastFoundView;

    private transient Catalog catalog;
    /** Used by the looks, one at a time, on the worker thread. */
    private transient Table looked;
    /** Used by the planning, one epoch at a time, on the worker thread. */
    private transient Table planned;

    public ChangelogEnumerator(
            SplitEnumeratorContext<ChangeSplit> context,
            CatalogLoader catalogLoader,
            String table,
            StartingStrategy strategy,
            @Nullable Long startSnapshotId,
            @Nullable Long startTimestamp,
            long intervalMs,
            boolean keysFromState,
            Schema readSchema,
            ChangelogPosition position) {
        this.context = context;
        this.catalogLoader = catalogLoader;
        this.table = table;
        this.strategy = strategy;
        this.startSnapshotId = startSnapshotId;
        this.startTimestamp = startTimestamp;
        this.intervalMs = intervalMs;
        this.keysFromState = keysFromState;
        this.readSchema = readSchema;
        this.started = position.started;
        this.lastFound = position.lastFound;
        this.nextEpoch = position.nextEpoch;
        this.unplanned = new ArrayDeque<>(position.unplanned);
        for (OpenEpoch e : position.open) {
            open.put(
                    e.epoch,
                    new OpenEpoch(
                            e.epoch, e.snapshotId, new ArrayList<>(e.unassigned), new LinkedHashSet<>(e.outstanding)));
        }
    }

    /** What one look at the table found, from a position: the snapshots after it, and the last of them. */
    private static final class Found {
        final boolean fromStarted;
        final Long after;
        final Long last;
        final List<Long> snapshots;
        final boolean scan;

        Found(boolean fromStarted, Long after, Long last, List<Long> snapshots, boolean scan) {
            this.fromStarted = fromStarted;
            this.after = after;
            this.last = last;
            this.snapshots = snapshots;
            this.scan = scan;
        }
    }

    @Override
    public void start() {
        catalog = catalogLoader.loadCatalog();
        startedView = started;
        lastFoundView = lastFound;
        announced = completed();
        // A look may run before the last one's result is handled: found() drops a look from an older position.
        context.callAsync(() -> discover(startedView, lastFoundView), this::found, 0, intervalMs);
    }

    /** On the worker thread: the snapshots after the given one, or the start's first ones. */
    private Found discover(boolean isStarted, Long after) {
        if (looked == null) {
            looked = catalog.loadTable(TableIdentifier.parse(table));
        } else {
            looked.refresh();
        }
        Table t = looked;
        Snapshot current = t.currentSnapshot();
        Long from = after;
        if (!isStarted) {
            switch (strategy) {
                case TABLE_SCAN_THEN_INCREMENTAL:
                    if (current == null) {
                        from = null;
                    } else {
                        return new Found(false, after, current.snapshotId(), List.of(current.snapshotId()), true);
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
                        throw new InletStopException("Snapshot " + startSnapshotId + " (start-snapshot-id) is not"
                                + " in Iceberg table " + table + "'s history: expired, or of another table. Pick a"
                                + " snapshot from the table's snapshots metadata table.");
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
        List<Long> newer = new ArrayList<>();
        Snapshot s = current;
        while (s != null && (from == null || s.snapshotId() != from)) {
            newer.add(s.snapshotId());
            s = s.parentId() == null ? null : t.snapshot(s.parentId());
        }
        if (from != null && s == null) {
            throw new InletStopException("Iceberg table " + table + ": snapshot " + from + ", the last one read, is"
                    + " no longer an ancestor of the current snapshot ("
                    + (current == null ? "none" : current.snapshotId())
                    + "): it expired or the table was rolled back. Changes in between cannot be read; start the read"
                    + " again (e.g. starting-strategy TABLE_SCAN_THEN_INCREMENTAL) or keep snapshots longer"
                    + " (history.expire.*).");
        }
        Snapshot oldest = newer.isEmpty() ? null : t.snapshot(newer.get(newer.size() - 1));
        if (!isStarted && keysFromState && from == null && oldest != null && oldest.parentId() != null) {
            // From the earliest snapshot, but the history before it expired: rows live at its parent
            // were never read, so state would lack their before-images.
            throw new InletStopException("Iceberg table " + table + ": before-images STATE needs every live row read,"
                    + " but the earliest snapshot still in the history (" + oldest.snapshotId() + ") has an expired"
                    + " parent, whose rows this read would not see. Use starting-strategy"
                    + " TABLE_SCAN_THEN_INCREMENTAL, or before-images FILES.");
        }
        Collections.reverse(newer);
        Long last = newer.isEmpty() ? from : newer.get(newer.size() - 1);
        return new Found(isStarted, after, last, newer, false);
    }

    /** On the coordinator thread: gives what a look found its epochs, unless a later look got there first. */
    private void found(Found f, Throwable error) {
        if (error != null) {
            if (error instanceof InletStopException) {
                throw (InletStopException) error;
            }
            LOG.warn(
                    "Looking for new snapshots of Iceberg table {} failed; trying again in {} ms.",
                    table,
                    intervalMs,
                    error);
            progress();
            return;
        }
        if (f.fromStarted != started || !Objects.equals(f.after, lastFound)) {
            return; // found from an older position
        }
        if (!f.snapshots.isEmpty()) {
            LOG.info("Iceberg table {}: {} new snapshot(s) to read: {}", table, f.snapshots.size(), f.snapshots);
        }
        started = true;
        lastFound = f.last;
        for (long id : f.snapshots) {
            unplanned.add(new Unplanned(nextEpoch++, id, f.scan));
        }
        startedView = started;
        lastFoundView = lastFound;
        progress();
    }

    /** On the worker thread: the splits of one epoch. */
    private List<ChangeSplit> plan(Unplanned u) {
        if (planned == null) {
            planned = catalog.loadTable(TableIdentifier.parse(table));
        }
        Snapshot s = planned.snapshot(u.snapshotId);
        if (s == null) {
            planned.refresh();
            s = planned.snapshot(u.snapshotId);
        }
        if (s == null) {
            throw new InletStopException("Iceberg table " + table + ": snapshot " + u.snapshotId + " expired before"
                    + " its changes were read. Start the read again, or keep snapshots longer (history.expire.*).");
        }
        SnapshotPlanner.checkSchema(planned, s, readSchema);
        return u.scan
                ? SnapshotPlanner.scan(planned, s, u.epoch)
                : SnapshotPlanner.changes(planned, s, u.epoch, readSchema, keysFromState);
    }

    private void planNext() {
        if (planning || unplanned.isEmpty() || open.size() >= MAX_OPEN_EPOCHS) {
            return;
        }
        planning = true;
        Unplanned u = unplanned.peek();
        context.callAsync(() -> plan(u), (splits, error) -> planned(u, splits, error));
    }

    private void planned(Unplanned u, List<ChangeSplit> splits, Throwable error) {
        planning = false;
        if (error != null) {
            if (error instanceof InletStopException) {
                throw (InletStopException) error;
            }
            // Tried again at the next look.
            LOG.warn("Planning snapshot {} of Iceberg table {} failed; trying again.", u.snapshotId, table, error);
            return;
        }
        if (unplanned.peek() != u) {
            return;
        }
        unplanned.poll();
        Set<String> ids = new LinkedHashSet<>();
        splits.forEach(s -> ids.add(s.splitId()));
        LOG.debug(
                "Iceberg table {}: epoch {} (snapshot {}) has {} split(s).", table, u.epoch, u.snapshotId, ids.size());
        open.put(u.epoch, new OpenEpoch(u.epoch, u.snapshotId, new ArrayList<>(splits), ids));
        progress();
    }

    /** Every epoch up to this one is read to the end. */
    private long completed() {
        if (!open.isEmpty()) {
            return open.firstKey() - 1;
        }
        return unplanned.isEmpty() ? nextEpoch - 1 : unplanned.peek().epoch - 1;
    }

    /** Drops the epochs read, tells the readers, hands out splits, plans on. */
    private void progress() {
        open.values().removeIf(e -> e.outstanding.isEmpty());
        long completed = completed();
        if (completed > announced) {
            announced = completed;
            for (int reader : context.registeredReaders().keySet()) {
                context.sendEventToSourceReader(reader, new EpochsComplete(completed));
            }
        }
        assign();
        planNext();
    }

    private void assign() {
        Map<Integer, ?> registered = context.registeredReaders();
        for (var it = waiting.iterator(); it.hasNext(); ) {
            int reader = it.next();
            if (!registered.containsKey(reader)) {
                continue;
            }
            ChangeSplit next = null;
            for (OpenEpoch e : open.values()) {
                if (!e.unassigned.isEmpty()) {
                    next = e.unassigned.remove(0);
                    break;
                }
            }
            if (next == null) {
                return;
            }
            context.assignSplit(next, reader);
            it.remove();
        }
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (!(event instanceof ReaderProgress)) {
            LOG.warn("Unexpected event {} from reader {} of Iceberg table {}.", event, subtaskId, table);
            return;
        }
        ReaderProgress p = (ReaderProgress) event;
        for (String id : p.finished) {
            OpenEpoch e = open.get(ChangeSplit.epochOf(id));
            if (e != null) {
                e.outstanding.remove(id);
            }
        }
        if (p.wantsSplit) {
            waiting.add(subtaskId);
        }
        progress();
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        waiting.add(subtaskId);
        progress();
    }

    @Override
    public void addSplitsBack(List<ChangeSplit> splits, int subtaskId) {
        // Handed out after the last checkpoint to a reader that failed: read again, their epochs open again.
        for (int i = splits.size() - 1; i >= 0; i--) {
            ChangeSplit s = splits.get(i);
            OpenEpoch e = open.computeIfAbsent(
                    s.epoch(), epoch -> new OpenEpoch(epoch, s.snapshotId(), new ArrayList<>(), new LinkedHashSet<>()));
            e.unassigned.add(0, s);
            e.outstanding.add(s.splitId());
        }
        waiting.remove(subtaskId);
        announced = Math.min(announced, completed());
    }

    @Override
    public void addReader(int subtaskId) {
        if (announced > 0) {
            context.sendEventToSourceReader(subtaskId, new EpochsComplete(announced));
        }
    }

    @Override
    public ChangelogPosition snapshotState(long checkpointId) {
        List<OpenEpoch> epochs = new ArrayList<>();
        for (OpenEpoch e : open.values()) {
            epochs.add(new OpenEpoch(e.epoch, e.snapshotId, List.copyOf(e.unassigned), Set.copyOf(e.outstanding)));
        }
        return new ChangelogPosition(started, lastFound, nextEpoch, new ArrayList<>(unplanned), epochs);
    }

    @Override
    public void close() throws IOException {
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }
}
