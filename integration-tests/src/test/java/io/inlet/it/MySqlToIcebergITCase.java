package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MySQL (a real MariaDB binlog) through Flink CDC into Iceberg v2 tables on disk: the snapshot, then
 * inserts, updates and deletes, land so that every Iceberg table, read with Iceberg's own reader,
 * equals its MySQL table row for row and value for value.
 */
@Tag("every-flink-line") // run on Flink 1.18 too (see the README, Run the tests)
@ExtendWith(MariaDbExtension.class)
class MySqlToIcebergITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    static final Duration TIMEOUT = Duration.ofSeconds(120);

    @Test
    void snapshotThenBinlogChangesLandValueForValue(MariaDbServer mysql, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        mysql.createUser(
                "cdc_" + db, "s3cret-" + db, "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source(MySqlCdcSource.builder()
                        .hostname(mysql.host())
                        .port(mysql.port())
                        .username("cdc_" + db)
                        .password("s3cret-" + db)
                        .databaseList(db)
                        .tableList("orders|order_items|all_types")
                        .build())
                .sink(IcebergSink.builder()
                        .catalogType("hadoop")
                        .warehouse(warehouse.toUri().toString())
                        .build())
                .jobName("mysql-to-iceberg")
                .build();
        assertThat(pipeline.sourceTables())
                .extracting(t -> t.tableId().table())
                .containsExactlyInAnyOrder("all_types", "order_items", "orders");

        JobClient job = pipeline.executeAsync();
        try (HadoopCatalog catalog = new HadoopCatalog(
                        new Configuration(false), warehouse.toUri().toString());
                Connection c = mysql.connection(db)) {
            awaitEqual(job, c, catalog, db);

            mysql.execute(
                    db,
                    // DDL that changes no column (an index, a comment, a no-op type restatement) must not stop
                    // the job: Inlet reads every table's columns in Debezium's DDL record as information_schema has
                    // them.
                    "ALTER TABLE all_types ADD INDEX idx_int (c_int)",
                    "ALTER TABLE orders COMMENT = 'orders of the shop'",
                    "ALTER TABLE order_items MODIFY sku VARCHAR(32) NOT NULL",
                    "INSERT INTO orders (customer, amount, status, note, created) VALUES ('eve',"
                            + " 1.00, 'new', 'binlog', '2024-02-01 00:00:00.5')",
                    "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE customer = 'anna'",
                    // one row updated twice, and a key deleted and inserted again, in one transaction
                    "START TRANSACTION",
                    "UPDATE orders SET note = 'first' WHERE customer = 'bob'",
                    "UPDATE orders SET note = 'second', status = 'shipped' WHERE customer = 'bob'",
                    "DELETE FROM orders WHERE customer = 'carl'",
                    "INSERT INTO orders (id, customer, amount, status, note, created) VALUES (3,"
                            + " 'carl again', 7.77, 'new', NULL, '2024-03-03 03:03:03.333')",
                    "COMMIT",
                    // updates that change the primary key
                    "UPDATE orders SET id = 1000 WHERE customer = 'dora'",
                    "UPDATE order_items SET line_no = 9 WHERE order_id = 1 AND line_no = 2",
                    "DELETE FROM order_items WHERE order_id = 2",
                    "INSERT INTO order_items VALUES (1000, 1, 'SKU-9', 3, 12.3400)",
                    // every type through the binlog, not just the snapshot
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(4),
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesLowRow(5),
                    "UPDATE all_types SET c_varchar = 'now 🚀', c_decimal_38 = -99.5, c_json = NULL,"
                            + " c_bit12 = b'111' WHERE id = 1",
                    "UPDATE all_types SET c_int = 42 WHERE id = 2",
                    "DELETE FROM all_types WHERE id = 3");
            awaitEqual(job, c, catalog, db);

            Table orders = catalog.loadTable(TableIdentifier.of(db, "orders"));
            assertThat(orders.schema().identifierFieldNames()).containsExactly("id");
            assertThat(((HasTableOperations) orders).operations().current().formatVersion())
                    .isEqualTo(2);
            assertThat(orders.properties()).containsEntry("comment", "orders of the shop");
            assertThat(orders.schema().findField("customer").doc()).isEqualTo("who ordered");
            assertThat(catalog.loadTable(TableIdentifier.of(db, "order_items"))
                            .schema()
                            .identifierFieldNames())
                    .containsExactlyInAnyOrder("order_id", "line_no");
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void aJdbcCatalogWorksThroughItsOwnConfiguration(MariaDbServer mysql, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        String catalogDb = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(500);
        Map<String, String> jdbc = Map.of(
                "uri", mysql.jdbcUrl(catalogDb),
                "jdbc.user", mysql.rootUser(),
                "jdbc.password", mysql.rootPassword(),
                "warehouse", warehouse.toUri().toString());
        JobClient job = Pipeline.builder()
                .environment(env)
                .source(MySqlCdcSource.builder()
                        .hostname(mysql.host())
                        .port(mysql.port())
                        .username(mysql.rootUser())
                        .password(mysql.rootPassword())
                        .databaseList(db)
                        .tableList("orders")
                        .build())
                .sink(
                        "iceberg",
                        Map.of(
                                "catalog-type", "jdbc",
                                "catalog-name", "lake",
                                "uri", jdbc.get("uri"),
                                "warehouse", jdbc.get("warehouse"),
                                "catalog.jdbc.user", jdbc.get("jdbc.user"),
                                "catalog.jdbc.password", jdbc.get("jdbc.password")))
                .build()
                .executeAsync();
        try (JdbcCatalog catalog = new JdbcCatalog();
                Connection c = mysql.connection(db)) {
            catalog.setConf(new Configuration(false));
            catalog.initialize("lake", jdbc);
            TableIdentifier id = TableIdentifier.of(db, "orders");
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            List<String> expected = Canonical.mysql(c, db, "orders");
            List<String> actual = List.of();
            while (System.nanoTime() < deadline && !actual.equals(expected)) {
                Jobs.assertRunning(job);
                actual = catalog.tableExists(id) ? Canonical.iceberg(catalog.loadTable(id)) : List.of();
                Thread.sleep(250); // polling for the next commit; the assertion below decides
            }
            assertThat(actual).containsExactlyElementsOf(expected);
        } finally {
            job.cancel().get();
        }
    }

    /** Waits until every Iceberg table equals its MySQL table; fails showing the difference. */
    static void awaitEqual(JobClient job, Connection c, Catalog catalog, String db) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (String t : ShopDatabase.TABLES) {
            List<String> expected = Canonical.mysql(c, db, t);
            List<String> actual = List.of();
            while (System.nanoTime() < deadline) {
                Jobs.assertRunning(job);
                TableIdentifier id = TableIdentifier.of(db, t);
                if (catalog.tableExists(id)) {
                    actual = Canonical.iceberg(catalog.loadTable(id));
                    if (actual.equals(expected)) {
                        break;
                    }
                }
                Thread.sleep(250); // polling for the next commit; the assertion below decides
            }
            assertThat(actual).as("Iceberg table %s.%s", db, t).containsExactlyElementsOf(expected);
        }
    }
}
