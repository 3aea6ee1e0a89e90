package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.sink.iceberg.WriteMode;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once from MySQL into Iceberg: a job failed in the middle of the binlog phase and restored
 * from its last checkpoint, and a job stopped with a savepoint and resumed as a new job, both end
 * with tables equal to MySQL. The sink writes in changelog mode, where a row written twice would
 * stay twice, so a duplicate cannot hide behind an upsert.
 */
@ExtendWith(MariaDbExtension.class)
class MySqlToIcebergExactlyOnceITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static Pipeline pipeline(
            MariaDbServer mysql,
            String db,
            Path warehouse,
            WriteMode mode,
            List<ChangeTransform> transforms,
            Configuration conf) {
        return pipeline(mysql, db, warehouse, mode, transforms, conf, 300);
    }

    private static Pipeline pipeline(
            MariaDbServer mysql,
            String db,
            Path warehouse,
            WriteMode mode,
            List<ChangeTransform> transforms,
            Configuration conf,
            long checkpointMs) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMs);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(3, 200));
        Pipeline.Builder b = Pipeline.builder()
                .environment(env)
                .source(MySqlCdcSource.builder()
                        .hostname(mysql.host())
                        .port(mysql.port())
                        .username(mysql.rootUser())
                        .password(mysql.rootPassword())
                        .databaseList(db)
                        .build())
                .sink(IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .writeMode(mode)
                        .build());
        transforms.forEach(b::transform);
        return b.build();
    }

    private static void churn(MariaDbServer mysql, String db, int from, int to) {
        List<String> sql = new ArrayList<>();
        for (int i = from; i < to; i++) {
            sql.add("INSERT INTO orders (customer, amount, status, created) VALUES ('c" + i + "', " + i
                    + ".25, 'new', '2024-05-01 00:00:00')");
            if (i % 3 == 0) {
                sql.add("UPDATE orders SET status = 'paid', amount = amount * 2 WHERE customer = 'c" + i + "'");
            }
            if (i % 5 == 0) {
                sql.add("DELETE FROM orders WHERE customer = 'c" + (i - 1) + "'");
            }
            if (i % 7 == 0) {
                sql.add("INSERT INTO order_items VALUES (" + i + ", 1, 'SKU-" + i + "', " + i + ", NULL)");
            }
        }
        mysql.execute(db, sql.toArray(new String[0]));
    }

    @Test
    void aFailureInTheBinlogPhaseRestoresFromTheLastCheckpoint(MariaDbServer mysql, @TempDir Path warehouse)
            throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        FailOnceTransform failOnce = new FailOnceTransform("orders", "boom");
        JobClient job = pipeline(mysql, db, warehouse, WriteMode.CHANGELOG, List.of(failOnce), new Configuration())
                .executeAsync();
        try (HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString());
                Connection c = mysql.connection(db)) {
            MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);
            churn(mysql, db, 0, 150);
            mysql.execute(
                    db,
                    "INSERT INTO orders (customer, amount, status, created) VALUES ('boom', 1,"
                            + " 'new', '2024-05-02 00:00:00')");
            churn(mysql, db, 150, 300);
            MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);
            assertThat(failOnce.fired()).as("the injected failure happened").isTrue();
            assertThat(Canonical.iceberg(catalog.loadTable(TableIdentifier.of(db, "orders"))))
                    .hasSize(Canonical.mysql(c, db, "orders").size());
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void aJobStoppedWithASavepointAtAnyMomentResumesAsANewJob(
            MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path savepoints) throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        try (HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString());
                Connection c = mysql.connection(db)) {
            // Checkpoints every 300 ms and stops at any moment, with changes in flight: a periodic
            // checkpoint is often aborted by the stop. Iceberg 1.6.1's own committer then committed
            // the aborted checkpoint's files with the next one's, where their equality deletes missed
            // its rows (apache/iceberg#10431): about 1 stop in 6 left an old row beside its update.
            String savepoint = null;
            int next = 0;
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                Configuration conf = new Configuration();
                if (savepoint != null) {
                    conf.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
                }
                JobClient job = pipeline(mysql, db, warehouse, WriteMode.AUTO, List.of(), conf, 300)
                        .executeAsync();
                try {
                    if (cycle == 0) {
                        MySqlToIcebergITCase.awaitEqual(job, c, catalog, db);
                    }
                    churn(mysql, db, next, next + 40); // in flight when the savepoint is taken
                    next += 40;
                    savepoint = Jobs.stopWithSavepoint(job, savepoints);
                } catch (Exception e) {
                    Jobs.cancelIfRunning(job);
                    throw e;
                }
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
                churn(mysql, db, next, next + 10); // changes while no job runs
                next += 10;
            }
            Configuration restore = new Configuration();
            restore.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
            // auto mode: the tables hold rows now, but the job restores, so it stays in changelog mode
            JobClient last = pipeline(mysql, db, warehouse, WriteMode.AUTO, List.of(), restore)
                    .executeAsync();
            try {
                churn(mysql, db, next, next + 50);
                MySqlToIcebergITCase.awaitEqual(last, c, catalog, db);
            } finally {
                last.cancel().get();
            }
        }
    }

    /** Stop-with-savepoint and restore cycles; the issue asks for at least 20. */
    private static final int CYCLES = 20;
}
