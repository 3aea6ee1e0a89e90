package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.HiveMetastoreExtension;
import io.inlet.testing.HiveMetastoreServer;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.RestCatalogExtension;
import io.inlet.testing.RestCatalogServer;
import io.inlet.testing.S3Server;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hive.HiveCatalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MySQL into Iceberg tables on S3 (the harness's S3-compatible server, every request signed with AWS
 * Signature V4) through an Iceberg REST catalog server (Iceberg 1.7.1's, talked to by the build's
 * Iceberg 1.6.1 client): the snapshot, then inserts, updates, deletes and key changes, land so that
 * every table, read with Iceberg's reader through the same catalog, equals MySQL value for value, and
 * its files are objects in the catalog's bucket. The same through a Hive Metastore (Hive 3.1.3's, talked
 * to by Iceberg's HiveCatalog with Hive 2.3.9's client), and through a catalog named by its class.
 */
// What is under test, S3 and the catalog servers through Iceberg's core and AWS modules, is the same
// on every Flink line: 1.17 alone runs it (pom.xml); the Flink parts run on every line in other tests.
@Tag("line-independent")
@ExtendWith({MariaDbExtension.class, RestCatalogExtension.class, HiveMetastoreExtension.class})
class IcebergOnS3ITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @Test
    void throughTheRestCatalogOnS3EveryTableEqualsMySql(MariaDbServer mysql, RestCatalogServer rest) throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        IcebergSink.Builder sink = IcebergSink.builder().catalogType("rest").uri(rest.uri());
        rest.clientProperties().forEach(sink::catalogProperty);
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders|order_items|all_types"))
                .sink(sink.build())
                .jobName("mysql-to-iceberg-on-s3")
                .build();
        JobClient job = pipeline.executeAsync();
        try (RESTCatalog catalog = new RESTCatalog();
                Connection c = mysql.connection(db)) {
            catalog.initialize("rest", rest.clientProperties());
            MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);

            mysql.execute(
                    db,
                    "INSERT INTO orders (customer, amount, status, note, created) VALUES ('eve',"
                            + " 1.00, 'new', 'binlog', '2024-02-01 00:00:00.5')",
                    "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE customer = 'anna'",
                    "START TRANSACTION",
                    "UPDATE orders SET note = 'first' WHERE customer = 'bob'",
                    "UPDATE orders SET note = 'second', status = 'shipped' WHERE customer = 'bob'",
                    "DELETE FROM orders WHERE customer = 'carl'",
                    "COMMIT",
                    "UPDATE orders SET id = 1000 WHERE customer = 'dora'",
                    "DELETE FROM order_items WHERE order_id = 2",
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(4),
                    "UPDATE all_types SET c_varchar = 'now', c_json = NULL WHERE id = 1",
                    "DELETE FROM all_types WHERE id = 3");
            MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);

            Table orders = catalog.loadTable(TableIdentifier.of(db, "orders"));
            assertThat(orders.location()).startsWith(rest.warehouse() + "/");
            assertThat(orders.io().getClass().getName()).isEqualTo("org.apache.iceberg.aws.s3.S3FileIO");
            List<String> keys = rest.s3().keys(rest.bucket());
            String table = "warehouse/" + db + "/orders/";
            assertThat(keys)
                    .as("objects of the orders table in the catalog's bucket")
                    .anyMatch(k -> k.startsWith(table + "data/") && k.endsWith(".parquet"))
                    .anyMatch(k -> k.startsWith(table + "metadata/") && k.endsWith(".metadata.json"));
            assertThat(Map.copyOf(orders.currentSnapshot().summary())).containsKey("flink.max-committed-checkpoint-id");
        } finally {
            Jobs.cancelIfRunning(job);
        }
    }

    /**
     * Iceberg's HiveCatalog on a Hive Metastore whose warehouse is on S3: the metastore makes the database's
     * and table's directories through S3A, Iceberg writes the files through S3FileIO, and each commit swaps
     * the table's metadata pointer under the metastore's lock.
     */
    @Test
    void throughTheHiveCatalogOnS3EveryTableEqualsMySql(MariaDbServer mysql, HiveMetastoreServer hms) throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        Map<String, String> catalogProperties = new HashMap<>(hms.s3().icebergProperties());
        catalogProperties.put("uri", hms.uri());
        catalogProperties.put("warehouse", hms.warehouse());

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        IcebergSink.Builder sink =
                IcebergSink.builder().catalogType("hive").uri(hms.uri()).warehouse(hms.warehouse());
        hms.s3().icebergProperties().forEach(sink::catalogProperty);
        JobClient job = Pipeline.builder()
                .environment(env)
                .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders|order_items|all_types"))
                .sink(sink.build())
                .jobName("mysql-to-iceberg-through-hive")
                .build()
                .executeAsync();
        HiveCatalog catalog = new HiveCatalog();
        try (Connection c = mysql.connection(db)) {
            catalog.setConf(new Configuration(false));
            catalog.initialize("hive", catalogProperties);
            MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);

            mysql.execute(
                    db,
                    "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE customer = 'anna'",
                    "DELETE FROM orders WHERE customer = 'carl'",
                    "UPDATE orders SET id = 1000 WHERE customer = 'dora'",
                    "DELETE FROM order_items WHERE order_id = 2",
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(4),
                    "UPDATE all_types SET c_varchar = 'now', c_json = NULL WHERE id = 1");
            MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);

            Table orders = catalog.loadTable(TableIdentifier.of(db, "orders"));
            assertThat(orders.location()).isEqualTo(hms.warehouse() + "/" + db + ".db/orders");
            assertThat(orders.io().getClass().getName()).isEqualTo("org.apache.iceberg.aws.s3.S3FileIO");
            String table = "warehouse/" + db + ".db/orders/";
            assertThat(hms.s3().keys(hms.bucket()))
                    .as("objects of the orders table in the metastore's bucket")
                    .anyMatch(k -> k.startsWith(table + "data/") && k.endsWith(".parquet"))
                    .anyMatch(k -> k.startsWith(table + "metadata/") && k.endsWith(".metadata.json"));
        } finally {
            Jobs.cancelIfRunning(job);
            catalog.close();
        }
    }

    /**
     * A catalog named by its class ({@code catalog-impl}) with its own properties ({@code catalog.*}), set as
     * the sink's options: a JDBC catalog in MariaDB whose tables are in a bucket of the test's own.
     */
    @Test
    void aCatalogImplWithItsPropertiesWritesToABucketOfItsOwn(MariaDbServer mysql, RestCatalogServer rest)
            throws Exception {
        String db = mysql.createDatabase();
        String catalogDb = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        S3Server s3 = rest.s3();
        String bucket = s3.newBucket("jdbc-lake");
        Map<String, String> catalogProperties = new HashMap<>(s3.icebergProperties());
        // Without it MySQL's driver reads a null catalog as every database: Iceberg's JdbcCatalog then finds
        // another catalog's iceberg_tables and never makes its own ("Table '<db>.iceberg_tables' doesn't exist").
        catalogProperties.put("uri", mysql.jdbcUrl(catalogDb) + "&nullCatalogMeansCurrent=true");
        catalogProperties.put("jdbc.user", mysql.rootUser());
        catalogProperties.put("jdbc.password", mysql.rootPassword());
        catalogProperties.put("warehouse", "s3://" + bucket + "/lake");
        Map<String, String> options = new HashMap<>();
        options.put("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        options.put("catalog-name", "lake");
        catalogProperties.forEach(
                (k, v) -> options.put(k.equals("uri") || k.equals("warehouse") ? k : "catalog." + k, v));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        JobClient job = Pipeline.builder()
                .environment(env)
                .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                .sink("iceberg", options)
                .build()
                .executeAsync();
        try (JdbcCatalog catalog = new JdbcCatalog();
                Connection c = mysql.connection(db)) {
            catalog.setConf(new Configuration(false));
            catalog.initialize("lake", catalogProperties);
            TableIdentifier id = TableIdentifier.of(db, "orders");
            Lakes.awaitIceberg(job, catalog, id, () -> Canonical.mysql(c, db, "orders"));
            mysql.execute(
                    db,
                    "UPDATE orders SET status = 'paid' WHERE customer = 'anna'",
                    "DELETE FROM orders WHERE customer = 'bob'",
                    "INSERT INTO orders (customer, amount, status, note, created) VALUES ('eve', 2.50, 'new',"
                            + " NULL, '2024-02-02 00:00:00')");
            Lakes.awaitIceberg(job, catalog, id, () -> Canonical.mysql(c, db, "orders"));
            assertThat(s3.keys(bucket))
                    .as("the objects of the test's bucket")
                    .anyMatch(k -> k.startsWith("lake/" + db + "/orders/data/") && k.endsWith(".parquet"))
                    .anyMatch(k -> k.startsWith("lake/" + db + "/orders/metadata/"));
        } finally {
            Jobs.cancelIfRunning(job);
        }
    }
}
