package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.annotation.VisibleForTesting;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Commits the files the writers flushed, for any number of tables, one Iceberg snapshot per table
 * and checkpoint, in checkpoint order. Each {@link TableCommittable} carries the checkpoint it
 * belongs to, so the files of a checkpoint that was aborted before its barrier arrived here are still
 * committed on their own, before the next checkpoint's: never two checkpoints' delta files in one
 * snapshot, where the later one's equality deletes would miss the earlier one's rows (they share a
 * sequence number). Iceberg 1.6.1's own committer files them under the next checkpoint.
 *
 * <p>Exactly once: pending files are in operator state until committed; each snapshot's summary
 * carries this job's lineage (an id kept in state from the first run on, so a restore into a new job
 * id keeps it) and the checkpoint, and before committing a checkpoint of a table the committer
 * reads the last one its lineage committed to that table, so files restored from a checkpoint taken
 * before their commit are not committed twice. A table with nothing new gets no snapshot. A table
 * whose commit fails keeps its files and is tried again after the next checkpoint, without holding
 * up the other tables; after {@link #MAX_ATTEMPTS} failures in a row the job fails.
 *
 * <p>A checkpoint of a table may come in parts ({@link TableCommittable#part()}: a writer closed
 * early for memory): each part is a snapshot of its own, in part order, marked with {@value #PART} and
 * {@value #PARTS}, so that a restore between two parts commits only the rest.
 *
 * <p>Runs with parallelism one.
 */
@Internal
public final class TablesCommitter extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<TableCommittable, Void>, BoundedOneInput {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TablesCommitter.class);

    /** Snapshot summary keys: this job's lineage and the checkpoint a snapshot commits. */
    public static final String LINEAGE = "inlet.job-lineage";

    public static final String CHECKPOINT = "inlet.checkpoint-id";

    /** Snapshot summary keys: which part of the checkpoint a snapshot commits, of how many. */
    public static final String PART = "inlet.checkpoint-part";

    public static final String PARTS = "inlet.checkpoint-parts";

    /** Failed attempts in a row for one table before the job fails. */
    static final int MAX_ATTEMPTS = 10;

    /** Tables committed at once; commits are mostly waiting on the catalog and the store. */
    static final int COMMIT_THREADS = 8;

    private final CatalogLoader catalogLoader;
    private final ArrayList<String> tables;

    private transient Catalog catalog;
    private transient CommitMetrics metrics;
    private transient ExecutorService pool;
    private transient String lineage;
    /** Table → checkpoint → part → the files of that part, from every writer. */
    private transient Map<String, NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>>> pending;
    /** Table → how far this lineage committed to it. */
    private transient Map<String, Position> committed;

    private transient Map<String, Integer> failures;
    /** Tables whose last committed checkpoint this run has read from their snapshots. */
    private transient Set<String> readFromTable;
    /** The tables as loaded from the catalog, one commit thread at a time each. */
    private transient Map<String, Table> loaded;

    private transient ListState<String> lineageState;
    private transient ListState<byte[]> pendingState;
    private transient ListState<Tuple2<String, Long>> committedState;

    /** @param tables the tables the writers write, whose metrics exist from the start */
    public TablesCommitter(CatalogLoader catalogLoader, List<String> tables) {
        this.catalogLoader = catalogLoader;
        this.tables = new ArrayList<>(tables);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        lineageState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("inlet-committer-lineage", Types.STRING));
        pendingState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>(
                        "inlet-committer-pending", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        committedState = context.getOperatorStateStore()
                .getListState(
                        new ListStateDescriptor<>("inlet-committer-committed", Types.TUPLE(Types.STRING, Types.LONG)));
        pending = new HashMap<>();
        // Written by the commit threads, one table each.
        committed = new ConcurrentHashMap<>();
        failures = new HashMap<>();
        readFromTable = ConcurrentHashMap.newKeySet();
        loaded = new ConcurrentHashMap<>();
        for (String l : lineageState.get()) {
            lineage = l;
        }
        if (lineage == null) {
            lineage = UUID.randomUUID().toString();
        }
        ClassLoader loader = getUserCodeClassloader();
        for (byte[] bytes : pendingState.get()) {
            TableCommittable c = InstantiationUtil.deserializeObject(bytes, loader);
            add(c);
        }
        for (Tuple2<String, Long> t : committedState.get()) {
            committed.merge(t.f0, Position.complete(t.f1), Position::max);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        catalog = catalogLoader.loadCatalog();
        metrics = new CommitMetrics(getMetricGroup());
        tables.forEach(metrics::table);
        AtomicInteger threads = new AtomicInteger();
        pool = Executors.newFixedThreadPool(COMMIT_THREADS, r -> {
            Thread t = new Thread(r, "iceberg-commit-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        // Restored files: their checkpoint completed before the restore (or the restore would not
        // hold them), so they go now rather than with the next checkpoint.
        commitUpTo(Long.MAX_VALUE);
    }

    @Override
    public void processElement(StreamRecord<TableCommittable> element) {
        add(element.getValue());
    }

    private void add(TableCommittable c) {
        pending.computeIfAbsent(c.table(), t -> new TreeMap<>())
                .computeIfAbsent(c.checkpointId(), id -> new TreeMap<>())
                .computeIfAbsent(c.part(), p -> new ArrayList<>())
                .add(c.result());
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lineageState.update(List.of(lineage));
        List<byte[]> out = new ArrayList<>();
        for (Map.Entry<String, NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>>> t : pending.entrySet()) {
            for (Map.Entry<Long, NavigableMap<Integer, List<WriteResult>>> c :
                    t.getValue().entrySet()) {
                for (Map.Entry<Integer, List<WriteResult>> p : c.getValue().entrySet()) {
                    for (WriteResult r : p.getValue()) {
                        out.add(InstantiationUtil.serializeObject(
                                TableCommittable.of(t.getKey(), c.getKey(), p.getKey(), r)));
                    }
                }
            }
        }
        pendingState.update(out);
        List<Tuple2<String, Long>> done = new ArrayList<>();
        // Whole checkpoints only: a restore reads a checkpoint's committed parts from the table.
        committed.forEach((table, at) -> done.add(Tuple2.of(table, at.completeCheckpoint())));
        committedState.update(done);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitUpTo(checkpointId);
    }

    @Override
    public void endInput() {
        // A bounded input ended: its last files (tagged Long.MAX_VALUE by the writers) go now.
        commitUpTo(Long.MAX_VALUE);
    }

    /**
     * Commits, per table and in checkpoint order, every pending checkpoint up to the given one. Tables commit
     * independently of each other, on {@link #COMMIT_THREADS} threads: hundreds of tables would otherwise hold
     * the committer, and with it the next checkpoint, for the sum of their commit times.
     */
    private void commitUpTo(long checkpointId) {
        List<String> due = new ArrayList<>();
        List<Future<?>> commits = new ArrayList<>();
        for (Map.Entry<String, NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>>> t : pending.entrySet()) {
            NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>> checkpoints =
                    t.getValue().headMap(checkpointId, true);
            if (!checkpoints.isEmpty()) {
                due.add(t.getKey());
                // Each task touches only its own table's map; this thread waits for all before going on.
                commits.add(pool.submit(() -> {
                    commitTable(t.getKey(), checkpoints);
                    return null;
                }));
            }
        }
        if (due.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        RuntimeException tooMany = null;
        Error crash = null;
        int failed = 0;
        for (int i = 0; i < due.size(); i++) {
            String name = due.get(i);
            try {
                commits.get(i).get();
                failures.remove(name);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while committing to Iceberg", e);
            } catch (ExecutionException wrapped) {
                Throwable e = wrapped.getCause();
                if (e instanceof Error) {
                    // Thrown once every other table's commit has ended: none may run on beside a restored attempt.
                    crash = crash == null ? (Error) e : crash;
                    continue;
                }
                failed++;
                int attempts = failures.merge(name, 1, Integer::sum);
                metrics.table(name).failed();
                // The commit may have reached the table all the same (a timeout after the catalog took it):
                // the next attempt reads the table's last committed checkpoint again instead of trusting ours.
                readFromTable.remove(name);
                loaded.remove(name);
                if (attempts >= MAX_ATTEMPTS && tooMany == null) {
                    tooMany = new IllegalStateException(
                            "Committing to Iceberg table " + name + " failed " + attempts
                                    + " times in a row; its files stay in the job's state and are committed after a"
                                    + " restore.",
                            e);
                }
                LOG.warn(
                        "Committing to Iceberg table {} failed (attempt {} of {}); its files stay pending and are"
                                + " committed after the next checkpoint. Other tables go on.",
                        name,
                        attempts,
                        MAX_ATTEMPTS,
                        e);
            }
        }
        pending.values().removeIf(Map::isEmpty);
        LOG.info(
                "Committed {} Iceberg table(s) up to checkpoint {} in {} ms{}.",
                due.size() - failed,
                checkpointId == Long.MAX_VALUE ? "(end of input)" : String.valueOf(checkpointId),
                (System.nanoTime() - start) / 1_000_000,
                failed > 0 ? "; " + failed + " failed and stay pending" : "");
        if (crash != null) {
            throw crash;
        }
        if (tooMany != null) {
            throw tooMany;
        }
    }

    /**
     * Commits the checkpoints in order, each part its own snapshot in part order, removing each from the map
     * once it is in the table.
     */
    private void commitTable(String name, NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>> checkpoints) {
        if (checkpoints.isEmpty()) {
            return;
        }
        // Loaded once per run and again after a failed attempt; each commit refreshes the table itself.
        Table table = loaded.computeIfAbsent(name, n -> catalog.loadTable(TableIdentifier.parse(n)));
        // The state may be older than the table (a commit after the checkpoint restored from): the table decides,
        // read once per run and after each failed attempt.
        Position last = committed.getOrDefault(name, Position.NONE);
        if (readFromTable.add(name)) {
            last = Position.max(last, lastCommitted(table, lineage));
            committed.put(name, last);
        }
        Iterator<Map.Entry<Long, NavigableMap<Integer, List<WriteResult>>>> it =
                checkpoints.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, NavigableMap<Integer, List<WriteResult>>> c = it.next();
            long checkpointId = c.getKey();
            int parts = c.getValue().lastKey() + 1;
            Iterator<Map.Entry<Integer, List<WriteResult>>> pit =
                    c.getValue().entrySet().iterator();
            while (pit.hasNext()) {
                Map.Entry<Integer, List<WriteResult>> p = pit.next();
                if (last.covers(checkpointId, p.getKey())) {
                    LOG.info(
                            "Iceberg table {}: checkpoint {} part {} is committed already (restored files); skipped.",
                            name,
                            checkpointId,
                            p.getKey());
                } else {
                    commit(name, table, checkpointId, p.getKey(), parts, p.getValue());
                    last = Position.of(checkpointId, p.getKey(), parts);
                    committed.put(name, last);
                }
                pit.remove();
            }
            // Never back: a restored older checkpoint, skipped, must not hide that the table is further on.
            last = Position.max(last, Position.complete(checkpointId));
            committed.put(name, last);
            it.remove();
        }
    }

    private void commit(String name, Table table, long checkpointId, int part, int parts, List<WriteResult> results) {
        List<DataFile> data = new ArrayList<>();
        List<DeleteFile> deletes = new ArrayList<>();
        List<CharSequence> referenced = new ArrayList<>();
        for (WriteResult r : results) {
            data.addAll(Arrays.asList(r.dataFiles()));
            deletes.addAll(Arrays.asList(r.deleteFiles()));
            referenced.addAll(Arrays.asList(r.referencedDataFiles()));
        }
        if (data.isEmpty() && deletes.isEmpty()) {
            return; // nothing new: no empty snapshot
        }
        long start = System.nanoTime();
        RowDelta delta = table.newRowDelta();
        data.forEach(delta::addRows);
        deletes.forEach(delta::addDeletes);
        if (!referenced.isEmpty()) {
            // Position deletes point at files of the same checkpoint; they must still be there.
            delta.validateDataFilesExist(referenced);
        }
        delta.set(LINEAGE, lineage);
        delta.set(CHECKPOINT, String.valueOf(checkpointId));
        if (parts > 1) {
            delta.set(PART, String.valueOf(part));
            delta.set(PARTS, String.valueOf(parts));
        }
        // Iceberg's own committer's keys, which readers and tools (and SnapshotReconciler) know. Before the
        // last part, the checkpoint is not committed yet.
        delta.set("flink.job-id", getRuntimeContext().getJobId().toString());
        delta.set(
                "flink.max-committed-checkpoint-id",
                String.valueOf(part == parts - 1 ? checkpointId : checkpointId - 1));
        delta.commit();
        long durationMs = (System.nanoTime() - start) / 1_000_000;
        metrics.table(name).committed(data, deletes, durationMs);
        LOG.debug(
                "Iceberg table {}: committed checkpoint {}{} ({} data files, {} delete files) in {} ms.",
                table.name(),
                checkpointId,
                parts > 1 ? " part " + (part + 1) + " of " + parts : "",
                data.size(),
                deletes.size(),
                durationMs);
    }

    /** How far the lineage committed to the table, from the snapshots' summaries. */
    @VisibleForTesting
    static Position lastCommitted(Table table, String lineage) {
        for (Snapshot s = table.currentSnapshot(); s != null; ) {
            Map<String, String> summary = s.summary();
            if (lineage.equals(summary.get(LINEAGE))) {
                return Position.of(
                        Long.parseLong(summary.get(CHECKPOINT)),
                        Integer.parseInt(summary.getOrDefault(PART, "0")),
                        Integer.parseInt(summary.getOrDefault(PARTS, "1")));
            }
            Long parent = s.parentId();
            s = parent == null ? null : table.snapshot(parent);
        }
        return Position.NONE;
    }

    /** How far a table is committed: every part up to {@code part} of {@code checkpoint}, and all before. */
    @VisibleForTesting
    static final class Position {
        static final Position NONE = complete(-1L);

        final long checkpoint;
        /** The last committed part of the checkpoint; {@link Integer#MAX_VALUE} once all are. */
        final int part;

        private Position(long checkpoint, int part) {
            this.checkpoint = checkpoint;
            this.part = part;
        }

        static Position complete(long checkpoint) {
            return new Position(checkpoint, Integer.MAX_VALUE);
        }

        static Position of(long checkpoint, int part, int parts) {
            return part >= parts - 1 ? complete(checkpoint) : new Position(checkpoint, part);
        }

        static Position max(Position a, Position b) {
            return a.checkpoint != b.checkpoint ? (a.checkpoint > b.checkpoint ? a : b) : (a.part >= b.part ? a : b);
        }

        boolean covers(long checkpointId, int partOf) {
            return checkpointId < checkpoint || (checkpointId == checkpoint && partOf <= part);
        }

        /** The last checkpoint committed whole. */
        long completeCheckpoint() {
            return part == Integer.MAX_VALUE ? checkpoint : checkpoint - 1;
        }

        @Override
        public String toString() {
            return part == Integer.MAX_VALUE
                    ? "checkpoint " + checkpoint
                    : "checkpoint " + checkpoint + " part " + part;
        }
    }

    @VisibleForTesting
    String lineage() {
        return lineage;
    }

    @Override
    public void close() throws Exception {
        try {
            if (pool != null) {
                // Commits end before the task does (they are waited for), so nothing is in flight here.
                pool.shutdownNow();
            }
            if (catalog instanceof Closeable) {
                ((Closeable) catalog).close();
            }
        } catch (IOException e) {
            LOG.warn("Closing the Iceberg catalog failed", e);
        } finally {
            super.close();
        }
    }
}
