package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.annotation.VisibleForTesting;
import io.inlet.core.spi.SnapshotSignal;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Makes Hudi tables converge to a new snapshot of their source: when a source starts a snapshot from
 * scratch over tables that already hold rows, the rows the snapshot does not write again are rows
 * the source no longer has (deleted while no job ran). Once the snapshot's rows are emitted, each
 * table is read with Hudi's reader, and every row whose ordering value ({@code _source_position}) is
 * lower than the snapshot's goes back to the table's writer as a delete.
 *
 * <p>The delete is a soft one: the row's values with {@code _hoodie_is_deleted = true} and its own
 * ordering value, in a table written with Hudi's {@code DefaultHoodieRecordPayload}, which compares
 * ordering values before it applies a delete in every merge (write batches, log merges, compaction
 * into base files, reads of base and log). So a snapshot row of the same key (ordered just above
 * every older change), or a later change from the binlog, wins whether it lands before or after the
 * delete. A row newer than the snapshot's order (after a binlog reset) is kept.
 *
 * <p>State: whether a snapshot from scratch is in progress, the checkpoint that carried {@link
 * SnapshotSignal#COMPLETED}, and the snapshot's order as the run that started it saw it (a run
 * restored in the middle of a snapshot was built later and would see a later one, above the rows
 * already written). The read starts when the checkpoint after the one that carried COMPLETED
 * completes, in a thread of its own, and the deletes are emitted from the task's thread as they
 * come, so checkpoints go on meanwhile; after a restore the read starts again (the deletes are
 * idempotent). A failed read is logged and tried again after the next checkpoint. Runs with
 * parallelism one.
 */
