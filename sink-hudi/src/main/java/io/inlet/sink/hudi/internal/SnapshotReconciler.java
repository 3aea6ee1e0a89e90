package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.spi.SnapshotSignal;

import org.apache.flink.api.common.io.InputFormat;
import org.apache.flink.api.common.io.RichInputFormat;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.io.InputSplit;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
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

/**
 * Makes Hudi tables converge to a new snapshot of their source: when a source starts a snapshot from
 * scratch over tables that already hold rows, the rows the snapshot does not write again are rows
 * the source no longer has (deleted while no job ran). Once the snapshot's rows are emitted, each
 * table is read with Hudi's reader, and every row whose ordering value ({@code _source_position}) is
 * lower than the snapshot's goes back to the table's writer as a delete.
 *
 * <p>The delete is a soft one: the row's values with {@code _hoodie_is_deleted = true} and its own
 * ordering value. Hudi merges such a record by its ordering value everywhere (write batches, log
 * merges, compaction into base files), unlike a plain delete, which compaction applies to a base file
 * whatever its ordering value. So a snapshot row of the same key (ordered just above every older
 * change), or a later change from the binlog, wins whether it lands before or after the delete, and
 * the read need not wait for the snapshot's last commit: a key read before its snapshot row is
 * committed gets a delete that loses. A row newer than the snapshot's order (after a binlog reset) is
 * kept, as its ordering makes it win anyway.
 *
 * <p>State: whether a snapshot from scratch is in progress, and the checkpoint that carried {@link
 * SnapshotSignal#COMPLETED}; the deletes are emitted when the next checkpoint completes, and again
 * after a restore before that (they are idempotent). Runs with parallelism one; the read blocks its
 * task for as long as reading the tables takes.
 */
@Internal
public final class SnapshotReconciler extends AbstractStreamOperator<RowData> implements OneInputStreamOperator<SnapshotSignal, RowData> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotReconciler.class);

    private static final long IDLE = Long.MIN_VALUE;
    private static final long NOT_COMPLETED = -1L;
    private static final long COMPLETED_IN_NEXT_CHECKPOINT = -2L;

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
                throw new IllegalArgumentException(
                        "Table " + table.name + " lacks " + positionColumn + " or " + deletedColumn + ": " + table.type);
            }
        }
    }

    private final List<TableRead> tables;
    private final long snapshotOrder;

    private transient ListState<Long> state;
    /** {@link #IDLE}, {@link #NOT_COMPLETED}, {@link #COMPLETED_IN_NEXT_CHECKPOINT}, or the checkpoint that carried COMPLETED. */
    private transient long progress;
    private transient boolean startedInThisRun;

    /**
     * @param snapshotOrder the ordering value of the snapshot's rows: a row of a lower one is older
     */
    public SnapshotReconciler(List<TableRead> tables, long snapshotOrder) {
        this.tables = new ArrayList<>(tables);
        this.snapshotOrder = snapshotOrder;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("inlet-snapshot-reconcile", Types.LONG));
        progress = IDLE;
        for (Long p : state.get()) {
            progress = p;
        }
        if (progress != IDLE) {
            LOG.info("Restored a snapshot over existing Hudi tables in progress ({}).", progress);
        }
    }

    @Override
    public void processElement(StreamRecord<SnapshotSignal> element) {
        SnapshotSignal signal = element.getValue();
        if (signal == SnapshotSignal.STARTED && !startedInThisRun) {
            // Every reader sends one; the first of this run counts, also over a restored snapshot that did not finish.
            startedInThisRun = true;
            progress = NOT_COMPLETED;
            LOG.info("A snapshot from scratch starts over the Hudi tables {}; once its rows are written, rows it does not"
                    + " write again are deleted.", names());
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
        state.update(progress == IDLE ? Collections.emptyList() : List.of(progress));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (progress < 0 || checkpointId <= progress) {
            return;
        }
        // Every snapshot row was emitted before the barrier of the checkpoint after the one that carried COMPLETED.
        for (TableRead t : tables) {
            int deletes = deleteOlderRows(t);
            LOG.info("Hudi table {}: the new snapshot's rows are written; {} rows ordered before it go as deletes.", t.table.name,
                    deletes);
        }
        progress = IDLE;
    }

    private int deleteOlderRows(TableRead t) throws Exception {
        InputFormat<RowData, InputSplit> format;
        try {
            format = HudiWriters.reader(t.table);
        } catch (RuntimeException e) {
            if (noFiles(e)) {
                return 0; // nothing committed yet: no row to delete
            }
            throw e;
        }
        // A deep copy: the reader's rows may be views of column vectors it reuses.
        RowDataSerializer copier = new RowDataSerializer(t.table.type);
        RowData.FieldGetter[] getters = new RowData.FieldGetter[t.table.type.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(t.table.type.getTypeAt(i), i);
        }
        if (format instanceof RichInputFormat) {
            ((RichInputFormat<?, ?>) format).setRuntimeContext(getRuntimeContext());
            ((RichInputFormat<?, ?>) format).openInputFormat();
        }
        int deletes = 0;
        try {
            format.configure(new org.apache.flink.configuration.Configuration());
            InputSplit[] splits;
            try {
                splits = format.createInputSplits(1);
            } catch (RuntimeException e) {
                if (noFiles(e)) {
                    return 0;
                }
                throw e;
            }
            for (InputSplit split : splits) {
                format.open(split);
                try {
                    while (!format.reachedEnd()) {
                        RowData row = format.nextRecord(null);
                        if (row == null || row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE) {
                            continue;
                        }
                        if (row.getLong(t.position) < snapshotOrder) {
                            output.collect(t.tag, new StreamRecord<>(softDelete(t, getters, copier.copy(row))));
                            deletes++;
                        }
                    }
                } finally {
                    format.close();
                }
            }
        } finally {
            if (format instanceof RichInputFormat) {
                ((RichInputFormat<?, ?>) format).closeInputFormat();
            }
        }
        return deletes;
    }

    private static RowData softDelete(TableRead t, RowData.FieldGetter[] getters, RowData row) {
        GenericRowData out = new GenericRowData(RowKind.INSERT, getters.length);
        for (int i = 0; i < getters.length; i++) {
            out.setField(i, getters[i].getFieldOrNull(row));
        }
        out.setField(t.deleted, true);
        return out;
    }

    private static boolean noFiles(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (String.valueOf(c.getMessage()).contains("No files found for reading")) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    private List<String> names() {
        List<String> out = new ArrayList<>();
        tables.forEach(t -> out.add(t.table.name));
        return out;
    }
}
