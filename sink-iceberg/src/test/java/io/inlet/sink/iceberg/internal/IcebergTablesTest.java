package io.inlet.sink.iceberg.internal;

import io.inlet.core.InletValidationException;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.table.api.DataTypes;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IcebergTablesTest {

    static final TableDescriptor ORDERS = TableDescriptor.builder(TableId.of("shop", "orders"))
            .column("id", DataTypes.BIGINT(), "the key")
            .column("customer", DataTypes.STRING())
            .column("created", DataTypes.TIMESTAMP(3))
            .primaryKey("id")
            .build();

    @Test
    void schemaCarriesKeyAndComments() {
        Schema s = IcebergTables.schema(ORDERS);
        assertThat(s.identifierFieldNames()).containsExactly("id");
        assertThat(s.findField("id").doc()).isEqualTo("the key");
        assertThat(s.findField("id").isRequired()).isTrue();
    }

    @Test
    void aFloatKeyIsRefusedNamingTheTable() {
        TableDescriptor t = TableDescriptor.builder(TableId.of("x", "f"))
                .column("k", DataTypes.DOUBLE())
                .primaryKey("k")
                .build();
        assertThatThrownBy(() -> IcebergTables.schema(t))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Iceberg cannot hold table x.f");
    }

    @Test
    void parsesPartitionSpecs() {
        Schema s = IcebergTables.schema(ORDERS);
        PartitionSpec spec =
                IcebergTables.spec(s, ORDERS, "bucket(id, 16), day(created), truncate(customer, 2), customer");
        assertThat(spec.fields())
                .extracting(f -> f.transform().toString())
                .containsExactly("bucket[16]", "day", "truncate[2]", "identity");
        assertThat(IcebergTables.spec(s, ORDERS, null).isUnpartitioned()).isTrue();
        assertThatThrownBy(() -> IcebergTables.spec(s, ORDERS, "bucket(id)"))
                .hasMessageContaining(
                        "The partition spec 'bucket(id)' of table shop.orders is invalid: 'bucket(id)' needs a number");
        assertThatThrownBy(() -> IcebergTables.spec(s, ORDERS, "week(created)"))
                .hasMessageContaining("unknown transform 'week'");
        assertThatThrownBy(() -> IcebergTables.spec(s, ORDERS, "day(nope)"))
                .hasMessageContaining("of table shop.orders is invalid");
    }

    @Test
    void upsertsNeedPartitionColumnsInTheKey() {
        Schema s = IcebergTables.schema(ORDERS);
        assertThat(IcebergTables.upsertPartitionProblem(
                        "lake.orders", IcebergTables.spec(s, ORDERS, "bucket(id, 4)"), s, ORDERS.primaryKey()))
                .isNull();
        assertThat(IcebergTables.upsertPartitionProblem(
                        "lake.orders", IcebergTables.spec(s, ORDERS, "day(created)"), s, ORDERS.primaryKey()))
                .contains("Table lake.orders is partitioned by [created], which are not part of its primary key [id]")
                .contains("'write-mode' = 'changelog'");
    }
}
