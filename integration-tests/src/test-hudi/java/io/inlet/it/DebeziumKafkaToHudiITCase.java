package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.source.kafka.DebeziumKafkaSource;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real Debezium change events (Debezium's MySQL connector and Apicurio's Avro converter writing the
 * Confluent wire format to a real broker against a real registry) through Inlet into Hudi
 * MERGE_ON_READ tables on disk, read back with Hudi's own Flink reader: equal to MySQL value for
 * value, and compaction ran, wrote base files and logged no error.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class DebeziumKafkaToHudiITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    static final Duration TIMEOUT = KafkaSources.SHOP_TIMEOUT;

    static HudiSink.Builder hudi(Path lake) {
        return HudiSink.builder()
                .path(lake.toUri().toString())
                .option("compaction.delta_commits", "1")
                .option("write.tasks", "1")
                .option("hoodie.embed.timeline.server", "false");
    }

    @Test
    void debeziumChangesLandInHudiMergeOnReadTables(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path lake) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        try (LogCapture hudiErrors = new LogCapture(Level.WARN);
                DebeziumProducer dbz = KafkaSources.shop(mysql, db, server, kafka, registry)) {
            String whileRunning;
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(1000);
            HudiSink sink = hudi(lake).build();
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(KafkaSources.shopSource(server, kafka, registry))
                    .sink(sink)
                    .build();
            assertThat(pipeline.sinkTables())
                    .extracting(t -> t.tableId().identifier())
                    .containsExactlyInAnyOrder(db + ".orders", db + ".order_items", db + ".all_types");
            TableDescriptor allTypes = pipeline.sinkTables().stream()
                    .filter(t -> t.tableId().table().equals("all_types"))
                    .findFirst()
                    .get();
            assertThat(allTypes.column("c_timestamp")
                            .get()
                            .type()
                            .getLogicalType()
                            .asSummaryString())
                    .isEqualTo("TIMESTAMP_LTZ(6)");
            assertThat(allTypes.column("c_bit12").get().type().getLogicalType().asSummaryString())
                    .isEqualTo("BINARY(2)");
            assertThat(allTypes.column("c_decimal_65")
                            .get()
                            .type()
                            .getLogicalType()
                            .asSummaryString())
                    .isEqualTo("STRING");

            JobClient job = pipeline.executeAsync();
            try (Connection c = mysql.connection(db)) {
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
                mysql.execute(
                        db,
                        "INSERT INTO orders (customer, amount, status, note, created) VALUES ('eve',"
                                + " 1.00, 'new', 'kafka', '2024-02-01 00:00:00.5')",
                        "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE customer = 'anna'",
                        "START TRANSACTION",
                        "UPDATE orders SET note = 'first' WHERE customer = 'bob'",
                        "UPDATE orders SET note = 'second', status = 'shipped' WHERE customer = 'bob'",
                        "DELETE FROM orders WHERE customer = 'carl'",
                        "INSERT INTO orders (id, customer, amount, status, note, created) VALUES (3,"
                                + " 'carl again', 7.77, 'new', NULL, '2024-03-03 03:03:03.333')",
                        "COMMIT",
                        "UPDATE orders SET id = 1000 WHERE customer = 'dora'",
                        "UPDATE order_items SET line_no = 9 WHERE order_id = 1 AND line_no = 2",
                        "DELETE FROM order_items WHERE order_id = 2",
                        "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(4),
                        "UPDATE all_types SET c_varchar = 'now 🚀', c_decimal_38 = -99.5, c_json = NULL WHERE id = 1",
                        "DELETE FROM all_types WHERE id = 3");
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());

                // Compaction ran: a completed compaction is a .commit instant on MOR, it wrote base
                // files, nothing was rolled back, and Hudi logged no error (STACK.md's quiet trap).
                Path orders = lake.resolve(db).resolve("orders");
                awaitCompaction(job, orders);
                assertThat(HudiReads.baseFiles(orders)).isNotEmpty();
                assertThat(HudiReads.instants(orders, "rollback")).isEmpty();
                // What Hudi logged while the job ran: the cancel below interrupts a compaction in flight,
                // which Hudi logs as a failed compaction and rolls back at the next start.
                whileRunning = hudiErrors.text();
            } finally {
                Jobs.cancelAndAwait(job);
            }
            assertThat(whileRunning)
                    .doesNotContain("org.apache.hudi.sink.compact.CompactOperator ERROR")
                    .doesNotContain("Rollback failed compaction")
                    .doesNotContain("NoSuchMethodError");
        }
    }

    @Test
    void aStreamingReadSeesLaterChangesWithTheirKinds(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path lake) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        try (DebeziumProducer dbz = KafkaSources.shop(mysql, db, server, kafka, registry)) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.enableCheckpointing(1000);
            // Changelog kept, and compaction far off, so the reader sees each change in the log files.
            HudiSink sink = hudi(lake)
                    .changelog(true)
                    .option("compaction.delta_commits", "100")
                    .build();
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(DebeziumKafkaSource.builder()
                            .bootstrapServers(kafka.bootstrapServers())
                            .topics(server + "." + db + ".orders")
                            .registryUrl(registry.ccompatUrl())
                            .startupMode("earliest-offset")
                            .build())
                    .sink(sink)
                    .build();
            TableDescriptor orders = pipeline.sinkTables().get(0);
            JobClient job = pipeline.executeAsync();
            try (Connection c = mysql.connection(db)) {
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
                List<String> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
                org.apache.flink.table.api.TableResult stream = HudiReads.stream(
                        lake.resolve(db).resolve("orders"), sink.writeRowType(orders), orders.primaryKey());
                Thread reader = new Thread(
                        () -> {
                            try (org.apache.flink.util.CloseableIterator<Row> it = stream.collect()) {
                                while (it.hasNext()) {
                                    Row r = it.next();
                                    seen.add(r.getKind().shortString() + " " + r.getField(0) + " " + r.getField(1));
                                }
                            } catch (Exception e) {
                                seen.add("reader ended: " + e);
                            }
                        },
                        "hudi-streaming-read");
                reader.setDaemon(true);
                reader.start();
                mysql.execute(
                        db,
                        "INSERT INTO orders (id, customer, amount, status, created) VALUES (50, 'zoe',"
                                + " 5.00, 'new', '2024-05-05 05:05:05')",
                        "UPDATE orders SET customer = 'anna b.' WHERE id = 1",
                        "DELETE FROM orders WHERE id = 2");
                List<String> expected = List.of("+I 50 zoe", "-U 1 anna", "+U 1 anna b.", "-D 2 bob");
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (!seen.containsAll(expected) && System.nanoTime() < deadline) {
                    Jobs.assertRunning(job);
                    Thread.sleep(250); // polling the reader's progress; the assertion below decides
                }
                Jobs.cancelAndAwait(stream.getJobClient().get());
                assertThat(seen)
                        .as("the streaming reader's rows")
                        .containsAll(expected)
                        .contains("+I 1 anna");
                // and the snapshot view of the changelog table is the table itself
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
            } finally {
                Jobs.cancelAndAwait(job);
            }
        }
    }

    @Test
    void aFailureAfterTheSnapshotIsRestoredFromTheLastCheckpoint(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path lake) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        try (DebeziumProducer dbz = KafkaSources.shop(mysql, db, server, kafka, registry)) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(500);
            env.setRestartStrategy(
                    org.apache.flink.api.common.restartstrategy.RestartStrategies.fixedDelayRestart(3, 500));
            FailOnceTransform failOnce = new FailOnceTransform("orders", "boom");
            HudiSink sink = hudi(lake).build();
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(KafkaSources.shopSource(server, kafka, registry))
                    .transform(failOnce)
                    .sink(sink)
                    .build();
            JobClient job = pipeline.executeAsync();
            try (Connection c = mysql.connection(db)) {
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
                List<String> sql = new java.util.ArrayList<>();
                for (int i = 0; i < 120; i++) {
                    sql.add("INSERT INTO orders (customer, amount, status, created) VALUES ('k" + i + "', " + i
                            + ", 'new', '2024-06-01 00:00:00')");
                    if (i % 4 == 0) {
                        sql.add("UPDATE orders SET status = 'paid' WHERE customer = 'k" + i + "'");
                    }
                    if (i == 60) {
                        sql.add("INSERT INTO orders (customer, amount, status, created) VALUES ('boom'," + " 1,"
                                + " 'new', '2024-06-01 00:00:00')");
                    }
                    if (i % 9 == 0) {
                        sql.add("DELETE FROM orders WHERE customer = 'k" + (i / 2) + "'");
                    }
                }
                mysql.execute(db, sql.toArray(new String[0]));
                HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
                assertThat(failOnce.fired()).as("the injected failure happened").isTrue();
            } finally {
                Jobs.cancelAndAwait(job);
            }
        }
    }

    static void awaitCompaction(JobClient job, Path table) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (HudiReads.instants(table, "commit").isEmpty() && System.nanoTime() < deadline) {
            Jobs.assertRunning(job);
            Thread.sleep(500); // polling for the next compaction; the assertion below decides
        }
        assertThat(HudiReads.instants(table, "commit"))
                .as("completed compactions of %s", table)
                .isNotEmpty();
    }
}
