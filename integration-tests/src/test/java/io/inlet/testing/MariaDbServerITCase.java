package io.inlet.testing;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Tag("harness") // the harness is the same on every Flink line: its own tests run on 1.17 only (pom.xml)
@ExtendWith(MariaDbExtension.class)
class MariaDbServerITCase {

    @Test
    void runsWithARowBinlogThatMovesOnAnInsert(MariaDbServer server) throws Exception {
        Map<String, String> vars = new LinkedHashMap<>();
        try (Connection c = server.connection("");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN"
                        + " ('log_bin', 'binlog_format', 'binlog_row_image', 'bind_address', 'server_id')")) {
            while (rs.next()) {
                vars.put(rs.getString(1), rs.getString(2));
            }
        }
        assertThat(vars)
                .containsEntry("log_bin", "ON")
                .containsEntry("binlog_format", "ROW")
                .containsEntry("binlog_row_image", "FULL")
                .containsEntry("bind_address", "127.0.0.1");

        String db = server.createDatabase();
        server.execute(db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
        MariaDbServer.BinlogPosition before = server.binlogPosition();
        server.execute(db, "INSERT INTO t VALUES (1, 'one')");
        MariaDbServer.BinlogPosition after = server.binlogPosition();
        assertThat(after).isGreaterThan(before);

        // The insert is in the binlog as a row event of our table.
        boolean found = false;
        try (Connection c = server.connection("");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + before.file + "' FROM " + before.position)) {
            while (rs.next()) {
                found |= rs.getString("Event_type").startsWith("Write_rows");
            }
        }
        assertThat(found).as("a Write_rows event after " + before).isTrue();
    }

    @Test
    void eachTestGetsItsOwnDatabase(MariaDbServer server) {
        assertThat(server.createDatabase())
                .isNotEqualTo(server.createDatabase())
                .startsWith("db_");
    }

    @Test
    void serversStartingAtOnceInOneMachineAllStart() throws Exception {
        // Parallel test JVMs start their servers at the same moment; a starting server deletes the
        // temporary tables it finds in its tmpdir, so with a shared one it broke another's bootstrap.
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<MariaDbServer>> starting = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                starting.add(pool.submit(() -> MariaDbServer.start()));
            }
            for (Future<MariaDbServer> f : starting) {
                assertThat(f.get(3, TimeUnit.MINUTES).createDatabase()).startsWith("db_");
            }
        } finally {
            for (Future<MariaDbServer> f : starting) {
                try {
                    f.get(3, TimeUnit.MINUTES).close();
                } catch (ExecutionException e) {
                    // that server did not start: the loop above reported it
                }
            }
            pool.shutdownNow();
        }
    }

    @Test
    void aServerThatCannotStartFailsWithTheTailOfItsOwnLog() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> MariaDbServer.start(taken.getLocalPort()).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("mariadb did not start")
                    .hasMessageContaining("error.log ---")
                    .hasMessageContaining("Address already in use");
        }
    }
}
