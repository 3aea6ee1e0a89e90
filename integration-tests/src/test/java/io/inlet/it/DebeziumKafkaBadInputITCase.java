package io.inlet.it;

import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.MiniClusters;
import io.inlet.source.kafka.DebeziumKafkaSource;
import io.inlet.testing.FreePorts;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad input from Kafka behaves as documented: a corrupt record fails the job naming topic, partition
 * and offset, or goes to the dead-letter topic as it was with the reason in headers; tombstones are
 * skipped and counted; a registry that is down stops the pipeline before it starts.
 */
@ExtendWith({KafkaExtension.class, SchemaRegistryExtension.class})
class DebeziumKafkaBadInputITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            MiniClusters.extension(2, REPORTER.addToConfiguration(new Configuration()));

    /** Good Debezium records of orders (and measures), then three bad ones appended to orders. */
    private static Map<String, Object> badTopic(KafkaBroker kafka, SchemaRegistry registry) throws Exception {
        String[] topics = FlinkDebeziumFormatITCase.produce(kafka, registry);
        List<ConsumerRecord<byte[], byte[]>> good = consume(kafka, topics[0], 11);
        byte[] valid = good.get(0).value();
        byte[] badMagic = Arrays.copyOf(valid, valid.length);
        badMagic[0] = 7;
        byte[] unknownId = Arrays.copyOf(valid, valid.length);
        unknownId[1] = 0x7f;
        unknownId[2] = (byte) 0xff;
        byte[] truncated = Arrays.copyOf(valid, valid.length / 2);
        List<byte[]> bad = List.of(badMagic, unknownId, truncated);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (byte[] b : bad) {
                producer.send(new ProducerRecord<>(topics[0], good.get(0).key(), b))
                        .get();
            }
        }
        Map<String, Object> m = new HashMap<>();
        m.put("topics", topics);
        m.put("bad", bad);
        m.put("firstBadOffset", (long) good.size());
        return m;
    }

    private static List<ConsumerRecord<byte[], byte[]>> consume(KafkaBroker kafka, String topic, int n) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, TestNames.unique("g"));
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (out.size() < n && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(out::add);
            }
        }
        assertThat(out).as("records of %s", topic).hasSizeGreaterThanOrEqualTo(n);
        return out;
    }

    private static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        env.setRestartStrategy(RestartStrategies.noRestart());
        return env;
    }

    @Test
    void aCorruptRecordFailsTheJobOnceNamingWhereItIs(KafkaBroker kafka, SchemaRegistry registry) throws Exception {
        Map<String, Object> t = badTopic(kafka, registry);
        String orders = ((String[]) t.get("topics"))[0];
        StreamExecutionEnvironment env = env();
        // The record fails the same way every time: it must stop the job, not restart it forever.
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1000, 100));
        JobClient job = Pipeline.builder()
                .environment(env)
                .source(FlinkDebeziumFormatITCase.source(kafka, registry, orders)
                        .build())
                .sink(CollectingChangeSink.builder().build())
                .build()
                .executeAsync();
        try {
            assertThat(Jobs.messages(Jobs.awaitFailure(job, Duration.ofSeconds(60))))
                    .contains("Cannot decode the Debezium record at topic " + orders + ", partition 0, offset "
                            + t.get("firstBadOffset"))
                    .contains("not the Confluent wire format's magic byte 0")
                    .contains("'bad-record.action' = 'dead-letter'");
        } finally {
            Jobs.cancelIfRunning(job);
        }
    }

    @Test
    void badRecordsGoToTheDeadLetterTopicAsTheyWereWithTheReason(KafkaBroker kafka, SchemaRegistry registry)
            throws Exception {
        Map<String, Object> t = badTopic(kafka, registry);
        String orders = ((String[]) t.get("topics"))[0];
        String dlq = kafka.createTopic("dead_letters", 1);
        CollectingChangeSink sink = CollectingChangeSink.builder().build();
        JobID job = Pipeline.builder()
                .environment(env())
                .source(FlinkDebeziumFormatITCase.source(kafka, registry, orders)
                        .deadLetterTopic(dlq)
                        .build())
                .sink(sink)
                .build()
                .execute()
                .getJobID();

        // Every good change arrived: 10 changes, the tombstone skipped.
        assertThat(sink.committed()).hasSize(10);
        List<ConsumerRecord<byte[], byte[]>> dead = consume(kafka, dlq, 3);
        @SuppressWarnings("unchecked")
        List<byte[]> bad = (List<byte[]>) t.get("bad");
        long first = (Long) t.get("firstBadOffset");
        for (int i = 0; i < 3; i++) {
            assertThat(dead.get(i).value()).isEqualTo(bad.get(i));
            assertThat(header(dead.get(i), "inlet.topic")).isEqualTo(orders);
            assertThat(header(dead.get(i), "inlet.partition")).isEqualTo("0");
            assertThat(header(dead.get(i), "inlet.offset")).isEqualTo(String.valueOf(first + i));
        }
        assertThat(header(dead.get(0), "inlet.error")).contains("not the Confluent wire format's magic byte 0");
        assertThat(header(dead.get(1), "inlet.error")).contains("the schema registry has no schema id");
        assertThat(header(dead.get(2), "inlet.error")).contains("the Avro body does not match schema id");

        assertThat(counter(job, "numBadRecords")).isEqualTo(3);
        assertThat(counter(job, "numTombstonesSkipped")).isEqualTo(1);
    }

    @Test
    void aRegistryThatIsDownStopsThePipelineBeforeItStarts(KafkaBroker kafka, SchemaRegistry registry)
            throws Exception {
        String[] topics = FlinkDebeziumFormatITCase.produce(kafka, registry);
        int closed = FreePorts.next();
        assertThatThrownBy(() -> DebeziumKafkaSource.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .topics(topics[0])
                        .registryUrl("http://127.0.0.1:" + closed)
                        .registryMaxRetries(2)
                        .startupMode("earliest-offset")
                        .build()
                        .discoverTables())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Cannot read schemas from the schema registry at http://127.0.0.1:" + closed)
                .hasMessageContaining("after 3 attempts")
                .hasMessageContaining("Check 'debezium-avro-confluent.url'");
        assertThatThrownBy(() -> FlinkDebeziumFormatITCase.source(kafka, registry, "no_such_topic")
                        .build()
                        .discoverTables())
                .hasMessageContaining("has no topic [no_such_topic]")
                // the connection failure is named by its type, not as a stray 'null'
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(": null"));
    }

    @Test
    void misleadingSetupsGetMessagesThatPointAtTheFix(KafkaBroker kafka, SchemaRegistry registry) throws Exception {
        String[] topics = FlinkDebeziumFormatITCase.produce(kafka, registry);
        // Apicurio's root instead of its Confluent-compatible API: every subject is 'missing'.
        assertThatThrownBy(() -> FlinkDebeziumFormatITCase.source(kafka, registry, topics[0])
                        .registryUrl("http://127.0.0.1:" + registry.port())
                        .build()
                        .discoverTables())
                .hasMessageContaining("has no subject " + topics[0] + "-value")
                .hasMessageContaining("answers 404 for /subjects too, so the URL's path looks wrong")
                .hasMessageContaining("/apis/ccompat/v7");
        int closed = FreePorts.next();
        assertThatThrownBy(() -> FlinkDebeziumFormatITCase.source(kafka, registry, topics[0])
                        .registryUrl("http://127.0.0.1:" + closed)
                        .registryMaxRetries(0)
                        .build()
                        .discoverTables())
                .hasMessageContaining("ConnectException")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(": null"));
        // A pattern that also matches a topic that is not Debezium's (here another application's) and the
        // dead-letter topic: the message says to narrow it, and the dead letters are never a table.
        String prefix = topics[0].substring(0, topics[0].indexOf('.'));
        String other = kafka.createTopic(prefix + ".app.events", 1);
        String dlq = kafka.createTopic(prefix + ".dead.letters", 1);
        assertThatThrownBy(() -> DebeziumKafkaSource.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .topicPattern(java.util.regex.Pattern.quote(prefix) + "\\..*")
                        .registryUrl(registry.ccompatUrl())
                        .deadLetterTopic(dlq)
                        .startupMode("earliest-offset")
                        .build()
                        .discoverTables())
                .hasMessageContaining("has no subject " + other + "-value")
                .hasMessageContaining("narrow 'topic-pattern'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(dlq + "-value"));
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static long counter(JobID job, String name) {
        return REPORTER.findMetrics(job, name).values().stream()
                .mapToLong(m -> ((Counter) m).getCount())
                .sum();
    }
}
