package io.inlet.testing;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("harness") // the harness is the same on every Flink line: its own tests run on 1.17 only (pom.xml)
@ExtendWith(KafkaExtension.class)
class KafkaBrokerITCase {

    @Test
    void aProducedRecordIsConsumed(KafkaBroker broker) throws Exception {
        String topic = broker.createTopic("it", 2);
        assertThat(broker.admin().listTopics().names().get()).contains(topic);

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 20; i++) {
                String v = "value-" + i + "-ü😀";
                producer.send(new ProducerRecord<>(topic, "key-" + i, v)).get();
                sent.add(v);
            }
        }

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, TestNames.unique("group"));
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received.size() < sent.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    received.add(r.value());
                }
            }
        }
        assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void eachTestGetsItsOwnTopics(KafkaBroker broker) {
        assertThat(broker.createTopic("t", 1)).isNotEqualTo(broker.createTopic("t", 1));
        assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:");
    }
}
