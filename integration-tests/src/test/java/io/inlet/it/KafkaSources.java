package io.inlet.it;

import io.inlet.source.kafka.DebeziumKafkaSource;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.SchemaRegistry;

/** A {@code debezium-kafka} source on the test broker and registry. */
final class KafkaSources {

    private KafkaSources() {}

    /** A source builder of the topics, read from their earliest offsets on, unbounded. */
    static DebeziumKafkaSource.Builder debezium(KafkaBroker kafka, SchemaRegistry registry, String... topics) {
        return DebeziumKafkaSource.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topics(topics)
                .registryUrl(registry.ccompatUrl())
                .startupMode("earliest-offset");
    }
}
