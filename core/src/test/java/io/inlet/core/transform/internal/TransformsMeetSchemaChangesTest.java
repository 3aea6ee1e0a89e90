package io.inlet.core.transform.internal;

import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.transform.MetadataTransform;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The built-in transforms and a schema change event: passed on for a table they leave alone, a
 * route of one table to one renames it, and a transform of the changed table stops the job naming
 * the transform, the table and the change (they do not follow schema changes yet).
 */
class TransformsMeetSchemaChangesTest {

    private static ChangeEvent customersGotAColumn() {
        TableDescriptor before = ShopTables.CUSTOMERS;
        TableDescriptor after = before.toBuilder()
                .column("phone", DataTypes.STRING())
                .schemaVersion(2)
                .build();
        return ChangeEvent.schemaChange(
                SchemaChange.between(before, after, Map.of(), "ALTER TABLE customers ADD phone TEXT"),
                5L,
                SourcePosition.binlog("mysql-bin.000002", 77, 0));
    }

    @Test
    void aFilterPassesSchemaChangesOfOtherTablesAndStopsAtItsOwn() {
        List<ChangeEvent> out = new ArrayList<>();
        new ViewChanges(
                        TableSelector.of("filter", "shop\\.orders"),
                        FilterExpression.parse("status = 'shipped'"),
                        List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS))
                .process(customersGotAColumn(), out::add, () -> {});
        assertThat(out).containsExactly(customersGotAColumn());

        ViewChanges ofCustomers = new ViewChanges(
                TableSelector.of("filter", "shop\\.customers"),
                FilterExpression.parse("name IS NOT NULL"),
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS));
        assertThatThrownBy(() -> ofCustomers.process(customersGotAColumn(), out::add, () -> {}))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("The filter transform cannot follow the schema change of table shop.customers")
                .hasMessageContaining("column 'phone' was added")
                .hasMessageContaining("ALTER TABLE customers ADD phone TEXT")
                .hasMessageContaining("'schema-change.behavior' = 'fail'");
    }

    @Test
    void projectionAndMetadataStopAtTheirTablesChange() {
        ProjectionFunction projection = new ProjectionFunction(
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS),
                Map.of(ShopTables.CUSTOMERS.tableId(), new int[] {0, 1}));
        projection.open(new Configuration());
        assertThatThrownBy(() -> projection.map(customersGotAColumn()))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("The projection transform cannot follow");

        MetadataFunction metadata = new MetadataFunction(
                TableSelector.of("metadata", "shop\\.orders"),
                List.of(MetadataTransform.Kind.OP),
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS));
        metadata.open(new Configuration());
        assertThat(metadata.map(customersGotAColumn())).isEqualTo(customersGotAColumn());
    }

    @Test
    void aRouteOfOneTableToOneRenamesTheChangeAndAMergingRouteStops() throws Exception {
        TableId lake = TableId.of("lake", "customers");
        RouteFunction oneToOne = new RouteFunction(
                Map.of(ShopTables.CUSTOMERS.tableId(), lake, ShopTables.ORDERS.tableId(), TableId.of("lake", "orders")),
                Map.of(lake, 1, TableId.of("lake", "orders"), 1));
        ChangeEvent routed = oneToOne.map(customersGotAColumn());
        assertThat(routed.tableId()).isEqualTo(lake);
        assertThat(routed.schemaChange().after().tableId()).isEqualTo(lake);
        assertThat(routed.schemaVersion()).isEqualTo(2);
        assertThat(routed.position()).isEqualTo(customersGotAColumn().position());

        TableId all = TableId.of("lake", "all");
        RouteFunction merging = new RouteFunction(
                Map.of(ShopTables.CUSTOMERS.tableId(), all, ShopTables.ORDERS.tableId(), all), Map.of(all, 1));
        assertThatThrownBy(() -> merging.map(customersGotAColumn()))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("route (tables merged into lake.all)");
    }
}
