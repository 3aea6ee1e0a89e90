package io.inlet.examples;

import io.inlet.testing.FlinkDistribution;
import io.inlet.testing.JobJar;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.RestCatalogExtension;
import io.inlet.testing.RestCatalogServer;
import io.inlet.testing.TestNames;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MySQL to Iceberg job jar: it holds what a Hadoop-less runtime needs and nothing of Flink, and
 * run with {@code flink run} on a Flink distribution without Hadoop (child-first user-code class
 * loader, default parent-first patterns), configured through a managed runtime's application
 * properties file, it mirrors real MariaDB tables into Iceberg, snapshot and binlog.
 */
@Tag("every-flink-line") // run on Flink 1.18 too (see the README, Run the tests)
@ExtendWith({MariaDbExtension.class, RestCatalogExtension.class})
class MySqlToIcebergJobJarITCase {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @Test
    void holdsItsConnectorsAndTheRelocatedShimAndNothingOfFlinkOrPlainHadoop() {
        JobJar jar = JobJar.ofThisModule();
        assertThat(jar.deployabilityProblems("io.inlet.examples.MySqlToIceberg"))
                .isEmpty();
        assertThat(jar.services("io.inlet.core.spi.ChangeSourceFactory"))
                .contains("io.inlet.source.mysql.MySqlCdcSourceFactory");
        assertThat(jar.services("io.inlet.core.spi.ChangeSinkFactory"))
                .contains("io.inlet.sink.iceberg.IcebergSinkFactory");
        assertThat(jar.services("io.inlet.core.spi.ChangeTransformFactory")).hasSize(4);
        assertThat(jar.icebergCatalogProblems()).isEmpty();
        // Glue through catalog-impl: Iceberg's AWS module and the AWS SDK's Glue and S3 clients.
        assertThat(jar.has("org/apache/iceberg/aws/glue/GlueCatalog.class")).isTrue();
        assertThat(jar.has("software/amazon/awssdk/services/glue/GlueClient.class"))
                .isTrue();
        assertThat(jar.has("org/apache/iceberg/aws/s3/S3FileIO.class")).isTrue();
        // Flink CDC of the build's line: com.ververica.cdc (2.4, Flink 1.17) or org.apache.flink.cdc (3.1).
        String cdc = System.getProperty("inlet.flink-cdc.package").replace('.', '/');
        assertThat(jar.has(cdc + "/connectors/mysql/source/MySqlSource.class")).isTrue();
    }

    @Test
    void mirrorsMySqlIntoIcebergOnAFlinkWithoutHadoop(MariaDbServer mysql, @TempDir Path work) throws Exception {
        String db = shop(
                mysql,
                "(1, 'anna', 19.90, 'ü 😀'), (2, 'bob', 5.00, NULL), (3, 'carl', -0.50, '')",
                "(1, 1, 'A'), (1, 2, 'B'), (2, 1, 'C')");
        String user = TestNames.unique("cdc");
        String password = "pw-" + TestNames.unique("x");
        mysql.createUser(user, password, "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR");
        Path warehouse = work.resolve("warehouse");

        // Settings as a managed runtime passes them: property groups in a JSON file; the password stays
        // out of the program arguments.
        Path properties = work.resolve("application_properties.json");
        Files.writeString(
                properties,
                "["
                        + sourceGroup(mysql, db, user, password, "5400-5401")
                        + ", "
                        + group("sink", Map.of("warehouse", warehouse.toUri().toString()))
                        + ", " + group("pipeline", Map.of("checkpoint-interval", "1 s", "parallelism", "2")) + "]");

        try (FlinkDistribution.Run run = FlinkDistribution.run(
                        JobJar.ofThisModule().path(), Map.of(), "--application-properties", properties.toString());
                Connection c = mysql.connection(db);
                HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString())) {
            awaitEqual(run, c, catalog, db);
            mysql.execute(
                    db,
                    "UPDATE orders SET amount = amount + 1, note = 'paid' WHERE id = 1",
                    "DELETE FROM orders WHERE id = 2",
                    "INSERT INTO orders VALUES (4, 'dora', 42.00, 'new')",
                    "UPDATE order_items SET line = 3 WHERE order_id = 1 AND line = 2");
            awaitEqual(run, c, catalog, db);
            String output = run.output();
            assertThat(output).as("the runtime has no Hadoop").contains("No Hadoop Dependency available");
            assertThat(output).contains("Inlet job 'inlet: mysql-cdc to iceberg' writes 2 table(s)");
            assertThat(output)
                    .doesNotContain(password)
                    .doesNotContain("NoClassDefFoundError: org/apache/hadoop")
                    .doesNotContain(" ERROR ");
        }

