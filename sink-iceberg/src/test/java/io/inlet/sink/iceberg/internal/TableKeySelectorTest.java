package io.inlet.sink.iceberg.internal;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Routing of changes to writer subtasks: by value, the same in every copy of the selector. */
class TableKeySelectorTest {

    private static final TableDescriptor ORDERS = TableDescriptor.builder(TableId.of("shop", "orders"))
            .column("id", DataTypes.BIGINT().notNull())
            .column("region", DataTypes.STRING().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id", "region")
            .build();

    private static final TableDescriptor ITEMS = TableDescriptor.builder(TableId.of("shop", "items"))
            .column("id", DataTypes.BIGINT().notNull())
            .column("region", DataTypes.STRING().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id", "region")
            .build();

    private static ChangeEvent event(TableDescriptor table, long id, StringData region, String v) {
        return ChangeEvent.of(table.tableId(), GenericRowData.of(id, region, StringData.fromString(v)));
    }

    @Test
    void equalKeysGoTogetherWhateverTheRestOfTheRowAndHowItsValuesWereMade() throws Exception {
        TableKeySelector selector = new TableKeySelector(List.of(ORDERS, ITEMS), Map.of());
        // A copy, as another upstream subtask holds it.
        TableKeySelector copy = InstantiationUtil.clone(selector);
        Integer key = selector.getKey(event(ORDERS, 7, StringData.fromString("eu"), "a"));
        assertThat(copy.getKey(event(ORDERS, 7, StringData.fromBytes("eu".getBytes(StandardCharsets.UTF_8)), "b")))
                .isEqualTo(key);
        assertThat(selector.getKey(event(ORDERS, 7, StringData.fromString("us"), "a")))
                .isNotEqualTo(key);
        assertThat(selector.getKey(event(ITEMS, 7, StringData.fromString("eu"), "a")))
                .as("the same key of another table")
                .isNotEqualTo(key);
    }

    @Test
    void keysSpreadOverEverySubtask() {
        TableKeySelector selector = new TableKeySelector(List.of(ORDERS), Map.of());
        TableKeySelector.ByHash partitioner = new TableKeySelector.ByHash();
        Set<Integer> subtasks = new HashSet<>();
        for (long id = 0; id < 200; id++) {
            int subtask = partitioner.partition(selector.getKey(event(ORDERS, id, StringData.fromString("eu"), "")), 4);
            assertThat(subtask).isBetween(0, 3);
            subtasks.add(subtask);
        }
        assertThat(subtasks).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void aKeyColumnWidenedWhileTheJobRunsKeepsEachKeyWithItsWriter() throws Exception {
        TableDescriptor intKey = TableDescriptor.builder(TableId.of("shop", "counters"))
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .build();
        TableDescriptor bigintKey = TableDescriptor.builder(intKey.tableId())
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .schemaVersion(2)
                .build();
        TableKeySelector selector = new TableKeySelector(List.of(intKey), Map.of());
        for (int id : new int[] {-5, -1, 0, 7, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            ChangeEvent before = ChangeEvent.of(intKey.tableId(), GenericRowData.of(id, StringData.fromString("a")));
            ChangeEvent after = ChangeEvent.of(
                            intKey.tableId(),
                            2,
                            GenericRowData.of((long) id, StringData.fromString("b")),
                            ChangeEvent.UNKNOWN_TIMESTAMP,
                            io.inlet.core.event.SourcePosition.none())
                    .withRowType(bigintKey.toRowType());
            assertThat(selector.getKey(after)).as("key %d", id).isEqualTo(selector.getKey(before));
        }
    }

    @Test
    void aTableTheSinkWasNotBuiltForIsNamed() {
        TableKeySelector selector = new TableKeySelector(List.of(ORDERS), Map.of());
        assertThatThrownBy(() -> selector.getKey(event(ITEMS, 1, StringData.fromString("eu"), "")))
                .hasMessageContaining("shop.items");
    }
}
