package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A row that cannot be converted fails the job once, naming the table, the column and what to do,
 * instead of restarting it forever; with 'bad-record.action' = 'dead-letter' the row is set aside
 * as a JSON line in a directory (exactly once) and the job goes on.
 */
@ExtendWith(MariaDbExtension.class)
class PoisonRecordsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    /** A TIME(6) with microseconds does not fit Flink 1.17's TIME, which the default 'time' mode maps it to. */
    private static void createTable(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, at TIME(6), note VARCHAR(16))",
                "INSERT INTO t VALUES (1, '08:00:00', 'fits'), (2, '08:00:00.123456', 'too"
                        + " fine'), (3, NULL, 'null fits')");
    }

    @Test
    void aValueThatCannotBeConvertedFailsTheJobOnce(MariaDbServer mysql, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        createTable(mysql, db);
        JobClient job =
                MySqlOptions.tableToIceberg(mysql, db, warehouse, Map.of()).executeAsync();
        try {
            assertThat(Jobs.messages(Jobs.awaitFailure(job, Duration.ofSeconds(60))))
                    .contains(db + ".t")
                    .contains("column 'at'")
                    .contains("08:00:00.123456")
                    .contains("'time.precision.mode'")
                    .contains("'bad-record.action' = 'dead-letter'");
        } finally {
            Jobs.cancelIfRunning(job);
        }
    }

    @Test
    void deadLettersGoToADirectoryAndTheJobGoesOn(
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path deadLetters) throws Exception {
        String db = mysql.createDatabase();
        createTable(mysql, db);
        Pipeline pipeline = MySqlOptions.tableToIceberg(
                mysql,
                db,
                warehouse,
                Map.of(
                        "bad-record.action",
                        "dead-letter",
                        "dead-letter.path",
                        deadLetters.toUri().toString()));
        TableDescriptor t = pipeline.sinkTables().get(0);
        JobClient job = pipeline.executeAsync();
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            TableIdentifier id = TableIdentifier.of(db, "t");
            String good = "SELECT id, at, note FROM t WHERE at IS NULL OR MICROSECOND(at) % 1000 = 0";
            Lakes.awaitIceberg(job, catalog, id, () -> Canonical.mysqlQuery(c, good, t.toRowType()));
            mysql.execute(
                    db,
                    "INSERT INTO t VALUES (4, '25:00:00', 'beyond a day'), (5, '09:30:00.5', 'fits too')",
                    "UPDATE t SET note = 'updated' WHERE id = 1");
            Lakes.awaitIceberg(
                    job,
                    catalog,
                    id,
                    () -> Canonical.mysqlQuery(c, good + " AND at < '24:00:00' OR at IS NULL", t.toRowType()));
            List<String> lines = awaitLines(deadLetters, 2);
            assertThat(lines)
                    .filteredOn(l -> l.contains("\"position\":\"snapshot"))
                    .singleElement()
                    .asString()
                    .contains("\"table\":\"" + db + ".t\"")
                    .contains("\"kind\":\"+I\"")
                    .contains("\"at\":\"08:00:00.123456\"")
                    .contains("\"reason\":\"column 'at' (TIME(6)): the TIME value 08:00:00.123456 has" + " digits"
                            + " below the millisecond");
            assertThat(lines)
                    .filteredOn(l -> l.contains("\"position\":\"mysql-bin."))
                    .singleElement()
                    .asString()
                    .contains("\"kind\":\"+I\"")
                    .contains("\"at\":\"25:00:00.000000\"")
                    .contains("beyond a day");
        } finally {
            Jobs.cancelAndAwait(job);
        }
    }

    /** The committed JSON lines of the dead-letter directory (in-progress files left out), in file order. */
    private static List<String> awaitLines(Path dir, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> lines = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            lines = committedLines(dir);
            if (lines.size() >= n) {
                break;
            }
            Thread.sleep(200); // polling for the next checkpoint's file; the assertion below decides
        }
        assertThat(lines).as("dead letters in %s", dir).hasSize(n);
        return lines;
    }

    private static List<String> committedLines(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .sorted()
                    .collect(Collectors.toList())) {
                out.addAll(Files.readAllLines(f));
            }
        }
        return out;
    }
}
