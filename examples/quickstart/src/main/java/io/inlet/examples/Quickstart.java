package io.inlet.examples;

import io.inlet.core.LocalEnvironments;
import io.inlet.core.Pipeline;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.iceberg.IcebergChangelogSource;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.api.java.utils.ParameterTool;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The quickstart: MySQL orders into an Iceberg v2 table on a local MiniCluster, then changes, then
 * the table's rows and snapshot history, and what a streaming read of the Iceberg table saw: the
 * table, then the insert, the update (old and new row) and the delete, as Inlet's changelog source
 * reads them.
 *
 * <p>Without {@code --mysql-host} it starts a throwaway MariaDB with a ROW binlog and loads sample
 * orders into it. With one, it captures {@code --database} (default {@code shop}) there, creating
 * and filling an {@code orders} table if it has none.
 *
 * <pre>
 * mvn -B -DskipTests -Pquickstart -pl examples/quickstart -am package
 * mvn -B -DskipTests -Pquickstart -pl examples/quickstart -am package \
 *     -Dquickstart.args="--mysql-host db --mysql-port 3306 --mysql-user cdc --mysql-password s3cret --warehouse
 *     /tmp/wh"
 * </pre>
 */
public final class Quickstart {

    private Quickstart() {}

    /** Kept so that the JDK does not collect the logger and forget its level. */
    private static final java.util.logging.Logger BINLOG_CLIENT_LOG =
            java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog");

