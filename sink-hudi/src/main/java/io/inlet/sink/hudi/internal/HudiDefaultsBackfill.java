package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.ColumnDefaults;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.OutputTag;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Gives the rows of Hudi tables that existed before an {@code ADD COLUMN ... DEFAULT x} the value
 * {@code x}, as MySQL shows it in them, for the columns {@link HudiDefaults} holds as pending: in
 * {@code open()}, before the job's first checkpoint, it reads each table with Hudi's reader and
 * writes every row whose ordering value ({@code _source_position}) is lower than the change's and
 * whose column is NULL again, with the default and its own ordering value, to the table's writer.
 *
 * <p>Why this is safe next to the job's own changes: the table is written with Hudi's {@code
 * DefaultHoodieRecordPayload}, which keeps the version with the higher ordering value in every merge,
 * deletes (soft) included; so a change of the same row the job writes (replayed from its checkpoint,
 * or new) wins whichever lands first: while a table is given defaults, its writer turns the source's
 * deletes into soft ones ({@link HudiRowShaper}), as Hudi keeps a hard delete's ordering value out of
 * the merge with a record that follows it. The rows are all emitted before the job's first checkpoint
 * (no checkpoint starts before every task runs, and this one runs once {@code open()} returns), so
 * they are in the writer's first instant with any delete of the same rows, before a compaction could
 * drop a row a later delete removed (a row deleted and compacted away before is not read at all). The
 * read waits until the instant the job before left in flight is recommitted or rolled back. A failure
 * before the defaults are marked given runs it again; rows given already are skipped (their column
 * holds the default).
 *
 * <p>Marks the columns given once the first checkpoint after it completes (Hudi's coordinator commits
 * that checkpoint's instant, or recommits it after a failure, from the checkpoint's state). Runs
 * with parallelism one, fed by no records (see {@link #NO_EVENTS}); keeps no state.
 */
@Internal
public final class HudiDefaultsBackfill extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<ChangeEvent, RowData> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(HudiDefaultsBackfill.class);

    /** Lets no event through: the operator's input only ties it into the job. */
    public static final FilterFunction<ChangeEvent> NO_EVENTS = new NoEvents();

    private static final class NoEvents implements FilterFunction<ChangeEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean filter(ChangeEvent event) {
            return false;
        }
    }

    /** One table: how to read it, where its rows go, and the defaults to give. */
    public static final class TableFill implements Serializable {
        private static final long serialVersionUID = 1L;

        final HudiTableSpec read;
        final RowType write;
        final OutputTag<RowData> tag;
        final String path;
        final String positionColumn;
        final List<HudiDefaults.Added> pending;
        final Set<String> writesAtBuild;

        /**
         * @param read the table as it is now: the write type's columns its schema has
         * @param write the table's write type, which the emitted rows have
         * @param writesAtBuild the table's delta commits in flight when the job was built (the job before
         *     it): the read waits until they are recommitted or rolled back
         */
        public TableFill(
                HudiTableSpec read,
                RowType write,
                OutputTag<RowData> tag,
                String path,
                String positionColumn,
                List<HudiDefaults.Added> pending,
                Set<String> writesAtBuild) {
            this.read = Objects.requireNonNull(read, "read");
            this.write = Objects.requireNonNull(write, "write");
            this.tag = Objects.requireNonNull(tag, "tag");
            this.path = Objects.requireNonNull(path, "path");
            this.positionColumn = Objects.requireNonNull(positionColumn, "positionColumn");
            this.pending = List.copyOf(pending);
            this.writesAtBuild = Set.copyOf(writesAtBuild);
        }

        /** The table's Hudi name. */
        public String name() {
            return read.name();
        }
    }

    private final List<TableFill> tables;
    /** Whether the defaults of this attempt's rows are marked given (after its first completed checkpoint). */
    private transient boolean marked;

    public HudiDefaultsBackfill(List<TableFill> tables) {
        this.tables = List.copyOf(tables);
    }

    @Override
    public void open() throws Exception {
        super.open();
        for (TableFill t : tables) {
            // Every attempt gives them: a failover restores a checkpoint that may be older than the rows an
            // earlier attempt gave (their instant then rolls back), and rows that have their value are skipped.
            if (!t.pending.isEmpty()) {
                long start = System.nanoTime();
                awaitWritesAtBuild(t);
                long rows = fill(t, t.pending);
                LOG.info(
                        "Hudi table {}: gave {} row(s) written before the change the default of {} ({} ms).",
                        t.read.name(),
                        rows,
                        t.pending,
                        (System.nanoTime() - start) / 1_000_000);
            }
        }
    }

    /** How long the read waits for the job before's last instant to be recommitted or rolled back. */
    private static final long WRITES_AT_BUILD_TIMEOUT_MS = 300_000;

    /**
     * Waits until the delta commits in flight when the job was built are no longer: the restored job's
     * Hudi coordinator recommits the one whose checkpoint completed (its rows are from before the
     * checkpoint, so the job does not read them again) once its writers start, and rolls back the others.
     * Read before that, the recommitted rows would keep NULL.
     */
    private static void awaitWritesAtBuild(TableFill t) throws Exception {
        long deadline = System.currentTimeMillis() + WRITES_AT_BUILD_TIMEOUT_MS;
        // Built once: each build parses Hadoop's defaults, and the loop looks every 200 ms.
        Configuration conf = HudiTables.hadoopConf(t.read.options);
        while (true) {
            Set<String> still = new TreeSet<>(t.writesAtBuild);
            still.retainAll(HudiTables.pendingWrites(t.path, conf));
            if (still.isEmpty()) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new InletStopException("The Hudi table at " + t.path + " still has the delta"
                        + " commit(s) " + still + " of the job before this one in flight after "
                        + WRITES_AT_BUILD_TIMEOUT_MS / 1000 + " s: Hudi's writer neither recommitted nor rolled"
                        + " them back, so the rows from before the added column cannot be read yet. Check the"
                        + " table's timeline (.hoodie) and the job's log, then restart it from its latest checkpoint.");
            }
            // Hudi gives the task no signal when its coordinator has resolved them; the deadline above bounds this.
            Thread.sleep(200);
        }
    }

    private long fill(TableFill t, List<HudiDefaults.Added> pending) throws Exception {
        RowType read = t.read.type();
        int position = read.getFieldIndex(t.positionColumn);
        int[] fromRead = new int[t.write.getFieldCount()];
        RowData.FieldGetter[] getters = new RowData.FieldGetter[t.write.getFieldCount()];
        for (int i = 0; i < fromRead.length; i++) {
            fromRead[i] = read.getFieldIndex(t.write.getFieldNames().get(i));
            if (fromRead[i] >= 0) {
                getters[i] = RowData.createFieldGetter(read.getTypeAt(fromRead[i]), fromRead[i]);
            }
        }
        List<Fill> fills = new ArrayList<>();
        for (HudiDefaults.Added a : pending) {
            int target = t.write.getFieldIndex(a.column());
            try {
                fills.add(
                        new Fill(target, ColumnDefaults.parse(a.defaultText(), t.write.getTypeAt(target)), a.order()));
            } catch (IllegalArgumentException e) {
                // The same on every attempt: said, and left NULL rather than failing the job again and again.
                LOG.warn(
                        "Hudi table {}: the recorded default {} is no value of {}; the rows before keep NULL there.",
                        t.read.name(),
                        a,
                        t.write.getTypeAt(target).asSummaryString(),
                        e);
            }
        }
        if (fills.isEmpty()) {
            return 0;
        }
        RowDataSerializer copier = new RowDataSerializer(read);
        long[] count = {0};
        HudiWriters.scan(t.read, getRuntimeContext(), row -> {
            GenericRowData out = null;
            for (Fill f : fills) {
                int from = fromRead[f.target];
                boolean lacks = from < 0 || row.isNullAt(from);
                if (lacks && row.getLong(position) < f.order) {
                    if (out == null) {
                        out = widen(copier.copy(row), getters);
                    }
                    out.setField(f.target, f.value);
                }
            }
            if (out != null) {
                output.collect(t.tag, new StreamRecord<>(out));
                count[0]++;
            }
        });
        return count[0];
    }

    /** A column to give its default: its index in the write type, the value, the change's order. */
    private static final class Fill {
        final int target;
        final Object value;
        final long order;

        Fill(int target, Object value, long order) {
            this.target = target;
            this.value = value;
            this.order = order;
        }
    }

    /** The row read, in the write type: a column the table has no value of yet is NULL. */
    private static GenericRowData widen(RowData row, RowData.FieldGetter[] getters) {
        GenericRowData out = new GenericRowData(RowKind.INSERT, getters.length);
        for (int i = 0; i < getters.length; i++) {
            out.setField(i, getters[i] == null ? null : getters[i].getFieldOrNull(row));
        }
        return out;
    }

    @Override
    public void processElement(StreamRecord<ChangeEvent> element) {
        // Fed by no records (NO_EVENTS).
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (!marked) {
            // This checkpoint's Hudi instant holds the rows emitted in open().
            for (TableFill t : tables) {
                Configuration conf = HudiTables.hadoopConf(t.read.options);
                for (HudiDefaults.Added a : t.pending) {
                    try {
                        HudiDefaults.markDone(t.path, a.column(), conf);
                    } catch (UncheckedIOException e) {
                        // Not worth a failure: the next job finds it pending and reads the table again (rows given
                        // the default already are skipped).
                        LOG.warn(
                                "Hudi table {}: cannot mark {} given; the next job checks again.", t.read.name(), a, e);
                    }
                }
            }
            marked = true;
            LOG.info("Defaults given and marked: {}", describe());
        }
    }

    private List<String> describe() {
        List<String> out = new ArrayList<>();
        tables.forEach(t -> out.add(t.read.name() + " " + t.pending));
        return out;
    }
}
