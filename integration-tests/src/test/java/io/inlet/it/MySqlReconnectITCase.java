package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB goes away in the middle of the binlog phase (killed, as by a crash or an OOM kill) and
 * comes back: the loss is logged at WARN when it happens, and the source is reading again within
 * seconds, not after Debezium's keep-alive of a minute or more.
 */
class MySqlReconnectITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    @Test
    void aServerThatComesBackIsReadAgainWithinSeconds(@TempDir Path warehouse) throws Exception {
        try (MariaDbServer mysql = MariaDbServer.startWith(Map.of());
                LogCapture log = new LogCapture(Level.WARN)) {
            String db = mysql.createDatabase();
            mysql.execute(db, "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.enableCheckpointing(300);
            env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1000, 500));
            JobClient job = Pipeline.builder()
                    .environment(env)
                    .source("mysql-cdc", MySqlOptions.of(mysql, db, "t"))
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
            try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse)) {
                TableIdentifier id = TableIdentifier.of(db, "t");
                Lakes.awaitIceberg(job, catalog, id, () -> List.of("id=1, v=1"));
                mysql.execute(db, "INSERT INTO t VALUES (2, 2)");
                Lakes.awaitIceberg(job, catalog, id, () -> List.of("id=1, v=1", "id=2, v=2"));

                mysql.crash();
                Thread.sleep(2000); // the server stays away for a while, as a real one would
                mysql.restart();
                long back = System.nanoTime();
                mysql.execute(db, "UPDATE t SET v = 20 WHERE id = 2", "INSERT INTO t VALUES (3, 3)");
                Lakes.awaitIceberg(job, catalog, id, () -> List.of("id=1, v=1", "id=2, v=20", "id=3, v=3"));
                long seconds = Duration.ofNanos(System.nanoTime() - back).toSeconds();
                assertThat(seconds)
                        .as("seconds from the server's return to the change in the lake")
                        .isLessThan(30);
                assertThat(log.text())
                        .as("the lost connection, logged when it happened")
                        .containsPattern("WARN.*(lost|Lost) the (binlog )?connection to MySQL at 127\\.0\\.0\\.1:"
                                + mysql.port());
            } finally {
                Jobs.cancelAndAwait(job);
            }
        }
    }
}
