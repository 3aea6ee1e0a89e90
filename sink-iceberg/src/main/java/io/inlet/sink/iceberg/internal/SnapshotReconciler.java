package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.annotation.VisibleForTesting;
import io.inlet.core.spi.SnapshotSignal;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes Iceberg tables converge to a new snapshot of their source: when a source starts a snapshot
 * from scratch over tables that already hold rows, the rows the snapshot does not write again are
 * rows the source no longer has (deleted while no job ran), and once the snapshot is committed they
 * are removed.
 *
 * <p>When it opens, before any checkpoint of the run can complete (so before anything of the run is
 * committed, also with unaligned checkpoints), it reads each table's last sequence number; on {@link
 * SnapshotSignal#STARTED} that becomes the table's base, also over a restored snapshot in progress
 * (what was written since then is older than this snapshot too). Every
 * row the snapshot and the changes after it write lands in files of higher sequence numbers, and
 * every key they write deletes the key's rows of lower ones (equality deletes: upsert mode, or a
 * snapshot row upserted in changelog mode). So once every snapshot row is committed, whatever a data
 * file of sequence number at most the base still holds is a row the snapshot did not find: those
 * files are dropped in one commit ({@code delete}). That is idempotent (a second run finds none) and
 * needs no state per key.
 *
 * <p>When: the checkpoint after the one that carried {@link SnapshotSignal#COMPLETED} holds every
 * snapshot row (signals are ordered with rows at checkpoint granularity; the next checkpoint is
 * triggered after that one completed), so the files go once the table shows that checkpoint
 * committed by this job (Iceberg's committer writes it into each snapshot's summary), or three
 * checkpoints later if the table had nothing to commit. Dropping a file early would only hide, until
 * the next commit, a row whose new version is on its way. A failure to drop (a catalog that does
 * not answer) is logged and tried again at the next checkpoint, never failing the job; a table that
 * is gone is given up.
 *
 * <p>State: per table in progress, its base and the checkpoint that carried COMPLETED. Runs with
 * parallelism one.
 */
@Internal
public final class SnapshotReconciler extends RichSinkFunction<SnapshotSignal>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotReconciler.class);

    /**
     * How many checkpoints after the one that holds every snapshot row to wait for a commit that may not come.
     * The committer commits off its task thread but never acknowledges checkpoint n + 2 before checkpoint n's
     * files are in; one more covers a notification that reached it late.
     */
    static final int EMPTY_CHECKPOINTS = 3;

    private static final long NOT_COMPLETED = -1L;
    private static final long COMPLETED_IN_NEXT_CHECKPOINT = -2L;

    private final CatalogLoader catalogLoader;
    private final List<String> tables;

    private transient Catalog catalog;
    private transient ListState<Tuple3<String, Long, Long>> state;
    /** Table → [base sequence number, checkpoint that carried COMPLETED (or one of the markers above)]. */
    private transient Map<String, long[]> pending;
    /** Each table's last sequence number when this run opened; -1 for a table without a snapshot. */
    private transient Map<String, Long> openedAt;

    private transient boolean startedInThisRun;

    /**
     * @param tables the Iceberg tables of the sink, as {@link TableIdentifier#toString()}
     */
    public SnapshotReconciler(CatalogLoader catalogLoader, List<String> tables) {
        this.catalogLoader = catalogLoader;
        this.tables = new ArrayList<>(tables);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>(
                        "inlet-snapshot-reconcile", Types.TUPLE(Types.STRING, Types.LONG, Types.LONG)));
        pending = new LinkedHashMap<>();
        for (Tuple3<String, Long, Long> t : state.get()) {
            pending.put(t.f0, new long[] {t.f1, t.f2});
        }
        if (!pending.isEmpty()) {
            LOG.info("Restored a snapshot over existing Iceberg tables in progress: {}", describe());
        }
    }

    @Override
    public void open(Configuration parameters) {
        catalog = catalogLoader.loadCatalog();
        openedAt = new LinkedHashMap<>();
        for (String name : tables) {
            Snapshot current = catalog.loadTable(TableIdentifier.parse(name)).currentSnapshot();
            openedAt.put(name, current == null ? -1L : current.sequenceNumber());
        }
    }

    @Override
    public void invoke(SnapshotSignal signal, Context context) {
        if (signal == SnapshotSignal.STARTED) {
            // Every reader sends one; the first of this run counts.
            if (startedInThisRun) {
                return;
            }
            startedInThisRun = true;
            pending.clear();
            openedAt.forEach((name, base) -> {
                if (base >= 0) {
                    pending.put(name, new long[] {base, NOT_COMPLETED});
                }
            });
            if (!pending.isEmpty()) {
                LOG.info(
                        "A snapshot from scratch starts over Iceberg tables that hold data; once it is"
                                + " committed, rows it"
                                + " does not write again are removed (base sequence numbers {}).",
                        describe());
            }
        } else if (signal == SnapshotSignal.COMPLETED) {
            for (long[] p : pending.values()) {
                if (p[1] == NOT_COMPLETED) {
                    p[1] = COMPLETED_IN_NEXT_CHECKPOINT;
                }
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        List<Tuple3<String, Long, Long>> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : pending.entrySet()) {
            if (e.getValue()[1] == COMPLETED_IN_NEXT_CHECKPOINT) {
                e.getValue()[1] = context.getCheckpointId();
            }
            out.add(Tuple3.of(e.getKey(), e.getValue()[0], e.getValue()[1]));
        }
        state.update(out);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        String jobId = getRuntimeContext().getJobId().toString();
        pending.entrySet().removeIf(e -> {
            long completedIn = e.getValue()[1];
            if (completedIn < 0 || checkpointId <= completedIn) {
                return false;
            }
            try {
                Table table = catalog.loadTable(TableIdentifier.parse(e.getKey()));
                long holdsAllRows = completedIn + 1;
                if (!committedThrough(table, jobId, holdsAllRows) && checkpointId < holdsAllRows + EMPTY_CHECKPOINTS) {
                    return false;
                }
                dropOlderThan(table, e.getValue()[0]);
                return true;
            } catch (NoSuchTableException gone) {
                LOG.error(
                        "Iceberg table {} is gone; rows a new snapshot no longer found are not removed from it.",
                        e.getKey());
                return true;
            } catch (RuntimeException failed) {
                // Never fail the job for this: it would restore and fail again. The files stay until a later
                // checkpoint.
                LOG.warn(
                        "Iceberg table {}: removing the rows the new snapshot no longer found failed;"
                                + " trying again after the" + " next checkpoint.",
                        e.getKey(),
                        failed);
                return false;
            }
        });
    }

    /** Whether this job's committer has committed the given checkpoint (or a later one) to the table. */
    @VisibleForTesting
    static boolean committedThrough(Table table, String jobId, long checkpointId) {
        int seen = 0;
        for (Snapshot s = table.currentSnapshot(); s != null && seen < 100; seen++) {
            Map<String, String> summary = s.summary();
            if (jobId.equals(summary.get("flink.job-id"))) {
                String max = summary.get("flink.max-committed-checkpoint-id");
                return max != null && Long.parseLong(max) >= checkpointId;
            }
            Long parent = s.parentId();
            s = parent == null ? null : table.snapshot(parent);
        }
        return false;
    }

    /**
     * Drops the table's data files of sequence number at most {@code base}, in one commit; planned
     * again if a concurrent commit (a compaction) removed one of them first.
     */
    @VisibleForTesting
    static int dropOlderThan(Table table, long base) {
        for (int attempt = 1; ; attempt++) {
            table.refresh();
            Snapshot current = table.currentSnapshot();
            if (current == null) {
                return 0;
            }
            Map<String, DataFile> old = new LinkedHashMap<>();
            long rows = 0;
            try (CloseableIterable<FileScanTask> tasks =
                    table.newScan().useSnapshot(current.snapshotId()).planFiles()) {
                for (FileScanTask task : tasks) {
                    DataFile file = task.file();
                    Long sequence = file.dataSequenceNumber();
                    if (sequence != null
                            && sequence <= base
                            && old.putIfAbsent(file.path().toString(), file) == null) {
                        rows += file.recordCount();
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Planning the files of Iceberg table " + table.name() + " failed", e);
            }
            if (old.isEmpty()) {
                LOG.info(
                        "Iceberg table {}: the new snapshot is committed; no file older than it is left.",
                        table.name());
                return 0;
            }
            DeleteFiles delete = table.newDelete().validateFilesExist();
            old.values().forEach(delete::deleteFile);
            delete.set("inlet.snapshot-reconciled-base", String.valueOf(base));
            try {
                delete.commit();
            } catch (ValidationException e) {
                if (attempt >= 3) {
                    throw e;
                }
                LOG.info(
                        "Iceberg table {}: files changed while rows older than the new snapshot were"
                                + " removed ({}); planning again.",
                        table.name(),
                        e.getMessage());
                continue;
            }
            LOG.info(
                    "Iceberg table {}: the new snapshot is committed; removed the {} data files"
                            + " written before it ({} rows"
                            + " written, among them every row the snapshot no longer found).",
                    table.name(),
                    old.size(),
                    rows);
            return old.size();
        }
    }

    private String describe() {
        StringBuilder b = new StringBuilder();
        pending.forEach((name, p) ->
                b.append(b.length() == 0 ? "" : ", ").append(name).append('=').append(p[0]));
        return b.toString();
    }

    @Override
    public void close() throws Exception {
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }
}
