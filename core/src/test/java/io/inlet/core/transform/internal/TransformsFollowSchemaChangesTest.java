package io.inlet.core.transform.internal;

import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.transform.MetadataTransform;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The built-in transforms follow schema changes of the tables they transform: {@code *} picks up an
 * added column, metadata columns stay last, a filter is bound again; a change that takes a column the
 * transform names stops the job naming the column. Changes of other tables pass as they are; a route
 * of one table to one renames the change, a merging route stops.
 */
class TransformsFollowSchemaChangesTest {

    private static final SourcePosition AT = SourcePosition.binlog("mysql-bin.000002", 77, 0);

    private static final TableDescriptor CUSTOMERS_V2 = ShopTables.CUSTOMERS.toBuilder()
            .columns(List.of(
                    ShopTables.CUSTOMERS.column("id").get(),
                    ShopTables.CUSTOMERS.column("name").get(),
                    io.inlet.core.table.Column.of("phone", DataTypes.STRING()),
                    ShopTables.CUSTOMERS.column("email").get()))
            .schemaVersion(2)
            .build();

    /** {@code ALTER TABLE customers ADD phone TEXT AFTER name}. */
    private static ChangeEvent customersGotAPhone() {
        return ChangeEvent.schemaChange(
                SchemaChange.between(
                        ShopTables.CUSTOMERS,
                        CUSTOMERS_V2,
                        Map.of(),
                        "ALTER TABLE customers ADD phone TEXT AFTER name"),
                5L,
                AT);
    }

    private static ChangeEvent change(TableDescriptor before, TableDescriptor after, Map<String, String> renames) {
        return ChangeEvent.schemaChange(SchemaChange.between(before, after, renames, null), 5L, AT);
    }

    private static ChangeEvent customerV2(RowKind kind, int id, String name, String phone, String email) {
        RowData row = GenericRowData.ofKind(
                kind, id, StringData.fromString(name), StringData.fromString(phone), StringData.fromString(email));
        return ChangeEvent.of(ShopTables.CUSTOMERS.tableId(), 2, row, 6L, AT).withRowType(CUSTOMERS_V2.toRowType());
    }

    private static ChangeEvent customerV1(RowKind kind, int id, String name, String email) {
        return ChangeEvent.of(
                ShopTables.CUSTOMERS.tableId(),
                1,
                GenericRowData.ofKind(kind, id, StringData.fromString(name), StringData.fromString(email)),
                4L,
                AT);
    }

