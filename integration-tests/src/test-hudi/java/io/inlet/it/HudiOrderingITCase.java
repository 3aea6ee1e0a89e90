package io.inlet.it;

import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Versions of a row in Hudi are ordered by where the change was in its source, not by its source
 * timestamp: changes within one second (the binlog's resolution; every statement here is logged at
 * one fixed time with {@code SET timestamp}) land in order across checkpoints, a new snapshot
 * corrects rows changed while no job ran, and an older change delivered again never overwrites a
 * newer one.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class HudiOrderingITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    /** Every statement of these tests is logged in the binlog at this one second. */
    private static final String SAME_SECOND = "SET timestamp = 1767225600";

    private static HudiSink hudi(Path lake) {
        return HudiLakes.hudiSink(lake, 3);
    }

    private static Pipeline mysqlToHudi(MariaDbServer mysql, String db, HudiSink sink) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        return Pipeline.builder()
                .environment(env)
                .source(MySqlOptions.builder(mysql, db, "t").build())
                .sink(sink)
                .build();
    }

    private static void sameSecond(MariaDbServer mysql, String db, String... statements) {
        String[] all = new String[statements.length + 1];
        all[0] = SAME_SECOND;
        System.arraycopy(statements, 0, all, 1, statements.length);
        mysql.execute(db, all);
    }

    @Test
    void changesWithinOneSecondAndANewSnapshotLandInSourceOrder(MariaDbServer mysql, @TempDir Path lake)
            throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, note VARCHAR(32))",
                "INSERT INTO t VALUES (1, 0, 'a'), (2, 0, 'b'), (3, 0, 'c')");
        HudiSink sink = hudi(lake);
        Path table = lake.resolve(db).resolve("t");
        Pipeline first = mysqlToHudi(mysql, db, sink);
        TableDescriptor t = first.sinkTables().get(0);
        RowType type = sink.writeRowType(t);
        try (Connection c = mysql.connection(db)) {
            Callable<List<String>> expected = () -> Canonical.mysqlAs(c, db, "t", t.toRowType());
            JobClient job = first.executeAsync();
            try {
                HudiLakes.awaitHudi(job, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);
                // Two updates of one key, a delete and a re-insert, all in one second, each in its own commit.
                for (String sql : List.of(
                        "UPDATE t SET v = 1 WHERE id = 1",
                        "UPDATE t SET v = 2 WHERE id = 1",
                        "DELETE FROM t WHERE id = 2",
                        "INSERT INTO t VALUES (2, 9, 'b again')")) {
                    int commits = HudiReads.instants(table, "deltacommit").size();
                    sameSecond(mysql, db, sql);
                    awaitMoreCommits(job, table, commits);
                }
                HudiLakes.awaitHudi(job, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);
            } finally {
                Jobs.cancelAndAwait(job);
            }

            // While no job runs, rows change; a fresh job takes a new snapshot over the table, and its
            // rows (read now) must win over the older versions the first job wrote.
            sameSecond(
                    mysql,
                    db,
                    "UPDATE t SET v = 100, note = 'changed while down' WHERE id = 1",
                    "UPDATE t SET note = 'also changed' WHERE id = 2");
            JobClient second = mysqlToHudi(mysql, db, sink).executeAsync();
            try {
                HudiLakes.awaitHudi(second, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);
                sameSecond(mysql, db, "UPDATE t SET v = 101 WHERE id = 1");
                HudiLakes.awaitHudi(second, table, type, t.primaryKey(), expected, HudiOrdering.COLUMNS);
            } finally {
                Jobs.cancelAndAwait(second);
            }
        }
    }

    @Test
    void anOlderChangeDeliveredAgainNeverOverwritesANewerOne(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path lake) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        String topic = server + "." + db + ".t";
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, note VARCHAR(32))",
                "INSERT INTO t VALUES (1, 0, 'a'), (2, 0, 'b')");
        kafka.createTopics(1, topic); // one partition: records are read in the order they are written
        try (DebeziumProducer dbz = DebeziumProducer.start(mysql, db, server, kafka, registry)) {
            dbz.awaitProduced(2, Duration.ofSeconds(60));
            sameSecond(mysql, db, "UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 2 WHERE id = 1");
            dbz.awaitProduced(4, Duration.ofSeconds(60));

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.enableCheckpointing(200);
            HudiSink sink = hudi(lake);
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(KafkaSources.debezium(kafka, registry, topic).build())
                    .sink(sink)
                    .build();
            TableDescriptor t = pipeline.sinkTables().get(0);
            Path table = lake.resolve(db).resolve("t");
            JobClient job = pipeline.executeAsync();
            try (Connection c = mysql.connection(db)) {
                Callable<List<String>> expected = () -> Canonical.mysqlAs(c, db, "t", t.toRowType());
                HudiLakes.awaitHudi(job, table, sink.writeRowType(t), t.primaryKey(), expected, HudiOrdering.COLUMNS);
                // The producer delivers the older of the two updates once more (at least once: a retry
                // after a lost acknowledgement), then a later change of another row follows it.
                resend(kafka, topic, 2);
                mysql.execute(db, "UPDATE t SET note = 'after the resend' WHERE id = 2");
                dbz.awaitProduced(5, Duration.ofSeconds(60));
                HudiLakes.awaitHudi(job, table, sink.writeRowType(t), t.primaryKey(), expected, HudiOrdering.COLUMNS);
            } finally {
                Jobs.cancelAndAwait(job);
            }
        }
    }

    @Test
    void aTableOrderedBySourceTimestampsIsRefusedWithTheWayOut(@TempDir Path lake) throws Exception {
        // A table as the previous Inlet version wrote it: ordered by _source_ts.
        String db = "shop";
        Path path = lake.resolve(db).resolve("t");
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql("CREATE TABLE legacy (id INT, v INT, _source_ts BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + "'connector' = 'hudi', 'path' = '" + path.toUri() + "', 'table.type' = 'MERGE_ON_READ',"
                + " 'precombine.field' = '_source_ts', 'hoodie.embed.timeline.server' = 'false')");
        tEnv.executeSql("INSERT INTO legacy VALUES (1, 1, 1767225600000)").await();
        TableDescriptor t = TableDescriptor.builder(io.inlet.core.table.TableId.of(db, "t"))
                .column("id", DataTypes.INT())
                .column("v", DataTypes.INT())
                .primaryKey("id")
                .build();
        assertThatThrownBy(() -> hudi(lake).validate(List.of(t)))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("orders versions of a row by '_source_ts'")
                .hasMessageContaining("_source_position");
    }

    private static void awaitMoreCommits(JobClient job, Path table, int before) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (HudiReads.instants(table, "deltacommit").size() <= before) {
            Jobs.assertRunning(job);
            assertThat(System.nanoTime()).as("a new delta commit of %s", table).isLessThan(deadline);
            Thread.sleep(50); // polling the timeline for the next commit
        }
    }

    /** Writes the record at this offset of the one-partition topic once more, bytes as they are. */
    private static void resend(KafkaBroker kafka, String topic, long offset) throws Exception {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        TopicPartition p = new TopicPartition(topic, 0);
        List<ProducerRecord<byte[], byte[]>> again = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(p));
            consumer.seek(p, offset);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (again.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() == offset) {
                        again.add(new ProducerRecord<>(topic, 0, r.key(), r.value()));
                    }
                }
            }
        }
        assertThat(again).as("the record at offset %s of %s", offset, topic).hasSize(1);
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(again.get(0)).get();
        }
    }
}
