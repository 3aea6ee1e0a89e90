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
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
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
import java.util.LinkedHashMap;
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
import java.util.concurrent.TimeUnit;
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
 * <p>Commits run off the task thread, in rounds: a checkpoint's notification starts one (or the next,
 * when one runs), and the operator goes on taking files and barriers meanwhile, so writers sending
 * their files at the next barrier never wait for the last checkpoint's commits. Commits lag at most
 * one checkpoint: a barrier waits for the round of the checkpoint two before it. A crash in a
 * commit fails the task at its next element, barrier or notification; finishing and closing wait for
 * the round in flight, so no commit runs on beside the task's next attempt.
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
    /** Commits tables, {@link #COMMIT_THREADS} at a time. */
    private transient ExecutorService pool;
    /** Runs the rounds of commits, one after the other, off the task thread. */
    private transient ExecutorService rounds;

    private transient String lineage;

    /**
     * Guards what the task thread and the commit threads share: {@link #pending}, {@link #committed}, {@link
     * #failures} and the round fields below. Never held while a commit runs.
     */
    private transient Object lock;
    /** Table → checkpoint → part → the files of that part, from every writer. */
    private transient Map<String, NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>>> pending;
    /** Table → how far this lineage committed to it. */
    private transient Map<String, Position> committed;

    private transient Map<String, Integer> failures;
    /** The last completed checkpoint whose files are due. */
    private transient long dueUpTo;

    private transient boolean roundInFlight;
    /** A notification came since the last round began: a new checkpoint, or tables whose commit failed retry. */
    private transient boolean roundRequested;
    /** What ended the rounds: rethrown on the task thread. */
    private transient Throwable failure;

    /** Tables whose last committed checkpoint this run has read from their snapshots. */
    private transient Set<String> readFromTable;
    /** The tables as loaded from the catalog, one commit thread at a time each. */
    private transient Map<String, Table> loaded;

    /**
     * Tables to look at for rows waiting for a column's default ({@link IcebergDefaults}) in the next round even
     * without files: every table after a restore, and a table whose backfill failed.
     */
    private transient Set<String> backfills;

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
        lock = new Object();
        pending = new HashMap<>();
        committed = new HashMap<>();
        failures = new HashMap<>();
        dueUpTo = Long.MIN_VALUE;
        readFromTable = ConcurrentHashMap.newKeySet();
        loaded = new ConcurrentHashMap<>();
        backfills = ConcurrentHashMap.newKeySet();
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
        rounds = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "iceberg-commit-rounds");
            t.setDaemon(true);
            return t;
        });
        // Restored files: their checkpoint completed before the restore (or the restore would not
        // hold them), so they go now, before anything of this run, rather than with the next checkpoint.
        Map<String, List<Due>> restored;
        synchronized (lock) {
            // A backfill a failure cut short, or one whose commit the failure came before, is found in the table.
            backfills.addAll(tables);
            restored = due(Long.MAX_VALUE);
        }
        rethrow(round(Long.MAX_VALUE, restored));
    }

    @Override
    public void processElement(StreamRecord<TableCommittable> element) {
        rethrowFailure();
        synchronized (lock) {
            add(element.getValue());
        }
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
        rethrowFailure();
        lineageState.update(List.of(lineage));
        List<byte[]> out = new ArrayList<>();
        List<Tuple2<String, Long>> done = new ArrayList<>();
        synchronized (lock) {
            // Commits may lag a checkpoint behind, never two: the snapshot reconciler counts on checkpoint n's
            // files being in their tables once checkpoint n + 2 completed.
            long mustBeIn = Math.min(dueUpTo, context.getCheckpointId() - 2);
            while (roundInFlight && failure == null && pendingUpTo(mustBeIn)) {
                lock.wait();
            }
            // Files a round in flight commits now are here too: a restore finds them in the table and skips them.
            for (Map.Entry<String, NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>>> t :
                    pending.entrySet()) {
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
            // Whole checkpoints only: a restore reads a checkpoint's committed parts from the table.
            committed.forEach((table, at) -> done.add(Tuple2.of(table, at.completeCheckpoint())));
        }
        rethrowFailure();
        pendingState.update(out);
        committedState.update(done);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        rethrowFailure();
        requestRound(checkpointId);
    }

    /** Asks for a round up to the checkpoint: the rounds thread starts one, or takes it when its current one ends. */
    private void requestRound(long checkpointId) {
        synchronized (lock) {
            dueUpTo = Math.max(dueUpTo, checkpointId);
            roundRequested = true;
            if (!roundInFlight) {
                roundInFlight = true;
                rounds.execute(this::runRounds);
            }
        }
    }

    @Override
    public void endInput() throws Exception {
        // A bounded input ended: its last files (tagged Long.MAX_VALUE by the writers) go now.
        commitAndWait(Long.MAX_VALUE);
    }

    @Override
    public void finish() throws Exception {
        // A stop with a savepoint: the savepoint's own commit may still run.
        awaitCommitted();
        super.finish();
    }

    /** Commits every pending checkpoint up to the given one and waits for it. */
    private void commitAndWait(long checkpointId) throws InterruptedException {
        rethrowFailure();
        requestRound(checkpointId);
        awaitCommitted();
    }

    /** Waits until no round runs. */
    private void awaitRounds() throws InterruptedException {
        synchronized (lock) {
            while (roundInFlight) {
                lock.wait();
            }
        }
    }

    /** The commits' failure, on the task thread: the task fails and restores. */
    private void rethrowFailure() {
        Throwable f;
        synchronized (lock) {
            f = failure;
        }
        rethrow(f);
    }

    private static void rethrow(Throwable f) {
        if (f instanceof Error) {
            throw (Error) f;
        }
        if (f instanceof RuntimeException) {
            throw (RuntimeException) f;
        }
        if (f != null) {
            throw new IllegalStateException("Committing to Iceberg failed", f);
        }
    }

    /** Waits until no round runs, and fails as the commits did. */
    @VisibleForTesting
    void awaitCommitted() throws InterruptedException {
        awaitRounds();
        rethrowFailure();
    }

    /**
     * Runs rounds until every due checkpoint had one, on the rounds thread. A notification during a round
     * moves {@link #dueUpTo} on, and the next round takes it: the task thread goes on with its input and
     * barriers meanwhile, so the writers never wait for commits to flush theirs.
     */
    private void runRounds() {
        while (true) {
            long upTo;
            Map<String, List<Due>> due;
            synchronized (lock) {
                if (!roundRequested || failure != null) {
                    roundInFlight = false;
                    lock.notifyAll();
                    return;
                }
                roundRequested = false;
                upTo = dueUpTo;
                due = due(upTo);
            }
            Throwable ended;
            try {
                ended = round(upTo, due);
            } catch (Throwable t) {
                ended = t;
            }
            synchronized (lock) {
                if (ended != null && failure == null) {
                    failure = ended;
                }
                lock.notifyAll();
            }
        }
    }

    /** Whether files of a checkpoint up to the given one wait for a commit. Called with the lock held. */
    private boolean pendingUpTo(long checkpointId) {
        for (NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>> checkpoints : pending.values()) {
            if (checkpoints.firstKey() <= checkpointId) {
                return true;
            }
        }
        return false;
    }

    /** Per table, the pending parts of checkpoints up to the given one, in order. Called with the lock held. */
    private Map<String, List<Due>> due(long upTo) {
        Map<String, List<Due>> due = new LinkedHashMap<>();
        pending.forEach((table, checkpoints) -> {
            List<Due> parts = new ArrayList<>();
            checkpoints.headMap(upTo, true).forEach((checkpointId, byPart) -> {
                int count = byPart.lastKey() + 1;
                byPart.forEach(
                        (part, results) -> parts.add(new Due(checkpointId, part, count, new ArrayList<>(results))));
            });
            if (!parts.isEmpty()) {
                due.put(table, parts);
            }
        });
        // Taken one by one: a commit thread may add a table meanwhile, which then waits for the next round.
        for (Iterator<String> it = backfills.iterator(); it.hasNext(); ) {
            due.putIfAbsent(it.next(), new ArrayList<>());
            it.remove();
        }
        return due;
    }

    /** One part of a checkpoint of a table, due for a commit. */
    private static final class Due {
        final long checkpointId;
        final int part;
        final int parts;
        final List<WriteResult> results;

        Due(long checkpointId, int part, int parts, List<WriteResult> results) {
            this.checkpointId = checkpointId;
            this.part = part;
            this.parts = parts;
            this.results = results;
        }
    }

    /**
     * Commits, per table and in checkpoint order, the due parts. Tables commit independently of each other, on
     * {@link #COMMIT_THREADS} threads. Returns what must fail the task: a crash, or a table failing too often.
     */
    private Throwable round(long checkpointId, Map<String, List<Due>> due) throws InterruptedException {
        if (due.isEmpty()) {
            return null;
        }
        List<String> names = new ArrayList<>(due.keySet());
        List<Future<?>> commits = new ArrayList<>();
        for (String name : names) {
            commits.add(pool.submit(() -> {
                commitTable(name, due.get(name));
                return null;
            }));
        }
        long start = System.nanoTime();
        RuntimeException tooMany = null;
        Error crash = null;
        int failed = 0;
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            try {
                commits.get(i).get();
                synchronized (lock) {
                    failures.remove(name);
                }
            } catch (ExecutionException wrapped) {
                Throwable e = wrapped.getCause();
                if (e instanceof Error) {
                    // Kept until every other table's commit has ended: none may run on beside a restored attempt.
                    crash = crash == null ? (Error) e : crash;
                    continue;
                }
                failed++;
                int attempts;
                synchronized (lock) {
                    attempts = failures.merge(name, 1, Integer::sum);
                }
                metrics.table(name).failed();
                // The commit may have reached the table all the same (a timeout after the catalog took it):
                // the next attempt reads the table's last committed checkpoint again instead of trusting ours.
                readFromTable.remove(name);
                loaded.remove(name);
                backfills.add(name);
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
        LOG.info(
                "Committed {} Iceberg table(s) up to checkpoint {} in {} ms{}.",
                names.size() - failed,
                checkpointId == Long.MAX_VALUE ? "(end of input)" : String.valueOf(checkpointId),
                (System.nanoTime() - start) / 1_000_000,
                failed > 0 ? "; " + failed + " failed and stay pending" : "");
        return crash != null ? crash : tooMany;
    }

    /**
     * Commits the due parts of a table in order, each its own snapshot, removing each from the pending files
     * once it is in the table.
     */
    private void commitTable(String name, List<Due> due) {
        // Loaded once per run and again after a failed attempt; each commit refreshes the table itself.
        Table table = loaded.computeIfAbsent(name, n -> catalog.loadTable(TableIdentifier.parse(n)));
        Position last;
        synchronized (lock) {
            last = committed.getOrDefault(name, Position.NONE);
        }
        // The state may be older than the table (a commit after the checkpoint restored from): the table decides,
        // read once per run and after each failed attempt.
        if (readFromTable.add(name)) {
            last = Position.max(last, lastCommitted(table, lineage));
            setCommitted(name, last);
        }
        boolean committedAny = false;
        for (Due d : due) {
            if (last.covers(d.checkpointId, d.part)) {
                LOG.info(
                        "Iceberg table {}: checkpoint {} part {} is committed already (restored files); skipped.",
                        name,
                        d.checkpointId,
                        d.part);
            } else {
                committedAny |= commit(name, table, d.checkpointId, d.part, d.parts, d.results);
                last = Position.of(d.checkpointId, d.part, d.parts);
            }
            if (d.part == d.parts - 1) {
                // Never back: a restored older checkpoint, skipped, must not hide that the table is further on.
                last = Position.max(last, Position.complete(d.checkpointId));
            }
            synchronized (lock) {
                NavigableMap<Long, NavigableMap<Integer, List<WriteResult>>> checkpoints = pending.get(name);
                NavigableMap<Integer, List<WriteResult>> parts = checkpoints.get(d.checkpointId);
                parts.remove(d.part);
                if (parts.isEmpty()) {
                    checkpoints.remove(d.checkpointId);
                    if (checkpoints.isEmpty()) {
                        pending.remove(name);
                    }
                }
                committed.put(name, last);
            }
        }
        if (!committedAny) {
            // A schema change's empty part, or a table looked at after a restore: nothing refreshed it.
            table.refresh();
        }
        if (!IcebergDefaults.pending(table).isEmpty()) {
            // A share per round, after the round's commits: the next checkpoint's round goes on with the rest.
            try {
                IcebergDefaults.Share share = IcebergDefaults.backfill(table);
                metrics.table(name).backfilled(share.rows);
                if (share.more) {
                    backfills.add(name);
                }
            } catch (IOException | RuntimeException e) {
                // Not a failed commit of the job's files: the marks stay in the table, the next round tries again
                // (e.g. after a compaction replaced a file it read).
                backfills.add(name);
                LOG.warn(
                        "Iceberg table {}: giving the rows written before a column was added its default failed;"
                                + " the next round tries again.",
                        name,
                        e);
            }
        }
    }

    private void setCommitted(String name, Position at) {
        synchronized (lock) {
            committed.put(name, at);
        }
    }

    /** Commits the part; false when it had no files. */
    private boolean commit(
            String name, Table table, long checkpointId, int part, int parts, List<WriteResult> results) {
        List<DataFile> data = new ArrayList<>();
        List<DeleteFile> deletes = new ArrayList<>();
        List<CharSequence> referenced = new ArrayList<>();
        for (WriteResult r : results) {
            data.addAll(Arrays.asList(r.dataFiles()));
            deletes.addAll(Arrays.asList(r.deleteFiles()));
            referenced.addAll(Arrays.asList(r.referencedDataFiles()));
        }
        if (data.isEmpty() && deletes.isEmpty()) {
            return false; // nothing new: no empty snapshot
        }
        long start = System.nanoTime();
        // Files written without a column added with a default (a writer met the change after this checkpoint's
        // barrier): their rows wait for it, recorded in the same commit so that a restore finds them.
        Set<Integer> lacked = IcebergDefaults.lackedBy(table, data);
        Transaction txn = lacked.isEmpty() ? null : table.newTransaction();
        RowDelta delta = txn == null ? table.newRowDelta() : txn.newRowDelta();
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
        if (txn != null) {
            UpdateProperties marks = txn.updateProperties();
            IcebergDefaults.markPending(marks, lacked);
            marks.commit();
            txn.commitTransaction();
        }
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
        return true;
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

    private static void awaitTerminationUninterruptibly(ExecutorService executor) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (executor.awaitTermination(10, TimeUnit.MINUTES)) {
                        return;
                    }
                    LOG.warn("Iceberg commits are still running after 10 minutes; waiting on.");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @VisibleForTesting
    String lineage() {
        return lineage;
    }

    @Override
    public void close() throws Exception {
        try {
            if (rounds != null) {
                // A commit must not run on beside the next attempt of this task, which reads the tables first.
                rounds.shutdown();
                awaitTerminationUninterruptibly(rounds);
                pool.shutdown();
                awaitTerminationUninterruptibly(pool);
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
