package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Keyed by the table's key: collects the rows each epoch (snapshot) removed and added for the key,
 * and when the epoch is complete (the readers' watermark passes it) emits the key's net change
 * ({@link NetChange}). Timers fire in epoch order, so a key's changes leave in commit order.
 *
 * <p>State: per key, the tagged rows of the epochs not complete yet (at most {@link
 * ChangelogEnumerator#MAX_OPEN_EPOCHS} epochs, usually one or two rows each), and one timer per key
 * and epoch; nothing is kept once an epoch is emitted. Rows of an epoch that removes nothing (an
 * append, the initial scan) pair with nothing: they pass without state once the epochs before are
 * complete. The epoch watermarks stay here: the output carries no timestamps and no watermarks, so a
 * downstream event time is the user's own.
 *
 * <p>With before-images STATE it also keeps each live key's latest row (one row per key: state as
 * large as the table), and a removal, whether a whole row or a key-only delete's key ({@code -U}
 * tagged), takes its values from there; a key that is not live removes nothing. The mode is kept in
 * the operator's state: a read restored in the other mode fails, as its state would not match.
 */
@Internal
public final class ChangePairingOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, Triggerable<RowData, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    /** The rows' type, {@link CommitColumns} included. */
    private final RowType rowType;

    private final boolean keepCommit;

    /** before-images STATE: each live key's latest row is kept, removals take their values from it. */
    private final boolean keysFromState;

    private transient MapState<Long, List<RowData>> pending;
    private transient ValueState<RowData> latest;
    private transient ListState<String> mode;
    private transient RowData.FieldGetter[] tableGetters;
    private transient RowDataSerializer copier;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient ProjectedRowData withoutCommit;

    /**
     * @param rowType the table's row type with the {@link CommitColumns}, as the readers emit it
     * @param keepCommit whether the changes leave with the commit columns, or in the table's row type
     * @param keysFromState before-images STATE: keep each key's latest row for its removal
     */
    public ChangePairingOperator(RowType rowType, boolean keepCommit, boolean keysFromState) {
        this.rowType = rowType;
        this.keepCommit = keepCommit;
        this.keysFromState = keysFromState;
    }

    /**
     * The type of the readers' tagged rows: every column nullable, as a key-only delete read with
     * before-images STATE carries its key columns only. The binary layout is the same.
     */
    public static RowType tagged(RowType withCommit) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField f : withCommit.getFields()) {
            fields.add(new RowType.RowField(f.getName(), f.getType().copy(true)));
        }
        return new RowType(false, fields);
    }

    private static String modeName(boolean keysFromState) {
        return keysFromState ? "STATE" : "FILES";
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        mode = context.getOperatorStateStore()
                .getUnionListState(new ListStateDescriptor<>("before-images", Types.STRING));
        // Only a recorded mode is checked: a new pairing in a restored job (a new uid prefix, with a
        // stateful operator chained after it) counts as restored too, with nothing of its own.
        for (String was : mode.get()) {
            if (!was.equals(modeName(keysFromState))) {
                throw new InletStopException("This Iceberg changelog read was started with before-images " + was
                        + " and is restored with " + modeName(keysFromState) + ": its state holds "
                        + (keysFromState ? "no latest rows, so removals would lose their values" : "the other mode's")
                        + ". Keep before-images " + was + " for this read, or start a new read (a new uid prefix)"
                        + " from the table scan.");
            }
        }
        mode.update(List.of(modeName(keysFromState)));
    }

    @Override
    public void open() throws Exception {
        super.open();
        // Removals read as keys carry nulls in columns that are required: with STATE the rows are held
        // in the readers' all-nullable type (the files mode keeps the type its savepoints hold).
        RowType held = keysFromState ? tagged(rowType) : rowType;
        pending = getRuntimeContext()
                .getMapState(new MapStateDescriptor<>(
                        "epoch-rows", Types.LONG, new ListTypeInfo<>(InternalTypeInfo.of(held))));
        if (keysFromState) {
            latest = getRuntimeContext()
                    .getState(new ValueStateDescriptor<>("latest-row", InternalTypeInfo.of(rowType)));
        }
        timers = getInternalTimerService("epochs", VoidNamespaceSerializer.INSTANCE, this);
        int[] tableFields = new int[rowType.getFieldCount() - CommitColumns.COUNT];
        for (int i = 0; i < tableFields.length; i++) {
            tableFields[i] = i;
        }
        withoutCommit = ProjectedRowData.from(tableFields);
        tableGetters = new RowData.FieldGetter[tableFields.length];
        for (int i = 0; i < tableFields.length; i++) {
            tableGetters[i] = RowData.createFieldGetter(rowType.getTypeAt(i).copy(true), i);
        }
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        long epoch = element.getTimestamp();
        RowData row = element.getValue();
        if (row.getRowKind() == RowKind.UPDATE_AFTER) {
            // Added in an epoch that removes nothing: once every earlier epoch is complete (their
            // rows of this key emitted), nothing can come before it, and nothing pairs with it.
            row.setRowKind(RowKind.INSERT);
            if (timers.currentWatermark() >= epoch - 1) {
                if (keysFromState) {
                    latest.update(held(row));
                }
                emit(row);
                return;
            }
        }
        List<RowData> rows = pending.get(epoch);
        if (rows == null) {
            rows = new ArrayList<>(2);
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, epoch);
        }
        rows.add(row);
        pending.put(epoch, rows);
    }

    @Override
    public void onEventTime(InternalTimer<RowData, VoidNamespace> timer) throws Exception {
        long epoch = timer.getTimestamp();
        List<RowData> rows = pending.get(epoch);
        if (rows == null) {
            return;
        }
        pending.remove(epoch);
        if (keysFromState) {
            fromState(rows);
            return;
        }
        for (RowData change : NetChange.of(rows)) {
            emit(change);
        }
    }

    /**
     * One key's epoch with before-images STATE: the key was removed if any row says so, and its
     * before-image is the latest row kept; a key with no row kept is not live (the state has seen
     * every live row), so its removal removes nothing, whatever a delete file holds. Added rows
     * replace the kept one.
     */
    private void fromState(List<RowData> rows) throws Exception {
        boolean removed = false;
        List<RowData> added = new ArrayList<>(1);
        for (RowData r : rows) {
            RowKind kind = r.getRowKind();
            if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
                removed = true; // a whole row, or a key-only delete's key: the values are the kept ones
            } else {
                added.add(r);
            }
        }
        RowData kept = latest.value();
        RowData before = removed ? kept : null;
        // The before-image leaves with this epoch's commit columns, as every change of it does.
        RowData commit = rows.get(0);
        if (before != null && added.size() == 1) {
            RowData after = added.get(0);
            latest.update(held(after));
            if (!sameValues(before, after)) {
                emit(beforeImage(before, commit, RowKind.UPDATE_BEFORE));
                emit(NetChange.kind(after, RowKind.UPDATE_AFTER));
            }
            return;
        }
        if (before != null) {
            emit(beforeImage(before, commit, RowKind.DELETE));
        }
        for (RowData a : added) {
            emit(NetChange.kind(a, RowKind.INSERT));
        }
        if (!added.isEmpty()) {
            latest.update(held(added.get(added.size() - 1)));
        } else if (removed) {
            latest.clear();
        }
    }

    /** The row's table columns with the commit columns of another row of the epoch. */
    private RowData beforeImage(RowData before, RowData commit, RowKind kind) {
        int n = tableGetters.length;
        GenericRowData row = new GenericRowData(kind, rowType.getFieldCount());
        for (int i = 0; i < n; i++) {
            row.setField(i, tableGetters[i].getFieldOrNull(before));
        }
        for (int i = 0; i < CommitColumns.COUNT; i++) {
            row.setField(n + i, commit.getLong(n + i));
        }
        return row;
    }

    /** Whether two rows hold the same values in the table's columns (their commit columns may differ). */
    private boolean sameValues(RowData a, RowData b) {
        for (RowData.FieldGetter g : tableGetters) {
            if (!Objects.deepEquals(g.getFieldOrNull(a), g.getFieldOrNull(b))) {
                return false;
            }
        }
        return true;
    }

    /** The row to keep: with object reuse a row may be reused after this call, so it is copied. */
    private RowData held(RowData row) {
        return getExecutionConfig().isObjectReuseEnabled() ? latestSerializer().copy(row) : row;
    }

    private RowDataSerializer latestSerializer() {
        if (copier == null) {
            copier = new RowDataSerializer(rowType);
        }
        return copier;
    }

    private void emit(RowData change) {
        // The projection passes the row kind through; the output serializer copies the row.
        output.collect(new StreamRecord<>(keepCommit ? change : withoutCommit.replaceRow(change)));
    }

    @Override
    public void onProcessingTime(InternalTimer<RowData, VoidNamespace> timer) {}

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // Fire the epochs' timers, but keep the epoch numbers out of the user's event time.
        if (getTimeServiceManager().isPresent()) {
            getTimeServiceManager().get().advanceWatermark(mark);
        }
    }
}
