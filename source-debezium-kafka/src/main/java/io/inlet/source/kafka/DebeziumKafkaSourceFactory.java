package io.inlet.source.kafka;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.ChangeSourceFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

import java.util.Map;
import java.util.Set;

import static io.inlet.source.kafka.DebeziumKafkaOptions.*;

/** Creates a {@link DebeziumKafkaSource} from options; identifier {@code debezium-kafka}. */
@PublicEvolving
public final class DebeziumKafkaSourceFactory implements ChangeSourceFactory {

    public static final String IDENTIFIER = "debezium-kafka";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(BOOTSTRAP_SERVERS, REGISTRY_URL);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                TOPIC,
                TOPIC_PATTERN,
                GROUP_ID,
                SCAN_STARTUP_MODE,
                SCAN_STARTUP_TIMESTAMP_MILLIS,
                SCAN_STARTUP_SPECIFIC_OFFSETS,
                SCAN_BOUNDED_MODE,
                SCAN_BOUNDED_TIMESTAMP_MILLIS,
                SCAN_BOUNDED_SPECIFIC_OFFSETS,
                REGISTRY_BASIC_AUTH_USER_INFO,
                REGISTRY_TRUSTSTORE_LOCATION,
                REGISTRY_TRUSTSTORE_PASSWORD,
                REGISTRY_KEYSTORE_LOCATION,
                REGISTRY_KEYSTORE_PASSWORD,
                REGISTRY_MAX_RETRIES,
                REGISTRY_TIMEOUT,
                TABLE_ID_PATTERN,
                TABLE_ID_REPLACEMENT,
                BAD_RECORD_ACTION,
                DEAD_LETTER_TOPIC,
                EXCLUDE_COLUMNS,
                TIME_PRECISION_MODE,
                SCHEMA_CHANGE_BEHAVIOR,
                INCLUDE_SCHEMA_CHANGES,
                EXCLUDE_SCHEMA_CHANGES);
    }

    @Override
    public Set<String> passThroughPrefixes() {
        return Set.of(PROPERTIES_PREFIX);
    }

    @Override
    public ChangeSource createSource(Context context) {
        ReadableConfig o = context.options();
        DebeziumKafkaSource.Builder b = DebeziumKafkaSource.builder()
                .bootstrapServers(o.get(BOOTSTRAP_SERVERS))
                .registryUrl(o.get(REGISTRY_URL))
                .startupMode(o.get(SCAN_STARTUP_MODE))
                .boundedMode(o.get(SCAN_BOUNDED_MODE))
                .registryMaxRetries(o.get(REGISTRY_MAX_RETRIES))
                .registryTimeout(o.get(REGISTRY_TIMEOUT))
                .tableId(o.get(TABLE_ID_PATTERN), o.get(TABLE_ID_REPLACEMENT));
        o.getOptional(TOPIC).ifPresent(t -> b.topics(t.split("\\s*;\\s*")));
        o.getOptional(TOPIC_PATTERN).ifPresent(b::topicPattern);
        o.getOptional(INCLUDE_SCHEMA_CHANGES).ifPresent(b::includeSchemaChanges);
        o.getOptional(EXCLUDE_SCHEMA_CHANGES).ifPresent(b::excludeSchemaChanges);
        o.getOptional(GROUP_ID).ifPresent(b::groupId);
        o.getOptional(SCAN_STARTUP_TIMESTAMP_MILLIS).ifPresent(b::startupTimestamp);
        o.getOptional(SCAN_STARTUP_SPECIFIC_OFFSETS).ifPresent(b::startupSpecificOffsets);
        o.getOptional(SCAN_BOUNDED_TIMESTAMP_MILLIS).ifPresent(b::boundedTimestamp);
        o.getOptional(SCAN_BOUNDED_SPECIFIC_OFFSETS).ifPresent(b::boundedSpecificOffsets);
        o.getOptional(REGISTRY_BASIC_AUTH_USER_INFO).ifPresent(b::registryBasicAuth);
        o.getOptional(REGISTRY_TRUSTSTORE_LOCATION)
                .ifPresent(l -> b.registryTrustStore(
                        l, o.getOptional(REGISTRY_TRUSTSTORE_PASSWORD).orElse(null)));
        o.getOptional(REGISTRY_KEYSTORE_LOCATION)
                .ifPresent(l -> b.registryKeyStore(
                        l, o.getOptional(REGISTRY_KEYSTORE_PASSWORD).orElse(null)));
        o.getOptional(DEAD_LETTER_TOPIC).ifPresent(b::deadLetterTopic);
        o.getOptional(EXCLUDE_COLUMNS).ifPresent(b::excludeColumns);
        b.timePrecisionMode(TimePrecisionMode.of(o.get(TIME_PRECISION_MODE)));
        b.schemaChangeBehavior(SchemaChangeBehavior.of(o.get(SCHEMA_CHANGE_BEHAVIOR)));
        if (context.rawOptions().containsKey(BAD_RECORD_ACTION.key())) {
            b.badRecordAction(o.get(BAD_RECORD_ACTION));
        }
        for (Map.Entry<String, String> e : context.rawOptions().entrySet()) {
            if (e.getKey().startsWith(PROPERTIES_PREFIX) && !e.getKey().equals(BOOTSTRAP_SERVERS.key())) {
                String k = e.getKey().substring(PROPERTIES_PREFIX.length());
                if (!k.equals("group.id")) {
                    b.kafkaProperty(k, e.getValue());
                }
            }
        }
        return b.build();
    }
}