    private static ProjectionFunction projection(String columns) {
        ProjectionFunction f = new ProjectionFunction(new FollowedTables<>(
                "projection '" + columns + "'",
                TableSelector.of("projection", "shop\\.customers"),
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS),
                new Projection(columns, ColumnLists.parse("projection", "projection", columns))));
        f.open(new Configuration());
        return f;
    }

    @Test
    void aStarPicksUpAnAddedColumnAtItsPlace() {
        ProjectionFunction p = projection("id, name AS full_name, *");
        ChangeEvent out = p.map(customersGotAPhone());

        SchemaChange c = out.schemaChange();
        assertThat(c.before().columnNames()).containsExactly("id", "full_name", "email");
        assertThat(c.after().columnNames()).containsExactly("id", "full_name", "phone", "email");
        assertThat(c.after().primaryKey()).containsExactly("id");
        assertThat(c.after().schemaVersion()).isEqualTo(2);
        assertThat(c.changes())
                .containsExactly(ColumnChange.added("phone", DataTypes.STRING().getLogicalType(), "full_name"));
        assertThat(c.statement()).contains("ALTER TABLE customers ADD phone TEXT AFTER name");
        assertThat(out.position()).isEqualTo(AT);

        // Rows of the old version (still in flight) and of the new one, each in its own shape.
        ChangeEvent v1 = p.map(customerV1(RowKind.INSERT, 1, "Ada", "ada@x"));
        assertThat(v1.rowType()).isEmpty();
        assertThat(v1.row().getArity()).isEqualTo(3);
        assertThat(v1.row().getString(2).toString()).isEqualTo("ada@x");

        ChangeEvent v2 = p.map(customerV2(RowKind.UPDATE_AFTER, 1, "Ada", "555", "ada@x"));
        assertThat(v2.schemaVersion()).isEqualTo(2);
        assertThat(v2.rowType()).contains(c.after().toRowType());
        assertThat(v2.kind()).isEqualTo(RowKind.UPDATE_AFTER);
        assertThat(v2.row().getString(1).toString()).isEqualTo("Ada");
        assertThat(v2.row().getString(2).toString()).isEqualTo("555");
        assertThat(v2.row().getString(3).toString()).isEqualTo("ada@x");
    }

    @Test
    void aRenameTheStarCoversIsARenameOfTheOutputAndADropOfAnUnlistedColumnChangesNoColumn() {
        TableDescriptor renamed = ShopTables.CUSTOMERS.toBuilder()
                .columns(List.of(
                        ShopTables.CUSTOMERS.column("id").get(),
                        ShopTables.CUSTOMERS.column("name").get(),
                        ShopTables.CUSTOMERS.column("email").get().withName("mail")))
                .schemaVersion(2)
                .build();
        SchemaChange viaStar = projection("id, *")
                .map(change(ShopTables.CUSTOMERS, renamed, Map.of("email", "mail")))
                .schemaChange();
        assertThat(viaStar.changes()).containsExactly(ColumnChange.renamed("email", "mail"));

        TableDescriptor dropped = ShopTables.CUSTOMERS.toBuilder()
                .columns(List.of(
                        ShopTables.CUSTOMERS.column("id").get(),
                        ShopTables.CUSTOMERS.column("name").get()))
                .schemaVersion(2)
                .build();
        ProjectionFunction idAndName = projection("id, name");
        SchemaChange unlisted =
                idAndName.map(change(ShopTables.CUSTOMERS, dropped, Map.of())).schemaChange();
        assertThat(unlisted.changes()).isEmpty();
        assertThat(unlisted.after().schemaVersion()).isEqualTo(2);
        ChangeEvent row = idAndName.map(ChangeEvent.of(
                        ShopTables.CUSTOMERS.tableId(), 2, GenericRowData.of(7, StringData.fromString("Bo")), 6L, AT)
                .withRowType(dropped.toRowType()));
        assertThat(row.rowType()).contains(unlisted.after().toRowType());
        assertThat(row.row().getInt(0)).isEqualTo(7);
    }

    @Test
    void aChangeThatTakesANamedColumnStopsTheJobNamingIt() {
        TableDescriptor renamed = ShopTables.CUSTOMERS.toBuilder()
                .columns(List.of(
                        ShopTables.CUSTOMERS.column("id").get(),
                        ShopTables.CUSTOMERS.column("name").get().withName("full_name"),
                        ShopTables.CUSTOMERS.column("email").get()))
                .schemaVersion(2)
                .build();
        ChangeEvent rename = change(ShopTables.CUSTOMERS, renamed, Map.of("name", "full_name"));
        assertThatThrownBy(() -> projection("id, name AS customer").map(rename))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("The projection 'id, name AS customer' transform no longer applies to table"
                        + " shop.customers")
                .hasMessageContaining("column 'name' was renamed to 'full_name'")
                .hasMessageContaining(
                        "the column 'name' does not exist in table shop.customers" + " (columns: id, full_name, email)")
                .hasMessageContaining("mysql-bin.000002");

        ViewChanges filter = new ViewChanges(
                TableSelector.of("filter", "shop\\.customers"),
                FilterExpression.parse("name LIKE 'A%'"),
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS));
        assertThatThrownBy(() -> filter.process(rename, e -> {}, () -> {}))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("The filter transform no longer applies to table shop.customers")
                .hasMessageContaining("the column 'name' does not exist");

        TableDescriptor retyped = ShopTables.CUSTOMERS.toBuilder()
                .columns(List.of(
                        ShopTables.CUSTOMERS.column("id").get(),
                        ShopTables.CUSTOMERS.column("name").get().withType(DataTypes.INT()),
                        ShopTables.CUSTOMERS.column("email").get()))
                .schemaVersion(2)
                .build();
        ViewChanges like = new ViewChanges(
                TableSelector.of("filter", "shop\\.customers"),
                FilterExpression.parse("name LIKE 'A%'"),
                List.of(ShopTables.CUSTOMERS));
        assertThatThrownBy(() -> like.process(change(ShopTables.CUSTOMERS, retyped, Map.of()), e -> {}, () -> {}))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("LIKE needs a string column, but shop.customers.name is INT");
    }

    @Test
    void aFilterIsBoundAgainAndJudgesRowsOfTheNewVersion() {
        ViewChanges filter = new ViewChanges(
                TableSelector.of("filter", "shop\\.customers"),
                FilterExpression.parse("email LIKE '%@x'"),
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS));
        List<ChangeEvent> out = new ArrayList<>();
        filter.process(customersGotAPhone(), out::add, () -> {});
        assertThat(out).containsExactly(customersGotAPhone());

        // Email is the fourth field now: an update that leaves the view becomes a delete of the old row.
        filter.process(customerV2(RowKind.UPDATE_BEFORE, 1, "Ada", "555", "ada@x"), out::add, () -> {});
        filter.process(customerV2(RowKind.UPDATE_AFTER, 1, "Ada", "555", "ada@y"), out::add, () -> {});
        filter.process(customerV2(RowKind.INSERT, 2, "Bo", "556", "bo@y"), out::add, () -> {});
        assertThat(out).hasSize(2);
        ChangeEvent left = out.get(1);
        assertThat(left.kind()).isEqualTo(RowKind.DELETE);
        assertThat(left.rowType()).contains(CUSTOMERS_V2.toRowType());
        assertThat(left.row().getString(3).toString()).isEqualTo("ada@x");
    }

    @Test
    void metadataColumnsStayLast() {
        Map<MetadataTransform.Kind, String> columns = new LinkedHashMap<>();
        columns.put(MetadataTransform.Kind.OP, "_op");
        MetadataColumns planner = new MetadataColumns(columns);
        MetadataFunction metadata = new MetadataFunction(
                planner.kinds(),
                new FollowedTables<>(
                        "metadata",
                        TableSelector.of("metadata", ".*"),
                        List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS),
                        planner));
        metadata.open(new Configuration());

        SchemaChange c = metadata.map(customersGotAPhone()).schemaChange();
        assertThat(c.after().columnNames()).containsExactly("id", "name", "phone", "email", "_op");
        assertThat(c.changes())
                .containsExactly(ColumnChange.added("phone", DataTypes.STRING().getLogicalType(), "name"));

        ChangeEvent row = metadata.map(customerV2(RowKind.DELETE, 1, "Ada", "555", "ada@x"));
        assertThat(row.rowType()).contains(c.after().toRowType());
        assertThat(row.row().getString(2).toString()).isEqualTo("555");
        assertThat(row.row().getString(4).toString()).isEqualTo("-D");

        TableDescriptor clash = ShopTables.CUSTOMERS.toBuilder()
                .column("_op", DataTypes.STRING())
                .schemaVersion(2)
                .build();
        assertThatThrownBy(() -> metadata.map(change(ShopTables.CUSTOMERS, clash, Map.of())))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("table shop.customers already has a column '_op'");
    }

    @Test
    void aVersionWithTheRowTypeOfAnEarlierOneGoesOnWithItsOwnNumber() {
        ProjectionFunction p = projection("id, *");
        p.map(customersGotAPhone());
        // DROP phone: version 3 has the row type of version 1.
        TableDescriptor v3 = ShopTables.CUSTOMERS.toBuilder().schemaVersion(3).build();
        SchemaChange dropped = p.map(change(CUSTOMERS_V2, v3, Map.of())).schemaChange();
        assertThat(dropped.previousVersion()).isEqualTo(2);
        assertThat(dropped.newVersion()).isEqualTo(3);
        assertThat(dropped.changes()).containsExactly(ColumnChange.dropped("phone"));
    }

    @Test
    void aRowOfAVersionNoChangeAnnouncedIsReadByItsOwnType() {
        ChangeEvent v2 = projection("id, *").map(customerV2(RowKind.INSERT, 3, "Cy", "557", "cy@x"));
        assertThat(v2.rowType().get().getFieldNames()).containsExactly("id", "name", "phone", "email");
        assertThat(v2.row().getString(2).toString()).isEqualTo("557");
    }

    @Test
    void otherTablesChangesPassAndARouteOfOneTableToOneRenamesTheChange() {
        List<ChangeEvent> out = new ArrayList<>();
        new ViewChanges(
                        TableSelector.of("filter", "shop\\.orders"),
                        FilterExpression.parse("status = 'shipped'"),
                        List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS))
                .process(customersGotAPhone(), out::add, () -> {});
        assertThat(out).containsExactly(customersGotAPhone());

        TableId lake = TableId.of("lake", "customers");
        RouteFunction oneToOne = new RouteFunction(
                Map.of(ShopTables.CUSTOMERS.tableId(), lake, ShopTables.ORDERS.tableId(), TableId.of("lake", "orders")),
                List.of(
                        ShopTables.CUSTOMERS.withTableId(lake),
                        ShopTables.ORDERS.withTableId(TableId.of("lake", "orders"))));
        ChangeEvent routed = oneToOne.map(customersGotAPhone());
        assertThat(routed.tableId()).isEqualTo(lake);
        assertThat(routed.schemaChange().after().tableId()).isEqualTo(lake);
        assertThat(routed.schemaVersion()).isEqualTo(2);
        assertThat(routed.position()).isEqualTo(customersGotAPhone().position());
    }

    @Test
    void aMergingRouteFollowsAShardsChangeWithTheUnionOfTheShapes() {
        TableId all = TableId.of("lake", "customers");
        TableId eu = TableId.of("shop_eu", "customers");
        TableDescriptor euV1 = ShopTables.CUSTOMERS.withTableId(eu);
        RouteFunction merging = new RouteFunction(
                Map.of(ShopTables.CUSTOMERS.tableId(), all, eu, all), List.of(ShopTables.CUSTOMERS.withTableId(all)));

        // One shard adds a column: the merged table gets it at its place.
        SchemaChange added = merging.map(customersGotAPhone()).schemaChange();
        assertThat(added.tableId()).isEqualTo(all);
        assertThat(added.after().columnNames()).containsExactly("id", "name", "phone", "email");
        assertThat(added.changes())
                .containsExactly(ColumnChange.added("phone", DataTypes.STRING().getLogicalType(), "name"));
        // The other shard's rows keep their shape (the sink reads them by name); the first shard's say theirs.
        ChangeEvent other = merging.map(ChangeEvent.of(
                eu, 1, GenericRowData.of(9, StringData.fromString("Eve"), StringData.fromString("e@x")), 1L, AT));
        assertThat(other.tableId()).isEqualTo(all);
        assertThat(other.schemaVersion()).isEqualTo(1);
        assertThat(other.rowType()).isEmpty();
        ChangeEvent first = merging.map(customerV2(RowKind.INSERT, 1, "Ada", "555", "ada@x"));
        assertThat(first.schemaVersion()).isEqualTo(added.newVersion());
        assertThat(first.rowType()).contains(CUSTOMERS_V2.toRowType());

        // The other shard drops email and widens id: email stays (the first shard fills it), id widens.
        TableDescriptor euV2 = euV1.toBuilder()
                .columns(List.of(
                        euV1.column("id").get().withType(DataTypes.BIGINT().notNull()),
                        euV1.column("name").get()))
                .schemaVersion(2)
                .build();
        SchemaChange dropped = merging.map(change(euV1, euV2, Map.of())).schemaChange();
        assertThat(dropped.after().columnNames()).containsExactly("id", "name", "phone", "email");
        assertThat(dropped.after().column("id").get().type().getLogicalType())
                .isEqualTo(DataTypes.BIGINT().notNull().getLogicalType());
        assertThat(dropped.changes()).extracting(ColumnChange::kind).containsExactly(ColumnChange.Kind.RETYPED);

        // A type the merged column can neither hold nor widen to stops the job naming the column.
        TableDescriptor euV3 = euV2.toBuilder()
                .columns(List.of(
                        euV2.column("id").get(), euV2.column("name").get().withType(DataTypes.INT())))
                .schemaVersion(3)
                .build();
        assertThatThrownBy(() -> merging.map(change(euV2, euV3, Map.of())))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("route (tables merged into lake.customers)")
                .hasMessageContaining("its column 'name' is now INT");
    }
}
