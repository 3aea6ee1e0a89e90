package io.inlet.sink.hudi.internal;

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

    private static final RowType TYPE = RowType.of(new org.apache.flink.table.types.logical.LogicalType[] {
            new IntType(false), new BigIntType(false), new BooleanType(true)}, new String[] {"id", "_source_position", "_hoodie_is_deleted"});

    @Test
    void shipsToTaskManagers() throws Exception {
        HudiTableSpec table = HudiTableSpec.of("shop__orders", TYPE, Map.of(), List.of("id"), List.of(),
                Map.of("path", "file:///lake/shop/orders"));
        SnapshotReconciler.TableRead read = new SnapshotReconciler.TableRead(
                table, new OutputTag<RowData>("hudi-shop.orders", InternalTypeInfo.of(TYPE)), "_source_position", "_hoodie_is_deleted");
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
                table, new OutputTag<RowData>("t", InternalTypeInfo.of(TYPE)), "_source_ts", "_hoodie_is_deleted"))
                .hasMessageContaining("lacks _source_ts or _hoodie_is_deleted");
    }
}
