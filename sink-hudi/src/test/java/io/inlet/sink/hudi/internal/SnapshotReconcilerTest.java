package io.inlet.sink.hudi.internal;

import io.inlet.core.spi.SnapshotSignal;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnapshotReconcilerTest {

    private static final RowType TYPE = RowType.of(
            new org.apache.flink.table.types.logical.LogicalType[] {
                new IntType(false), new BigIntType(false), new BooleanType(true)
            },
            new String[] {"id", "_source_position", "_hoodie_is_deleted"});

    @Test
    void shipsToTaskManagers() throws Exception {
        HudiTableSpec table = HudiTableSpec.of(
                "shop__orders", TYPE, Map.of(), List.of("id"), List.of(), Map.of("path", "file:///lake/shop/orders"));
        SnapshotReconciler.TableRead read = new SnapshotReconciler.TableRead(
                table,
                new OutputTag<RowData>("hudi-shop.orders", InternalTypeInfo.of(TYPE)),
                "_source_position",
                "_hoodie_is_deleted");
        SnapshotReconciler reconciler = new SnapshotReconciler(List.of(read), 42L);
        assertThat(InstantiationUtil.clone(reconciler)).isNotNull().isNotSameAs(reconciler);
        SnapshotReconciler.TableRead copy = InstantiationUtil.clone(read);
        assertThat(copy.table.name()).isEqualTo("shop__orders");
        assertThat(copy.position).isEqualTo(1);
        assertThat(copy.deleted).isEqualTo(2);
    }

    @Test
    void needsTheOrderingAndTheSoftDeleteColumns() {
        HudiTableSpec table = HudiTableSpec.of("t", TYPE, Map.of(), List.of("id"), List.of(), Map.of());
        assertThatThrownBy(() -> new SnapshotReconciler.TableRead(
                        table,
                        new OutputTag<RowData>("t", InternalTypeInfo.of(TYPE)),
                        "_source_ts",
                        "_hoodie_is_deleted"))
                .hasMessageContaining("lacks _source_ts or _hoodie_is_deleted");
    }

    @Test
    void aRunRestoredInTheMiddleOfASnapshotKeepsTheOrderOfTheRunThatStartedIt() throws Exception {
        HudiTableSpec table = HudiTableSpec.of("t", TYPE, Map.of(), List.of("id"), List.of(), Map.of());
        SnapshotReconciler.TableRead read = new SnapshotReconciler.TableRead(
                table,
                new OutputTag<RowData>("t", InternalTypeInfo.of(TYPE)),
                "_source_position",
                "_hoodie_is_deleted");
        OperatorSubtaskState midSnapshot;
        try (OneInputStreamOperatorTestHarness<SnapshotSignal, RowData> first =
                new OneInputStreamOperatorTestHarness<>(new SnapshotReconciler(List.of(read), 100L))) {
            first.open();
            first.processElement(new StreamRecord<>(SnapshotSignal.STARTED));
            first.processElement(new StreamRecord<>(SnapshotSignal.STARTED)); // every reader sends one
            midSnapshot = first.snapshot(1L, 0L);
        }
        // Built again later (a restore from a savepoint), where the binlog has moved on: the rows already
        // written carry the first run's order, and only they say what is older than the snapshot.
        SnapshotReconciler restored = new SnapshotReconciler(List.of(read), 200L);
        try (OneInputStreamOperatorTestHarness<SnapshotSignal, RowData> second =
                new OneInputStreamOperatorTestHarness<>(restored)) {
            second.initializeState(midSnapshot);
            second.open();
            assertThat(restored.threshold()).isEqualTo(100L);
            // A snapshot from scratch in this run takes this run's order.
            second.processElement(new StreamRecord<>(SnapshotSignal.STARTED));
            assertThat(restored.threshold()).isEqualTo(200L);
        }
    }
}
