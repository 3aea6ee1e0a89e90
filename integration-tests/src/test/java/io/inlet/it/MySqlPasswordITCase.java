package io.inlet.it;

import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.TestNames;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The MySQL password never shows: not in any log line (INFO and above, Flink's, Flink CDC's,
 * Debezium's and Inlet's), not in toString, not in exception messages, not in the job's
 * configuration as Flink's REST API shows it.
 */
@ExtendWith(MariaDbExtension.class)
class MySqlPasswordITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    @Test
    void thePasswordNeverShows(MariaDbServer mysql, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        String user = TestNames.unique("cdc");
        String password = "Pw-" + TestNames.unique("secret");
        mysql.createUser(user, password, "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR");

        String captured;
        try (LogCapture logs = new LogCapture(Level.INFO)) {
            MySqlCdcSource source = MySqlCdcSource.builder()
                    .hostname(mysql.host())
                    .port(mysql.port())
                    .username(user)
                    .password(password)
                    .databaseList(db)
                    .build();
            assertThat(source.toString()).contains(user).doesNotContain(password);

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.enableCheckpointing(300);
            JobClient job = Pipeline.builder()
                    .environment(env)
                    .source(source)
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build()
                    .executeAsync();
            try (HadoopCatalog catalog = new HadoopCatalog(
                            new org.apache.hadoop.conf.Configuration(false),
                            warehouse.toUri().toString());
                    Connection c = mysql.connection(db)) {
                MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);
                mysql.execute(db, "UPDATE orders SET note = 'binlog' WHERE id = 1");
                MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);

                assertThat(Shown.job(MINI_CLUSTER, job.getJobID())).doesNotContain(password);
            } finally {
                job.cancel().get();
            }

            assertThatThrownBy(() -> MySqlCdcSource.builder()
                            .hostname(mysql.host())
                            .port(mysql.port())
                            .username(user)
                            .password(password + "-wrong")
                            .databaseList(db)
                            .build()
                            .discoverTables())
                    .isInstanceOf(InletValidationException.class)
                    .satisfies(e -> assertThat(Shown.stackTrace(e)).doesNotContain(password));
            captured = logs.text();
        }
        assertThat(captured)
                .as("INFO and above logs of the run")
                .contains("io.debezium.connector.mysql")
                .contains(user);
        assertThat(captured).doesNotContain(password);
    }
}
