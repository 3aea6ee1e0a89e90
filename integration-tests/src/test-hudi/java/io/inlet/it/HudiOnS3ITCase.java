package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.HiveMetastoreExtension;
import io.inlet.testing.HiveMetastoreServer;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.S3Server;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MySQL into Hudi MERGE_ON_READ tables on S3 through Hadoop's S3A ({@code s3a://}), set up with the sink's
 * {@code hadoop.*} options alone (endpoint, path-style access, credentials): every table, read with Hudi's
 * reader with the same options, equals MySQL after updates and deletes, compaction rewrites the log files
 * into base files in the bucket, and Hudi's Hive sync registers each table in a Hive Metastore. The secret
 * key shows nowhere: not in the sink's {@code toString}, the job's configuration or plan as Flink's REST
 * API shows them, or a log line at INFO and above.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith({MariaDbExtension.class, HiveMetastoreExtension.class})
class HudiOnS3ITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @Test
    void mergeOnReadTablesOnS3EqualMySqlCompactAndSyncToHive(MariaDbServer mysql, HiveMetastoreServer hms)
            throws Exception {
        S3Server s3 = hms.s3();
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        String bucket = s3.newBucket("hudi-lake");
        String lake = "s3a://" + bucket + "/lake";
        Map<String, String> hadoop = s3.s3aProperties("hadoop.");

        HudiSink.Builder builder = HudiSink.builder()
                .path(lake)
                .option("compaction.delta_commits", "1")
                .option("write.tasks", "1")
                .option("hoodie.embed.timeline.server", "false")
                // Each table's Hive tables (<table>_ro, <table>_rt) in the metastore, after each commit.
                .option("hive_sync.enabled", "true")
                .option("hive_sync.mode", "hms")
                .option("hive_sync.metastore.uris", hms.uri());
        hadoop.forEach(builder::option);
        HudiSink sink = builder.build();
        assertThat(sink.toString()).contains(lake).doesNotContain(s3.secretKey());
        LogCapture logs = new LogCapture(Level.INFO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1000);
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders|all_types"))
                .sink(sink)
                .jobName("mysql-to-hudi-on-s3")
                .build();
        JobClient job = pipeline.executeAsync();
        try (Connection c = mysql.connection(db)) {
            awaitEqual(job, c, db, lake, sink, pipeline.sinkTables(), hadoop);
            mysql.execute(
                    db,
                    "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE customer = 'anna'",
                    "START TRANSACTION",
                    "DELETE FROM orders WHERE customer = 'bob'",
                    "INSERT INTO orders (customer, amount, status, note, created) VALUES ('bob again', 2.00,"
                            + " 'new', NULL, '2024-04-04 04:04:04.444')",
                    "COMMIT",
                    "DELETE FROM orders WHERE customer = 'carl'",
                    "UPDATE all_types SET c_int = -1, c_varchar = 'now' WHERE id = 1",
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(7));
            awaitEqual(job, c, db, lake, sink, pipeline.sinkTables(), hadoop);

            // A compaction (a 'commit' on a MERGE_ON_READ timeline) wrote base files, and all of it is in the bucket.
            String orders = "lake/" + db + "/orders/";
            Pattern compaction = Pattern.compile(Pattern.quote(orders + ".hoodie/") + "\\d+\\.commit");
            Lakes.awaitObject(job, s3, bucket, k -> compaction.matcher(k).matches());
            assertThat(s3.keys(bucket))
                    .as("objects of the orders table in the test's bucket")
                    .anyMatch(k -> compaction.matcher(k).matches())
                    .anyMatch(k -> k.startsWith(orders) && k.endsWith(".parquet"))
                    .anyMatch(k -> k.startsWith(orders) && k.contains(".log."));
            awaitEqual(job, c, db, lake, sink, pipeline.sinkTables(), hadoop);
            assertThat(Shown.job(MINI_CLUSTER, job.getJobID())).doesNotContain(s3.secretKey());

            // Hive sync: the metastore knows each table at its path, as Hudi's read-optimized and real-time views.
            HiveConf conf = new HiveConf();
            conf.set("hive.metastore.uris", hms.uri());
            IMetaStoreClient metastore = new HiveMetaStoreClient(conf);
            try {
                for (String table : List.of("orders", "all_types")) {
                    for (String view : List.of("_ro", "_rt")) {
                        Table synced = awaitHiveTable(job, metastore, db, table + view);
                        assertThat(synced.getSd().getLocation()).isEqualTo(lake + "/" + db + "/" + table);
                        assertThat(synced.getSd().getCols())
                                .extracting(FieldSchema::getName)
                                .contains("id");
                    }
                }
                assertThat(metastore.getTable(db, "orders_rt").getSd().getInputFormat())
                        .isEqualTo("org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat");
            } finally {
                metastore.close();
            }
        } finally {
            Jobs.cancelAndAwait(job);
            logs.close();
        }
        assertThat(logs.text())
                .as("INFO and above logs of the run")
                .contains("org.apache.hudi")
                .doesNotContain(s3.secretKey());
    }

    private static Table awaitHiveTable(JobClient job, IMetaStoreClient metastore, String db, String table)
            throws Exception {
        long deadline = System.nanoTime() + Lakes.TIMEOUT.toNanos();
        while (!metastore.tableExists(db, table) && System.nanoTime() < deadline) {
            Jobs.assertRunning(job);
            Thread.sleep(500); // polling for the next commit's Hive sync; the call below decides
        }
        return metastore.getTable(db, table);
    }

    private static void awaitEqual(
            JobClient job,
            Connection c,
            String db,
            String lake,
            HudiSink sink,
            List<TableDescriptor> tables,
            Map<String, String> hadoop)
            throws Exception {
        for (TableDescriptor t : tables) {
            String table = lake + "/" + db + "/" + t.tableId().table();
            Lakes.awaitRows(
                    job,
                    "Hudi table " + table,
                    () -> Canonical.mysqlAs(c, db, t.tableId().table(), t.toRowType()),
                    () -> Canonical.flink(
                            HudiReads.read(table, sink.writeRowType(t), t.primaryKey(), hadoop),
                            sink.writeRowType(t).getFieldNames(),
                            HudiOrdering.COLUMNS));
        }
    }
}