    public static void main(String[] args) throws Exception {
        BINLOG_CLIENT_LOG.setLevel(java.util.logging.Level.WARNING); // it logs each connect through java.util.logging
        ParameterTool params = ParameterTool.fromArgs(args);
        // A fresh warehouse per run unless one is given: a throwaway MariaDB starts its ids anew.
        Path warehouse = Path.of(params.get(
                        "warehouse",
                        "target/quickstart-warehouse/run-"
                                + java.time.LocalDateTime.now()
                                        .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))))
                .toAbsolutePath();
        String database = params.get("database", "shop");
        MariaDbServer throwaway = null;
        String host;
        int port;
        String user;
        String password;
        if (params.has("mysql-host")) {
            host = params.get("mysql-host");
            port = params.getInt("mysql-port", 3306);
            user = params.getRequired("mysql-user");
            password = params.get("mysql-password", "");
        } else {
            say("Starting a throwaway MariaDB with a ROW binlog (pass --mysql-host to use your own MySQL)...");
            throwaway = MariaDbServer.start();
            host = throwaway.host();
            port = throwaway.port();
            user = "quickstart";
            password = "quickstart-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
            throwaway.createUser(user, password, "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR");
            say("MariaDB is up on " + host + ":" + port + ".");
        }
        String url = "jdbc:mysql://" + host + ":" + port + "/?useSSL=false&allowPublicKeyRetrieval=true";
        try (Connection mysql = DriverManager.getConnection(
                url,
                throwaway != null ? throwaway.rootUser() : user,
                throwaway != null ? throwaway.rootPassword() : password)) {
            loadSampleOrders(mysql, database);
            Files.createDirectories(warehouse);
            run(host, port, user, password, database, warehouse, mysql);
        } finally {
            if (throwaway != null) {
                throwaway.close();
                say("Stopped the throwaway MariaDB.");
            }
        }
    }

    private static void run(
            String host, int port, String user, String password, String database, Path warehouse, Connection mysql)
            throws Exception {
        StreamExecutionEnvironment env = LocalEnvironments.create(2);

        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .checkpointInterval(Duration.ofSeconds(2))
                .source(MySqlCdcSource.builder()
                        .hostname(host)
                        .port(port)
                        .username(user)
                        .password(password)
                        .databaseList(database)
                        .tableList("orders")
                        .build())
                .sink(IcebergSink.builder()
                        .catalogType("hadoop")
                        .warehouse(warehouse.toUri().toString())
                        .build())
                .jobName("inlet-quickstart")
                .build();
        say("Pipeline validated: " + pipeline.sinkTables().get(0));

        JobClient job = pipeline.executeAsync();
        try (HadoopCatalog catalog = new HadoopCatalog(
                new org.apache.hadoop.conf.Configuration(false),
                warehouse.toUri().toString())) {
            TableIdentifier id = TableIdentifier.of(database, "orders");
            say("Job " + job.getJobID() + " runs on a local MiniCluster; waiting for the snapshot to be committed...");
            awaitRows(job, mysql, database, catalog, id);
            printRows(catalog.loadTable(id));

            say("Starting a streaming read of the Iceberg table (Inlet's changelog source)...");
            int changes = mysqlRows(mysql, database).size();
            try (StreamingRead read = StreamingRead.start(warehouse, database)) {
                read.await(changes, "the table's rows");

                say("Changing MySQL: one insert, one update, one delete...");
                try (Statement s = mysql.createStatement()) {
                    // An updated row is read as its old and its new row.
                    changes += s.executeUpdate("INSERT INTO `" + database
                            + "`.orders (customer, amount, status) VALUES ('quinn', 42.00, 'new')");
                    changes += 2
                            * s.executeUpdate("UPDATE `" + database
                                    + "`.orders SET status = 'shipped' WHERE id = 1 AND status <> 'shipped'");
                    changes += s.executeUpdate("DELETE FROM `" + database + "`.orders WHERE id = 2");
                }
                awaitRows(job, mysql, database, catalog, id);
                Table table = catalog.loadTable(id);
                printRows(table);
                printHistory(table);
                read.await(changes, "the changes");
                read.print(table.name());
            }
        } finally {
            job.cancel().get();
        }
        say("Done. The Iceberg table is in " + warehouse.resolve(database).resolve("orders") + ".");
    }

    /** A streaming read of the Iceberg table in a MiniCluster of its own, its changes collected as they come. */
    private static final class StreamingRead implements AutoCloseable {
        private final CloseableIterator<RowData> rows;
        private final JobClient job;
        private final List<String> changes = java.util.Collections.synchronizedList(new ArrayList<>());
        private final Thread collector;
        private volatile Throwable failure;

        private StreamingRead(CloseableIterator<RowData> rows, JobClient job) {
            this.rows = rows;
            this.job = job;
            this.collector = new Thread(this::collect, "quickstart-streaming-read");
            collector.setDaemon(true);
            collector.start();
        }

        static StreamingRead start(Path warehouse, String database) throws Exception {
            StreamExecutionEnvironment env = LocalEnvironments.create(1);
            env.enableCheckpointing(2_000);
            IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                    .catalogLoader(CatalogLoader.hadoop(
                            "quickstart",
                            new org.apache.hadoop.conf.Configuration(false),
                            java.util.Map.of("warehouse", warehouse.toUri().toString())))
                    .table(database + ".orders")
                    .monitorInterval(Duration.ofMillis(500))
                    .build();
            CloseableIterator<RowData> rows = changelog.createStream(env).collectAsync();
            return new StreamingRead(rows, env.executeAsync("inlet-quickstart-streaming-read"));
        }

        private void collect() {
            try {
                while (rows.hasNext()) {
                    RowData r = rows.next();
                    changes.add(String.format(
                            "  %-3s %-5s %-10s %10s %-8s",
                            r.getRowKind().shortString(),
                            r.getLong(0),
                            r.getString(1),
                            r.getDecimal(2, 10, 2).toBigDecimal().toPlainString(),
                            r.getString(3)));
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        void await(int count, String what) throws Exception {
            Instant deadline = Instant.now().plusSeconds(120);
            while (changes.size() < count) {
                if (failure != null) {
                    throw new IllegalStateException("The streaming read failed", failure);
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException(
                            "The streaming read did not show " + what + " within 120 s: " + changes);
                }
                Thread.sleep(200);
            }
        }

        void print(String table) {
            System.out.println("What a streaming read of " + table + " saw, as it happened:");
            System.out.printf("  %-3s %-5s %-10s %10s %-8s%n", "op", "id", "customer", "amount", "status");
            synchronized (changes) {
                changes.forEach(System.out::println);
            }
            System.out.println();
        }

        @Override
        public void close() throws Exception {
            // The job first, so that the collecting thread sees the end instead of a closed cluster.
            job.cancel().get();
            collector.join(10_000);
            rows.close();
        }
    }

    private static void loadSampleOrders(Connection mysql, String database) throws Exception {
        try (Statement s = mysql.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS `" + database + "`");
            s.execute("CREATE TABLE IF NOT EXISTS `" + database + "`.orders ("
                    + " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                    + " customer VARCHAR(100) NOT NULL,"
                    + " amount DECIMAL(10,2) NOT NULL,"
                    + " status VARCHAR(20) NOT NULL,"
                    + " updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3))");
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM `" + database + "`.orders")) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    s.execute("INSERT INTO `" + database + "`.orders (customer, amount, status) VALUES"
                            + " ('anna', 19.90, 'new'), ('bob', 5.00, 'paid'), ('carla', 120.00, 'new'),"
                            + " ('dmitri', 7.25, 'shipped'), ('eve', 64.10, 'paid')");
                    say("Loaded 5 sample orders into " + database + ".orders.");
                }
            }
        }
    }

    private static List<String> mysqlRows(Connection mysql, String database) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Statement s = mysql.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT id, customer, amount, status FROM `" + database + "`.orders ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getLong(1) + "|" + rs.getString(2) + "|"
                        + rs.getBigDecimal(3).toPlainString() + "|" + rs.getString(4));
            }
        }
        return rows;
    }

    private static List<String> icebergRows(Table table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .select("id", "customer", "amount", "status")
                .build()) {
            for (Record r : records) {
                rows.add(r.getField("id") + "|" + r.getField("customer") + "|"
                        + ((java.math.BigDecimal) r.getField("amount")).toPlainString() + "|" + r.getField("status"));
            }
        }
        rows.sort((a, b) -> Long.compare(Long.parseLong(a.split("\\|")[0]), Long.parseLong(b.split("\\|")[0])));
        return rows;
    }

    /** Waits until the Iceberg table holds what MySQL holds (checkpoints commit every 2 s). */
    private static void awaitRows(
            JobClient job, Connection mysql, String database, HadoopCatalog catalog, TableIdentifier id)
            throws Exception {
        List<String> expected = mysqlRows(mysql, database);
        Instant deadline = Instant.now().plusSeconds(120);
        while (Instant.now().isBefore(deadline)) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // throws the job's failure
                throw new IllegalStateException("The job ended before the table matched MySQL.");
            }
            if (catalog.tableExists(id)) {
                Table t = catalog.loadTable(id);
                if (icebergRows(t).equals(expected)) {
                    say("The Iceberg table matches MySQL (" + expected.size() + " rows).");
                    return;
                }
            }
            Thread.sleep(500); // the next checkpoint commits; polling keeps the quickstart simple
        }
        throw new IllegalStateException("The Iceberg table did not match MySQL within 120 s.");
    }

    private static void printRows(Table table) throws Exception {
        System.out.println();
        System.out.println("Rows of " + table.name() + ":");
        System.out.printf("  %-5s %-10s %10s %-8s%n", "id", "customer", "amount", "status");
        for (String row : icebergRows(table)) {
            String[] v = row.split("\\|");
            System.out.printf("  %-5s %-10s %10s %-8s%n", v[0], v[1], v[2], v[3]);
        }
        System.out.println();
    }

    private static void printHistory(Table table) {
        System.out.println("Snapshot history of " + table.name() + ":");
        for (Snapshot s : table.snapshots()) {
            System.out.printf(
                    "  %s  snapshot %d  %-9s +%s rows, %s equality deletes, %s position deletes, %s rows in total%n",
                    Instant.ofEpochMilli(s.timestampMillis()),
                    s.snapshotId(),
                    s.operation(),
                    s.summary().getOrDefault("added-records", "0"),
                    s.summary().getOrDefault("added-equality-deletes", "0"),
                    s.summary().getOrDefault("added-position-deletes", "0"),
                    s.summary().getOrDefault("total-records", "?"));
        }
        System.out.println();
    }

    private static void say(String message) {
        System.out.println("[quickstart] " + message);
    }
}