@Internal
public final class SnapshotReconciler extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<SnapshotSignal, RowData> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotReconciler.class);

    private static final long IDLE = Long.MIN_VALUE;
    private static final long NOT_COMPLETED = -1L;
    private static final long COMPLETED_IN_NEXT_CHECKPOINT = -2L;
    private static final int BATCH = 1_000;
    private static final long DRAIN_INTERVAL_MS = 20;

    /** How to read one table and where its deletes go. */
    public static final class TableRead implements Serializable {
        private static final long serialVersionUID = 1L;

        final HudiTableSpec table;
        final OutputTag<RowData> tag;
        final int position;
        final int deleted;

        /**
         * @param table the table, its type with the ordering column and the soft-delete flag
         * @param tag the side output that feeds the table's writer
         */
        public TableRead(HudiTableSpec table, OutputTag<RowData> tag, String positionColumn, String deletedColumn) {
            this.table = table;
            this.tag = tag;
            this.position = table.type.getFieldIndex(positionColumn);
            this.deleted = table.type.getFieldIndex(deletedColumn);
            if (position < 0 || deleted < 0) {
                throw new IllegalArgumentException("Table " + table.name + " lacks " + positionColumn + " or "
                        + deletedColumn + ": " + table.type);
            }
        }
    }

    private final List<TableRead> tables;
    private final long snapshotOrder;

    private transient ListState<Tuple2<Long, Long>> state;
    /**
     * {@link #IDLE}, {@link #NOT_COMPLETED}, {@link #COMPLETED_IN_NEXT_CHECKPOINT}, or the checkpoint that carried
     * COMPLETED.
     */
    private transient long progress;
    /** The order of the rows of the snapshot in progress. */
    private transient long order;

    private transient boolean startedInThisRun;
    private transient ExecutorService reader;
    /** Soft deletes on their way from the reading thread, then {@link Done} or {@link Failed}. */
    private transient BlockingQueue<Object> found;

    private transient boolean reading;

    /** A soft delete for a table's writer. */
    private static final class Found {
        final OutputTag<RowData> tag;
        final RowData row;

        Found(OutputTag<RowData> tag, RowData row) {
            this.tag = tag;
            this.row = row;
        }
    }

    /** The read is over: deletes per table. */
    private static final class Done {
        final String counts;

        Done(String counts) {
            this.counts = counts;
        }
    }

    /** The read failed. */
    private static final class Failed {
        final Throwable cause;

        Failed(Throwable cause) {
            this.cause = cause;
        }
    }

    /**
     * @param snapshotOrder the ordering value of the snapshot's rows as this build sees it: a row of
     *     a lower one is older
     */
    public SnapshotReconciler(List<TableRead> tables, long snapshotOrder) {
        this.tables = new ArrayList<>(tables);
        this.snapshotOrder = snapshotOrder;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state = context.getOperatorStateStore()
                .getListState(
                        new ListStateDescriptor<>("inlet-snapshot-reconcile", Types.TUPLE(Types.LONG, Types.LONG)));
        progress = IDLE;
        for (Tuple2<Long, Long> p : state.get()) {
            progress = p.f0;
            order = p.f1;
        }
        if (progress != IDLE) {
            LOG.info("Restored a snapshot over existing Hudi tables in progress ({}, order {}).", progress, order);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        found = new ArrayBlockingQueue<>(BATCH * 4);
        reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "inlet-hudi-snapshot-reconciler");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void processElement(StreamRecord<SnapshotSignal> element) {
        SnapshotSignal signal = element.getValue();
        if (signal == SnapshotSignal.STARTED && !startedInThisRun) {
            // Every reader sends one; the first of this run counts, also over a restored snapshot that did not finish.
            startedInThisRun = true;
            progress = NOT_COMPLETED;
            order = snapshotOrder;
            LOG.info(
                    "A snapshot from scratch starts over the Hudi tables {}; once its rows are"
                            + " written, rows it does not" + " write again are deleted.",
                    names());
        } else if (signal == SnapshotSignal.COMPLETED && progress == NOT_COMPLETED) {
            progress = COMPLETED_IN_NEXT_CHECKPOINT;
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (progress == COMPLETED_IN_NEXT_CHECKPOINT) {
            progress = context.getCheckpointId();
        }
        state.update(progress == IDLE ? Collections.emptyList() : List.of(Tuple2.of(progress, order)));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (progress < 0 || checkpointId <= progress || reading) {
            return;
        }
        // Every snapshot row was emitted before the barrier of the checkpoint after the one that carried COMPLETED.
        reading = true;
        long threshold = order;
        reader.execute(() -> read(threshold));
        drainLater();
    }

    /** The order below which a row is older than the snapshot in progress; for tests. */
    @VisibleForTesting
    long threshold() {
        return order;
    }

    /** In the reading thread: every table's rows ordered before the snapshot, as soft deletes. */
    private void read(long threshold) {
        try {
            StringBuilder counts = new StringBuilder();
            for (TableRead t : tables) {
                int deletes = deleteOlderRows(t, threshold);
                counts.append(counts.length() == 0 ? "" : ", ")
                        .append(t.table.name)
                        .append('=')
                        .append(deletes);
            }
            found.put(new Done(counts.toString()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            try {
                found.put(new Failed(e));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void drainLater() {
        ProcessingTimeService time = getProcessingTimeService();
        time.registerTimer(time.getCurrentProcessingTime() + DRAIN_INTERVAL_MS, now -> drain());
    }

    /** In the task's thread: emits what the reading thread found, a batch at a time. */
    private void drain() {
        for (int i = 0; i < BATCH; i++) {
            Object next = found.poll();
            if (next == null) {
                break;
            }
            if (next instanceof Found) {
                Found f = (Found) next;
                output.collect(f.tag, new StreamRecord<>(f.row));
            } else if (next instanceof Done) {
                LOG.info(
                        "Hudi tables: the new snapshot's rows are written; rows ordered before it went"
                                + " as deletes ({}).",
                        ((Done) next).counts);
                reading = false;
                progress = IDLE;
                return;
            } else {
                // Never fail the job for this: it would restore and fail again. Tried again after the next checkpoint.
                LOG.warn(
                        "Reading the Hudi tables {} for rows the new snapshot no longer found failed;"
                                + " trying again after the" + " next checkpoint.",
                        names(),
                        ((Failed) next).cause);
                reading = false;
                return;
            }
        }
        drainLater();
    }

    private int deleteOlderRows(TableRead t, long threshold) throws Exception {
        // A deep copy of each row kept: the reader's rows may be views of column vectors it reuses.
        RowDataSerializer copier = new RowDataSerializer(t.table.type);
        RowData.FieldGetter[] getters = new RowData.FieldGetter[t.table.type.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(t.table.type.getTypeAt(i), i);
        }
        int[] deletes = {0};
        HudiWriters.scan(t.table, getRuntimeContext(), row -> {
            if (row.getLong(t.position) < threshold) {
                found.put(new Found(t.tag, softDelete(t, getters, copier.copy(row))));
                deletes[0]++;
            }
        });
        return deletes[0];
    }

    private static RowData softDelete(TableRead t, RowData.FieldGetter[] getters, RowData row) {
        GenericRowData out = new GenericRowData(RowKind.INSERT, getters.length);
        for (int i = 0; i < getters.length; i++) {
            out.setField(i, getters[i].getFieldOrNull(row));
        }
        out.setField(t.deleted, true);
        return out;
    }

    private List<String> names() {
        List<String> out = new ArrayList<>();
        tables.forEach(t -> out.add(t.table.name));
        return out;
    }

    @Override
    public void close() throws Exception {
        try {
            if (reader != null) {
                reader.shutdownNow();
            }
        } finally {
            super.close();
        }
    }
}
