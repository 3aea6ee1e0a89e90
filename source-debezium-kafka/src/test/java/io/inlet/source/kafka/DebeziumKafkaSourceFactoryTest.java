package io.inlet.source.kafka;

import io.inlet.core.InletValidationException;
import io.inlet.core.spi.FactoryDiscovery;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DebeziumKafkaSourceFactoryTest {

    private static Map<String, String> options() {
        Map<String, String> o = new HashMap<>();
        o.put("properties.bootstrap.servers", "kafka:9092");
        o.put("topic", "dbserver1.inventory.orders; dbserver1.inventory.customers");
        o.put("debezium-avro-confluent.url", "http://user:pw@registry:8081");
        o.put("properties.group.id", "inlet");
        return o;
    }

    @Test
    void takesFlinkKafkaAndFormatKeys() {
        Map<String, String> o = options();
        o.put("properties.security.protocol", "SASL_SSL");
        o.put("dead-letter.topic", "dlq");
        assertThat(FactoryDiscovery.createSource("debezium-kafka", o))
                .hasToString("DebeziumKafkaSource{kafka:9092, topic=[dbserver1.inventory.orders,"
                        + " dbserver1.inventory.customers],"
                        + " registry=http://registry:8081, dead-letter.topic=dlq}");
    }

    @Test
    void reportsMissingAndConflictingOptions() {
        assertThatThrownBy(() -> FactoryDiscovery.createSource("debezium-kafka", Map.of("topic", "t")))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("needs the option 'properties.bootstrap.servers'")
                .hasMessageContaining("needs the option 'debezium-avro-confluent.url'");
        Map<String, String> both = options();
        both.put("topic-pattern", "dbserver1\\..*");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("debezium-kafka", both))
                .hasMessageContaining("Set exactly one of 'topic' and 'topic-pattern'");
        Map<String, String> dlq = options();
        dlq.put("bad-record.action", "dead-letter");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("debezium-kafka", dlq))
                .hasMessageContaining("'bad-record.action' = 'dead-letter' needs 'dead-letter.topic'");
        Map<String, String> offsets = options();
        offsets.put("scan.startup.mode", "specific-offsets");
        offsets.put("scan.startup.specific-offsets", "0:42");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("debezium-kafka", offsets))
                .hasMessageContaining("'scan.startup.specific-offsets' = '0:42' is not of the form"
                        + " 'partition:0,offset:42;partition:1,offset:300'");
        Map<String, String> noGroup = options();
        noGroup.remove("properties.group.id");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("debezium-kafka", noGroup))
                .hasMessageContaining("'group-offsets' needs 'properties.group.id'");
        Map<String, String> policy = options();
        policy.put("schema-change.behavior", "lenient");
        policy.put("exclude.schema.changes", "add.column");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("debezium-kafka", policy))
                .hasMessageContaining("'schema-change.behavior' = 'lenient' follows none but its own");
        policy.put("schema-change.behavior", "evolve");
        assertThat(FactoryDiscovery.createSource("debezium-kafka", policy).followsSchemaChanges())
                .isTrue();
    }
}
