package io.inlet.core.transform;

import io.inlet.core.Pipeline;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.TestRows;
import io.inlet.core.testing.ValuesChangeSource;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each built-in transform, run in a MiniCluster between a values source and a committing sink. */
class BuiltInTransformsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    private static final LocalDateTime T0 = LocalDateTime.parse("2024-05-01T08:00:00");

    private static Object[] order(long id, String customer, String amount, String status) {
        return new Object[] {id, customer, new BigDecimal(amount), status, T0.plusMinutes(id)};
    }

    private static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(100);
        // Any Kryo fallback for change events fails the job.
        env.getConfig().disableGenericTypes();
        return env;
    }

    private static ValuesChangeSource.Builder shop() {
        return ValuesChangeSource.builder()
                .insert(ShopTables.ORDERS, order(1, "anna", "10.00", "new"))
                .insert(ShopTables.ORDERS, order(2, "bob", "20.00", "shipped"))
                .insert(ShopTables.ORDERS, order(3, "carl", "30.00", "new"))
                .insert(ShopTables.CUSTOMERS, 1, "anna", "anna@example.com")
                .insert(ShopTables.CUSTOMERS, 2, "bob", null)
                .update(ShopTables.ORDERS, order(1, "anna", "10.00", "new"), order(1, "anna", "10.00", "shipped"))
                .update(ShopTables.ORDERS, order(2, "bob", "20.00", "shipped"), order(2, "bob", "25.00", "returned"))
                .delete(ShopTables.ORDERS, order(3, "carl", "30.00", "new"));
    }

    @Test
    void filterKeepsMatchingRowsAndRemovesRowsThatStopMatching() throws Exception {
        CollectingChangeSink sink = CollectingChangeSink.builder().upsert(true).build();
        Pipeline.builder()
                .environment(env())
                .source(shop().build())
                .transform(FilterTransform.builder()
                        .sourceTable("shop\\.orders")
                        .filter("status IN ('shipped', 'returned') AND amount < 25")
                        .build())
                .sink(sink)
                .build()
                .execute();

        // Order 2 matched as shipped, then its update to 25.00/returned does not: the view sees the row
        // go (-D). Order 1 starts to match with its update: the view sees it arrive (+I). Customers
        // pass unfiltered.
        assertThat(sink.tableRows(ShopTables.ORDERS.tableId()))
                .containsExactly("1, anna, 10.00, shipped, 2024-05-01T08:01");
        assertThat(sink.format(ShopTables.ORDERS.tableId()))
                .containsExactlyInAnyOrder(
                        "+I(2, bob, 20.00, shipped, 2024-05-01T08:02)",
                        "+I(1, anna, 10.00, shipped, 2024-05-01T08:01)",
                        "-D(2, bob, 20.00, shipped, 2024-05-01T08:02)");
        assertThat(sink.tableRows(ShopTables.CUSTOMERS.tableId())).hasSize(2);
    }

    @Test
    void projectionKeepsOrdersAndRenamesColumnsAndTheKey() throws Exception {
        CollectingChangeSink sink = CollectingChangeSink.builder().upsert(true).build();
        Pipeline p = Pipeline.builder()
                .environment(env())
                .source(shop().build())
                .transform(ProjectionTransform.builder()
                        .sourceTable("shop\\.customers")
                        .projection("email, id AS customer_id")
                        .build())
                .transform(ProjectionTransform.builder()
                        .sourceTable("shop\\.orders")
                        .projection("*, customer AS buyer")
                        .build())
                .sink(sink)
                .build();
        TableDescriptor customers = p.sinkTables().stream()
                .filter(t -> t.tableId().table().equals("customers"))
                .findFirst()
                .get();
        assertThat(customers.columnNames()).containsExactly("email", "customer_id");
        assertThat(customers.primaryKey()).containsExactly("customer_id");
        assertThat(p.sinkTables().get(0).columnNames()).containsExactly("id", "amount", "status", "created", "buyer");
        p.execute();

        assertThat(sink.tableRows(ShopTables.CUSTOMERS.tableId())).containsExactly("anna@example.com, 1", "null, 2");
        assertThat(sink.tableRows(ShopTables.ORDERS.tableId()))
                .containsExactly(
                        "1, 10.00, shipped, 2024-05-01T08:01, anna", "2, 25.00, returned, 2024-05-01T08:02, bob");
    }

    @Test
    void routeRenamesTablesAndMergesShards() throws Exception {
        TableDescriptor shard1 = ShopTables.orders("shop", "orders_01");
        TableDescriptor shard2 = ShopTables.orders("shop", "orders_02");
        ValuesChangeSource source = ValuesChangeSource.builder()
                .insert(shard1, order(1, "anna", "1.00", "new"))
                .insert(shard2, order(2, "bob", "2.00", "new"))
                .update(shard2, order(2, "bob", "2.00", "new"), order(2, "bob", "2.50", "paid"))
                .insert(ShopTables.CUSTOMERS, 1, "anna", "a@example.com")
                .build();
        CollectingChangeSink sink = CollectingChangeSink.builder().upsert(true).build();
        Pipeline p = Pipeline.builder()
                .environment(env())
                .source(source)
                .transform(RouteTransform.builder()
                        .route("shop\\.orders_[0-9]+", "lake.orders")
                        .route("shop\\.(.*)", "lake.$1")
                        .build())
                .sink(sink)
                .build();
        assertThat(p.sinkTables())
                .extracting(t -> t.tableId().identifier())
                .containsExactly("lake.orders", "lake.customers");
        p.execute();

        assertThat(sink.tableRows(TableId.of("lake", "orders")))
                .containsExactly("1, anna, 1.00, new, 2024-05-01T08:01", "2, bob, 2.50, paid, 2024-05-01T08:02");
        assertThat(sink.tableRows(TableId.of("lake", "customers"))).containsExactly("1, anna, a@example.com");
        assertThat(sink.committed()).extracting(e -> e.tableId().database()).containsOnly("lake");
    }

    @Test
    void metadataAppendsOpSourceTimeAndIngestionTime() throws Exception {
        CollectingChangeSink sink = CollectingChangeSink.builder().build();
        Instant before = Instant.now();
        Pipeline p = Pipeline.builder()
                .environment(env())
                .source(shop().build())
                .transform(
                        MetadataTransform.builder().sourceTable("shop\\.orders").build())
                .sink(sink)
                .build();
        p.execute();
        Instant after = Instant.now();

        TableDescriptor orders = p.sinkTables().get(0);
        assertThat(orders.columnNames()).endsWith("_op", "_source_ts", "_ingested_at");
        List<ChangeEvent> events = sink.committed();
        List<ChangeEvent> orderEvents = events.stream()
                .filter(e -> e.tableId().equals(orders.tableId()))
                .collect(java.util.stream.Collectors.toList());
        assertThat(orderEvents).hasSize(8);
        for (ChangeEvent e : orderEvents) {
            List<Object> v = TestRows.values(orders, e.row());
            assertThat(v.get(5)).isEqualTo(e.kind().shortString());
            assertThat(v.get(6)).isEqualTo(Instant.ofEpochMilli(e.sourceTimestamp()));
            assertThat((Instant) v.get(7)).isBetween(before, after);
        }
        assertThat(orderEvents)
                .extracting(e -> TestRows.values(orders, e.row()).get(5))
                .containsExactlyInAnyOrder("+I", "+I", "+I", "-U", "+U", "-U", "+U", "-D");
    }
}
