package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;

/**
 * Keyed by the table's key: collects the rows each epoch (snapshot) removed and added for the key,
 * and when the epoch is complete (the readers' watermark passes it) emits the key's net change
 * ({@link NetChange}). Timers fire in epoch order, so a key's changes leave in commit order.
 *
 * <p>State: per key, the tagged rows of the epochs not complete yet (at most {@link
 * ChangelogEnumerator#MAX_OPEN_EPOCHS} epochs, usually one or two rows each), and one timer per key
 * and epoch; nothing is kept once an epoch is emitted. Rows of an epoch that removes nothing (an
 * append, the initial scan) pair with nothing: they pass without state once the epochs before are
 * complete. The epoch watermarks stay here: the output
 * carries no timestamps and no watermarks, so a downstream event time is the user's own.
 */
@Internal
public final class ChangePairingOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, Triggerable<RowData, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    /** The rows' type, {@link CommitColumns} included. */
    private final RowType rowType;

    private final boolean keepCommit;

    private transient MapState<Long, List<RowData>> pending;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient ProjectedRowData withoutCommit;

    /**
     * @param rowType the table's row type with the {@link CommitColumns}, as the readers emit it
     * @param keepCommit whether the changes leave with the commit columns, or in the table's row type
     */
    public ChangePairingOperator(RowType rowType, boolean keepCommit) {
        this.rowType = rowType;
        this.keepCommit = keepCommit;
    }

    @Override
    public void open() throws Exception {
        super.open();
        pending = getRuntimeContext()
                .getMapState(new MapStateDescriptor<>(
                        "epoch-rows", Types.LONG, new ListTypeInfo<>(InternalTypeInfo.of(rowType))));
        timers = getInternalTimerService("epochs", VoidNamespaceSerializer.INSTANCE, this);
        int[] tableFields = new int[rowType.getFieldCount() - CommitColumns.COUNT];
        for (int i = 0; i < tableFields.length; i++) {
            tableFields[i] = i;
        }
        withoutCommit = ProjectedRowData.from(tableFields);
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
                output.collect(new StreamRecord<>(keepCommit ? row : withoutCommit.replaceRow(row)));
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
        for (RowData change : NetChange.of(rows)) {
            // The projection passes the row kind through; the output serializer copies the row.
            output.collect(new StreamRecord<>(keepCommit ? change : withoutCommit.replaceRow(change)));
        }
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
