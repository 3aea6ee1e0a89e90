package io.inlet.examples;

import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.source.kafka.ConfluentSchemaRegistry;
import io.inlet.source.kafka.DebeziumKafkaOptions;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Job jar entry point for the serverless case: a data generator writes Debezium change events of an
 * {@code orders} table to Kafka (Confluent Avro, schemas registered in the registry), and Inlet's
 * {@code debezium-kafka} source reads them into an Iceberg table, in one job on a Flink runtime
 * without Hadoop.
 *
 * <p>Settings as in {@link InletJob} ({@code source.*} of the {@code debezium-kafka} source, {@code
 * sink.*} of the {@code iceberg} sink, {@code pipeline.*}), plus:
 *
 * <ul>
 *   <li>{@code generator.topic}: the topic, default {@code inlet.shop.orders} (table {@code
 *       shop.orders}); created when missing, with {@code generator.partitions} partitions (default 1);
 *   <li>{@code generator.rows}: how many change events, default unbounded;
 *   <li>{@code generator.rows-per-second}: the rate, default 1000.
 * </ul>
 *
 * The generator reaches Kafka and the registry through the source's {@code
 * source.properties.bootstrap.servers}, {@code source.properties.*} and {@code
 * source.debezium-avro-confluent.*} settings. It runs with parallelism 1, so each order's changes
 * reach Kafka in order.
 */
public final class OrdersGeneratorToIceberg {

    private static final Logger LOG = LoggerFactory.getLogger(OrdersGeneratorToIceberg.class);

    private OrdersGeneratorToIceberg() {}

    public static void main(String[] args) throws Exception {
        JobSettings settings = JobSettings.of(
                args,
                Map.of(
                        "source.type", "debezium-kafka",
                        "sink.type", "iceberg",
                        "pipeline.name", "inlet: generated orders via kafka to iceberg",
                        "generator.topic", "inlet.shop.orders",
                        "generator.partitions", "1",
                        "generator.rows", String.valueOf(Long.MAX_VALUE),
                        "generator.rows-per-second", "1000",
                        "source.scan.startup.mode", "earliest-offset",
                        "source.properties.group.id", "inlet-orders-generator"));
        String topic = settings.get("generator.topic");
        if (settings.get("source.topic") == null && settings.get("source.topic-pattern") == null) {
            settings = settings.withDefaults(Map.of("source.topic", topic));
        }
        Configuration source = Configuration.fromMap(settings.withPrefix("source."));
        String bootstrap = source.getOptional(DebeziumKafkaOptions.BOOTSTRAP_SERVERS)
                .orElseThrow(() -> new InletValidationException(
                        "Setting 'source.properties.bootstrap.servers' is missing: the Kafka" + " cluster the"
                                + " generator writes to and the source reads."));
        Properties kafka = new Properties();
        settings.withPrefix("source.properties.").forEach(kafka::setProperty);

        ensureTopic(kafka, topic, Integer.parseInt(settings.get("generator.partitions")));
        DebeziumOrders encoder = register(source, topic);

        StreamExecutionEnvironment env = InletJob.environment(settings);
        long rows = Long.parseLong(settings.get("generator.rows"));
        double rate = Double.parseDouble(settings.get("generator.rows-per-second"));
        DataGeneratorSource<Tuple2<byte[], byte[]>> generator =
                new DataGeneratorSource<>(new Encode(encoder), rows, RateLimiterStrategy.perSecond(rate), RECORD_TYPE);
        KafkaSink<Tuple2<byte[], byte[]>> toKafka = KafkaSink.<Tuple2<byte[], byte[]>>builder()
                .setBootstrapServers(bootstrap)
                .setKafkaProducerConfig(kafka)
                .setRecordSerializer(new ToRecord(topic))
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE) // as Debezium delivers; the Iceberg sink upserts
                .build();
        env.fromSource(generator, WatermarkStrategy.noWatermarks(), "Generate orders")
                .uid("generator-source")
                .setParallelism(1)
                .sinkTo(toKafka)
                .name("Orders to Kafka")
                .uid("generator-kafka-sink")
                .setParallelism(1);

        Pipeline pipeline =
                InletJob.pipeline(settings, env, Set.of("generator.")).build();
        LOG.info(
                "Generating {} change events of {} at {}/s into {}; '{}' writes {}",
                rows == Long.MAX_VALUE ? "unbounded" : rows,
                "shop.orders",
                rate,
                topic,
                pipeline.jobName(),
                pipeline.sinkTables());
        pipeline.execute();
    }

    static final TypeInformation<Tuple2<byte[], byte[]>> RECORD_TYPE =
            Types.TUPLE(Types.PRIMITIVE_ARRAY(Types.BYTE), Types.PRIMITIVE_ARRAY(Types.BYTE));

    private static void ensureTopic(Properties kafka, String topic, int partitions) throws Exception {
        try (AdminClient admin = AdminClient.create(kafka)) {
            if (admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(topic)) {
                return;
            }
            try {
                admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                LOG.info("Created topic {} with {} partition(s).", topic, partitions);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    /** Registers the key and value schemas as Debezium would, and returns the encoder with their ids. */
    private static DebeziumOrders register(Configuration source, String topic) throws Exception {
        // The registry the source reads from, with the same options: the generator's settings say it once.
        ConfluentSchemaRegistry registry = ConfluentSchemaRegistry.fromOptions(source);
        int keyId = registry.register(topic + "-key", DebeziumOrders.keySchema(topic));
        int valueId = registry.register(topic + "-value", DebeziumOrders.valueSchema(topic));
        return new DebeziumOrders(topic, keyId, valueId);
    }

    /** Index to encoded event; an empty value stands for a tombstone (a tuple field cannot be null). */
    static final class Encode implements GeneratorFunction<Long, Tuple2<byte[], byte[]>> {
        private static final long serialVersionUID = 1L;
        private final DebeziumOrders encoder;

        Encode(DebeziumOrders encoder) {
            this.encoder = encoder;
        }

        @Override
        public Tuple2<byte[], byte[]> map(Long n) {
            byte[][] kv = encoder.encode(n);
            return Tuple2.of(kv[0], kv[1] == null ? new byte[0] : kv[1]);
        }
    }

    /** The encoded event as a Kafka record, keyed by order id so that each order's changes stay in order. */
    static final class ToRecord implements KafkaRecordSerializationSchema<Tuple2<byte[], byte[]>> {
        private static final long serialVersionUID = 1L;
        private final String topic;

        ToRecord(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                Tuple2<byte[], byte[]> kv, KafkaSinkContext context, Long timestamp) {
            return new ProducerRecord<>(topic, kv.f0, kv.f1.length == 0 ? null : kv.f1);
        }
    }
}