        // The job is killed (closing the run ends its process) and started again with the same
        // settings, no state: its new snapshot must also remove the rows deleted while it was down.
        mysql.execute(
                db,
                "DELETE FROM orders WHERE id IN (1, 3)",
                "DELETE FROM order_items WHERE order_id = 2",
                "UPDATE orders SET note = 'changed while down' WHERE id = 4");
        try (FlinkDistribution.Run run = FlinkDistribution.run(
                        JobJar.ofThisModule().path(), Map.of(), "--application-properties", properties.toString());
                Connection c = mysql.connection(db);
                HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString())) {
            awaitEqual(run, c, catalog, db);
            assertThat(run.output())
                    .contains("the new snapshot is committed; removed the")
                    .doesNotContain(" ERROR ");
        }
    }

    /**
     * Iceberg tables on S3 through an Iceberg REST catalog, written by the jar's S3FileIO: the settings, the
     * S3 secret among them, in the application properties file as on a managed runtime.
     */
    @Test
    void mirrorsMySqlIntoIcebergOnS3ThroughARestCatalog(MariaDbServer mysql, RestCatalogServer rest, @TempDir Path work)
            throws Exception {
        String db = shop(mysql, "(1, 'anna', 19.90, 'x'), (2, 'bob', 5.00, NULL)", "(1, 1, 'A'), (2, 1, 'C')");
        Map<String, String> sink = new java.util.LinkedHashMap<>();
        sink.put("catalog-type", "rest");
        sink.put("uri", rest.uri());
        rest.s3().icebergProperties().forEach((k, v) -> sink.put("catalog." + k, v));
        Path properties = work.resolve("application_properties.json");
        Files.writeString(
                properties,
                "["
                        + sourceGroup(mysql, db, mysql.rootUser(), mysql.rootPassword(), "5410-5411")
                        + ", "
                        + group("sink", sink)
                        + ", " + group("pipeline", Map.of("checkpoint-interval", "1 s", "parallelism", "2")) + "]");

        try (FlinkDistribution.Run run = FlinkDistribution.run(
                        JobJar.ofThisModule().path(), Map.of(), "--application-properties", properties.toString());
                Connection c = mysql.connection(db);
                RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize("rest", rest.clientProperties());
            awaitEqual(run, c, catalog, db);
            mysql.execute(
                    db,
                    "UPDATE orders SET amount = amount + 1, note = 'paid' WHERE id = 1",
                    "DELETE FROM orders WHERE id = 2",
                    "INSERT INTO order_items VALUES (1, 2, 'B')");
            awaitEqual(run, c, catalog, db);
            assertThat(catalog.loadTable(TableIdentifier.of(db, "orders")).location())
                    .startsWith(rest.warehouse() + "/");
            assertThat(rest.s3().keys(rest.bucket()))
                    .anyMatch(k -> k.startsWith("warehouse/" + db + "/orders/data/") && k.endsWith(".parquet"));
            assertThat(run.output())
                    .contains("No Hadoop Dependency available")
                    .doesNotContain(rest.s3().secretKey())
                    .doesNotContain(" ERROR ");
        }
    }

    @Test
    void aDryRunPrintsThePlanAndCreatesNothing(MariaDbServer mysql, @TempDir Path work) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(50) NOT NULL)");
        Path warehouse = work.resolve("warehouse");
        try (FlinkDistribution.Run run = FlinkDistribution.run(
                JobJar.ofThisModule().path(),
                Map.of(),
                "--source.hostname",
                mysql.host(),
                "--source.port",
                String.valueOf(mysql.port()),
                "--source.username",
                mysql.rootUser(),
                "--source.password",
                mysql.rootPassword(),
                "--source.database-name",
                db,
                "--source.table-name",
                "orders",
                "--sink.warehouse",
                warehouse.toUri().toString(),
                "--dry-run")) {
            assertThat(run.awaitExit(TIMEOUT))
                    .as("flink run ends by itself. %s", run.describe())
                    .isZero();
            String output = run.output();
            assertThat(output)
                    .contains("Dry run: the pipeline is valid; nothing was created and nothing runs.")
                    .contains("source MySqlCdcSource{")
                    .contains(db + ".orders")
                    .contains(db + ".orders: will be created")
                    .contains("write-mode auto")
                    .contains("uid inlet-source-mysql-cdc")
                    .contains("uid inlet-sink-iceberg-")
                    .contains("checkpoints every")
                    .doesNotContain(" ERROR ");
        }
        assertThat(warehouse).as("no namespace or table was created").doesNotExist();
    }

    /** The source's settings: the tables orders and order_items of the database, as this user. */
    private static String sourceGroup(MariaDbServer mysql, String db, String user, String password, String serverIds) {
        return group(
                "source",
                Map.of(
                        "hostname",
                        mysql.host(),
                        "port",
                        String.valueOf(mysql.port()),
                        "username",
                        user,
                        "password",
                        password,
                        "database-name",
                        db,
                        "table-name",
                        "orders|order_items",
                        "server-id",
                        serverIds));
    }

    private static String group(String id, Map<String, String> map) {
        StringBuilder sb = new StringBuilder("{\"PropertyGroupId\": \"" + id + "\", \"PropertyMap\": {");
        map.forEach((k, v) -> sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ", ")
                .append('"')
                .append(k)
                .append("\": \"")
                .append(v.replace("\\", "\\\\").replace("\"", "\\\""))
                .append('"'));
        return sb.append("}}").toString();
    }

    private static void awaitEqual(FlinkDistribution.Run run, Connection c, Catalog catalog, String db)
            throws Exception {
        for (String table : List.of("orders", "order_items")) {
            List<String> expected = mysqlRows(c, table);
            List<String> actual = List.of();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                assertThat(run.running())
                        .as("flink run is still running. %s", run.describe())
                        .isTrue();
                TableIdentifier id = TableIdentifier.of(db, table);
                if (catalog.tableExists(id)) {
                    actual = icebergRows(catalog.loadTable(id));
                    if (actual.equals(expected)) {
                        break;
                    }
                }
                Thread.sleep(500); // polling for the next checkpoint's commit; the assertion below decides
            }
            assertThat(actual)
                    .as("Iceberg table %s.%s. %s", db, table, run.describe())
                    .isEqualTo(expected);
        }
    }

    private static List<String> mysqlRows(Connection c, String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    Object v = rs.getObject(i);
                    sb.append(i == 1 ? "" : "|")
                            .append(v instanceof java.math.BigDecimal ? ((java.math.BigDecimal) v).toPlainString() : v);
                }
                rows.add(sb.toString());
            }
        }
        rows.sort(null);
        return rows;
    }

    private static List<String> icebergRows(Table table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < r.size(); i++) {
                    Object v = r.get(i);
                    sb.append(i == 0 ? "" : "|")
                            .append(v instanceof java.math.BigDecimal ? ((java.math.BigDecimal) v).toPlainString() : v);
                }
                rows.add(sb.toString());
            }
        }
        rows.sort(null);
        return rows;
    }

    /** A new database with the jar's two tables, orders and order_items, holding the given VALUES rows. */
    private static String shop(MariaDbServer mysql, String orders, String items) {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(50) NOT NULL,"
                        + " amount DECIMAL(10,2), note TEXT)",
                "CREATE TABLE order_items (order_id BIGINT, line INT, sku VARCHAR(20), PRIMARY KEY (order_id, line))",
                "INSERT INTO orders VALUES " + orders,
                "INSERT INTO order_items VALUES " + items);
        return db;
    }
}
