package io.inlet.core.table;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TableDescriptorTest {

    private static final TableId ORDERS = TableId.of("shop", "orders");

    private static TableDescriptor orders() {
        return TableDescriptor.builder(ORDERS)
                .column("id", DataTypes.BIGINT())
                .column("customer", DataTypes.STRING(), "who ordered")
                .column("amount", DataTypes.DECIMAL(10, 2).notNull())
                .column("day", DataTypes.DATE())
                .primaryKey("id")
                .partitionKeys("day")
                .property("write.target-file-size-bytes", "134217728")
                .comment("orders of the shop")
                .build();
    }

    @Test
    void primaryKeyImpliesNotNull() {
        TableDescriptor t = orders();
        assertThat(t.column("id").get().isNullable()).isFalse();
        assertThat(t.column("customer").get().isNullable()).isTrue();
        assertThat(t.primaryKeyIndexes()).containsExactly(0);
    }

    @Test
    void convertsToRowType() {
        RowType rowType = orders().toRowType();
        assertThat(rowType.getFieldNames()).containsExactly("id", "customer", "amount", "day");
        assertThat(rowType.asSummaryString())
                .isEqualTo("ROW<`id` BIGINT NOT NULL, `customer` STRING, `amount` DECIMAL(10, 2) NOT NULL,"
                        + " `day` DATE> NOT NULL");
    }

    @Test
    void convertsToResolvedSchemaWithKeyAndCommentsAndBack() {
        ResolvedSchema schema = orders().toResolvedSchema();
        assertThat(schema.getPrimaryKey()).isPresent();
        assertThat(schema.getPrimaryKey().get().getColumns()).containsExactly("id");
        assertThat(schema.getColumn("customer").get().getComment()).hasValue("who ordered");

        TableDescriptor back = TableDescriptor.fromResolvedSchema(ORDERS, schema);
        assertThat(back.columns()).isEqualTo(orders().columns());
        assertThat(back.primaryKey()).containsExactly("id");
    }

    @Test
    void isImmutableAndSerializable() throws Exception {
        TableDescriptor t = orders();
        assertThatThrownBy(() -> t.columns().add(Column.of("x", DataTypes.INT())))
                .isInstanceOf(UnsupportedOperationException.class);
        TableDescriptor copy = InstantiationUtil.clone(t);
        assertThat(copy).isEqualTo(t);
        assertThat(copy.toRowType()).isEqualTo(t.toRowType());
        assertThat(t.toBuilder().schemaVersion(2).build().schemaVersion()).isEqualTo(2);
        assertThat(t.schemaVersion()).isEqualTo(1);
    }

    @Test
    void rejectsInvalidDescriptorsNamingTheProblem() {
        assertThatThrownBy(() -> TableDescriptor.builder(ORDERS).build())
                .hasMessageContaining("shop.orders has no columns");
        assertThatThrownBy(() -> TableDescriptor.builder(ORDERS)
                        .column("id", DataTypes.INT())
                        .column("id", DataTypes.INT())
                        .build())
                .hasMessageContaining("the column 'id' twice");
        assertThatThrownBy(() -> TableDescriptor.builder(ORDERS)
                        .column("id", DataTypes.INT())
                        .primaryKey("nope")
                        .build())
                .hasMessageContaining("primary key column 'nope'")
                .hasMessageContaining("[id]");
        assertThatThrownBy(() -> TableDescriptor.builder(ORDERS)
                        .column("id", DataTypes.INT())
                        .partitionKeys("day")
                        .build())
                .hasMessageContaining("partition column 'day'");
        assertThatThrownBy(() -> TableDescriptor.builder(ORDERS)
                        .column("id", DataTypes.INT())
                        .schemaVersion(0)
                        .build())
                .hasMessageContaining("schema version");
    }
}
