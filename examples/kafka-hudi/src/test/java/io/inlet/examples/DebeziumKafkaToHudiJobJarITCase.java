package io.inlet.examples;

import io.inlet.testing.FlinkDistribution;
import io.inlet.testing.JobJar;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.S3Extension;
import io.inlet.testing.S3Server;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Debezium-on-Kafka to Hudi job jar: deployable contents, and run with {@code flink run} on a
 * Flink runtime without Hadoop it reads Debezium Avro from the real broker and registry into a Hudi
 * MERGE_ON_READ table on S3 ({@code s3a://}, through the S3A the jar carries, set up by {@code
 * --sink.hadoop.fs.s3a.*} arguments) that Hudi's own Flink reader finds in the changes' final state.
 */
@ExtendWith({KafkaExtension.class, SchemaRegistryExtension.class, S3Extension.class})
class DebeziumKafkaToHudiJobJarITCase {

    private static final int EVENTS = 300;

    @Test
    void holdsKafkaHudiAndTheRelocatedShimAndNothingOfFlinkOrPlainHadoop() {
        JobJar jar = JobJar.ofThisModule();
        assertThat(jar.deployabilityProblems("io.inlet.examples.DebeziumKafkaToHudi"))
                .isEmpty();
        assertThat(jar.services("io.inlet.core.spi.ChangeSourceFactory"))
                .contains("io.inlet.source.kafka.DebeziumKafkaSourceFactory");
        assertThat(jar.services("io.inlet.core.spi.ChangeSinkFactory")).contains("io.inlet.sink.hudi.HudiSinkFactory");
        // Hudi's own table factory, merged with the Kafka connector's.
        assertThat(jar.services("org.apache.flink.table.factories.Factory"))
                .contains(
                        "org.apache.hudi.table.HoodieTableFactory",
                        "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory")
                .doesNotContain("io.inlet.shim.InletIcebergCatalogFactory");
        assertThat(jar.has("org/apache/hudi/sink/StreamWriteFunction.class")).isTrue();
        // S3A, relocated with the rest of Hadoop, and of the AWS SDK the S3 client alone.
        assertThat(jar.has(JobJar.SHADED + "org/apache/hadoop/fs/s3a/S3AFileSystem.class"))
                .isTrue();
        assertThat(jar.text("core-default.xml"))
                .contains("<value>io.inlet.shaded.org.apache.hadoop.fs.s3a.S3AFileSystem</value>");
        assertThat(jar.has("com/amazonaws/services/s3/AmazonS3Client.class")).isTrue();
        assertThat(jar.entriesUnder("com/amazonaws/services/"))
                .allMatch(e -> e.equals("com/amazonaws/services/") || e.startsWith("com/amazonaws/services/s3/"));
        assertThat(jar.entriesUnder("org/apache/iceberg/")).isEmpty();
    }

    @Test
    void debeziumChangesReachHudiOnS3FromAFlinkWithoutHadoop(KafkaBroker kafka, SchemaRegistry registry, S3Server s3)
            throws Exception {
        String topic = TestNames.unique("dbz") + ".shop.orders";
        kafka.createTopics(2, topic);
        produce(kafka, registry, topic);
        String bucket = s3.newBucket("hudi-job");
        String lake = "s3a://" + bucket + "/lake";
        Map<String, String> hadoop = s3.s3aProperties("hadoop.");
        List<String> args = new ArrayList<>();
        hadoop.forEach((k, v) -> args.addAll(List.of("--sink." + k, v)));

        try (FlinkDistribution.Run run = FlinkDistribution.run(
                JobJar.ofThisModule().path(),
                Map.of(),
                Stream.concat(
                                args.stream(),
                                Stream.of(
                                        "--source.properties.bootstrap.servers",
                                        kafka.bootstrapServers(),
                                        "--source.topic",
                                        topic,
                                        "--source.debezium-avro-confluent.url",
                                        registry.ccompatUrl(),
                                        "--source.scan.startup.mode",
                                        "earliest-offset",
                                        "--source.scan.bounded.mode",
                                        "latest-offset", // a backfill: the job ends after the last record
                                        "--sink.path",
                                        lake,
                                        "--sink.hoodie.embed.timeline.server",
                                        "false",
                                        "--pipeline.checkpoint-interval",
                                        "1 s",
                                        "--pipeline.parallelism",
                                        "2"))
                        .toArray(String[]::new))) {
            int exit = run.awaitExit(Duration.ofMinutes(3));
            assertThat(exit).as("exit code of flink run. %s", run.describe()).isZero();
            assertThat(run.output()).contains("No Hadoop Dependency available").doesNotContain(" ERROR ");
        }

        String table = lake + "/shop/orders";
        assertThat(s3.keys(bucket))
                .as("objects in bucket %s", bucket)
                .anyMatch(k -> k.startsWith("lake/shop/orders/.hoodie/") && k.endsWith(".deltacommit"))
                .anyMatch(k -> k.startsWith("lake/shop/orders/") && k.contains(".log."));
        List<String> expected = DebeziumOrders.finalState(EVENTS).values().stream()
                .map(o -> o.id + "|" + o.customer + "|" + o.amount.setScale(2).toPlainString() + "|" + o.status + "|"
                        + LocalDateTime.ofInstant(Instant.ofEpochMilli(o.updatedAtMs), ZoneOffset.UTC))
                .sorted()
                .collect(Collectors.toList());
        assertThat(readHudi(table, hadoop)).isEqualTo(expected);
    }

    /**
     * Writes the first EVENTS events of DebeziumOrders as Debezium would: schemas registered, keyed records,
     * tombstones.
     */
    private static void produce(KafkaBroker kafka, SchemaRegistry registry, String topic) throws Exception {
        int keyId = registry.register(
                topic + "-key", DebeziumOrders.keySchema(topic).toString());
        int valueId = registry.register(
                topic + "-value", DebeziumOrders.valueSchema(topic).toString());
        DebeziumOrders orders = new DebeziumOrders(topic, keyId, valueId);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long n = 0; n < EVENTS; n++) {
                byte[][] kv = orders.encode(n);
                producer.send(new ProducerRecord<>(topic, kv[0], kv[1]));
            }
            producer.flush();
        }
    }

    /** The table as Hudi's Flink reader sees it (log files merged), the sink's ordering column left out. */
    private static List<String> readHudi(String table, Map<String, String> hadoop) throws Exception {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("table.exec.resource.default-parallelism", "1");
        t.executeSql("CREATE TABLE h (id BIGINT, customer STRING, amount DECIMAL(10, 2), status"
                + " STRING, updated_at TIMESTAMP(3),"
                + " _source_position BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' =" + " 'hudi', 'path' = '"
                + table
                + "', 'table.type' = 'MERGE_ON_READ', 'hoodie.embed.timeline.server' = 'false'"
                + hadoop.entrySet().stream()
                        .map(e -> ", '" + e.getKey() + "' = '" + e.getValue() + "'")
                        .collect(Collectors.joining())
                + ")");
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT id, customer, amount, status, updated_at FROM h")
                .collect()) {
            it.forEachRemaining(r -> rows.add(
                    r.getField(0) + "|" + r.getField(1) + "|" + ((java.math.BigDecimal) r.getField(2)).toPlainString()
                            + "|" + r.getField(3) + "|" + r.getField(4)));
        }
        rows.sort(null);
        return rows;
    }
}
