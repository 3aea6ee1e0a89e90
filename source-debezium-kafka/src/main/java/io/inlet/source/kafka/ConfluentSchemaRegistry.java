package io.inlet.source.kafka;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.source.kafka.internal.RegistrySettings;
import io.inlet.source.kafka.internal.SchemaRegistryClient;

import org.apache.avro.Schema;
import org.apache.flink.configuration.ReadableConfig;

import java.io.IOException;

/**
 * The Confluent-compatible schema registry the {@code debezium-kafka} source reads from, reached
 * with the same options (URLs, basic auth, TLS, retries): for programs that write records in the
 * Confluent wire format next to a pipeline, such as a data generator or a test producer.
 *
 * <pre>{@code
 * ConfluentSchemaRegistry registry = ConfluentSchemaRegistry.fromOptions(sourceOptions);
 * int id = registry.register("dbserver1.shop.orders-value", valueSchema);
 * }</pre>
 */
@PublicEvolving
public final class ConfluentSchemaRegistry {

    private final SchemaRegistryClient client;

    private ConfluentSchemaRegistry(SchemaRegistryClient client) {
        this.client = client;
    }

    /**
     * @param options the source's options ({@link DebeziumKafkaOptions}): {@code
     *     debezium-avro-confluent.url} and the other {@code debezium-avro-confluent.*} keys
     * @throws InletValidationException when the URL is missing
     */
    public static ConfluentSchemaRegistry fromOptions(ReadableConfig options) {
        String url = options.getOptional(DebeziumKafkaOptions.REGISTRY_URL)
                .orElseThrow(() -> new InletValidationException("'" + DebeziumKafkaOptions.REGISTRY_URL.key()
                        + "' is missing: set the schema registry's URL, e.g." + " http://registry:8081."));
        return new ConfluentSchemaRegistry(new SchemaRegistryClient(new RegistrySettings(
                url,
                options.get(DebeziumKafkaOptions.REGISTRY_BASIC_AUTH_USER_INFO),
                options.get(DebeziumKafkaOptions.REGISTRY_TRUSTSTORE_LOCATION),
                options.get(DebeziumKafkaOptions.REGISTRY_TRUSTSTORE_PASSWORD),
                options.get(DebeziumKafkaOptions.REGISTRY_KEYSTORE_LOCATION),
                options.get(DebeziumKafkaOptions.REGISTRY_KEYSTORE_PASSWORD),
                options.get(DebeziumKafkaOptions.REGISTRY_MAX_RETRIES),
                options.get(DebeziumKafkaOptions.REGISTRY_TIMEOUT).toMillis())));
    }

    /** Registers the schema under the subject (or finds it there) and returns its id. */
    public int register(String subject, Schema schema) throws IOException {
        return client.register(subject, schema);
    }
}
