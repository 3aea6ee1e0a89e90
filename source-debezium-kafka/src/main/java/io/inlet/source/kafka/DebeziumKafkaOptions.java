package io.inlet.source.kafka;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.source.SchemaChangePolicy;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * Options of the {@code debezium-kafka} source. Kafka keys are those of Flink's {@code kafka} SQL
 * connector, registry keys those of Flink's {@code debezium-avro-confluent} format, so a {@code WITH
 * (...)} clause users already have carries over.
 */
@PublicEvolving
public final class DebeziumKafkaOptions {

    private DebeziumKafkaOptions() {}

    public static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("properties.bootstrap.servers")
            .stringType()
            .noDefaultValue()
            .withDescription("The Kafka brokers, host:port,host:port.");

    public static final ConfigOption<String> TOPIC = ConfigOptions.key("topic")
            .stringType()
            .noDefaultValue()
            .withDescription("The topics to read, separated by ';'. Each is one table.");

    public static final ConfigOption<String> TOPIC_PATTERN = ConfigOptions.key("topic-pattern")
            .stringType()
            .noDefaultValue()
            .withDescription("A regular expression of the topics to read, matched when the pipeline is built.");

    public static final ConfigOption<String> GROUP_ID = ConfigOptions.key("properties.group.id")
            .stringType()
            .noDefaultValue()
            .withDescription("The consumer group, for committed offsets.");

    public static final ConfigOption<String> SCAN_STARTUP_MODE = ConfigOptions.key("scan.startup.mode")
            .stringType()
            .defaultValue("group-offsets")
            .withDescription("earliest-offset, latest-offset, group-offsets (the group's committed offsets,"
                    + " else the earliest), timestamp or specific-offsets.");

    public static final ConfigOption<Long> SCAN_STARTUP_TIMESTAMP_MILLIS = ConfigOptions.key(
                    "scan.startup.timestamp-millis")
            .longType()
            .noDefaultValue()
            .withDescription("Epoch milliseconds for scan.startup.mode 'timestamp'.");

    public static final ConfigOption<String> SCAN_STARTUP_SPECIFIC_OFFSETS = ConfigOptions.key(
                    "scan.startup.specific-offsets")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "For 'specific-offsets': 'partition:0,offset:42;partition:1,offset:300', applied to each topic.");

    public static final ConfigOption<String> SCAN_BOUNDED_MODE = ConfigOptions.key("scan.bounded.mode")
            .stringType()
            .defaultValue("unbounded")
            .withDescription("unbounded, or where a bounded read (a backfill) stops: latest-offset,"
                    + " group-offsets, timestamp or specific-offsets.");

    public static final ConfigOption<Long> SCAN_BOUNDED_TIMESTAMP_MILLIS = ConfigOptions.key(
                    "scan.bounded.timestamp-millis")
            .longType()
            .noDefaultValue()
            .withDescription("Epoch milliseconds for scan.bounded.mode 'timestamp'.");

    public static final ConfigOption<String> SCAN_BOUNDED_SPECIFIC_OFFSETS = ConfigOptions.key(
                    "scan.bounded.specific-offsets")
            .stringType()
            .noDefaultValue()
            .withDescription("For bounded mode 'specific-offsets', in the form of scan.startup.specific-offsets.");

    public static final ConfigOption<String> REGISTRY_URL = ConfigOptions.key("debezium-avro-confluent.url")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "The Confluent-compatible schema registry, e.g. http://registry:8081 (several, comma-separated).");

    public static final ConfigOption<String> REGISTRY_BASIC_AUTH_USER_INFO = ConfigOptions.key(
                    "debezium-avro-confluent.basic-auth.user-info")
            .stringType()
            .noDefaultValue()
            .withDescription("'user:password' for the registry's basic auth.");

    public static final ConfigOption<String> REGISTRY_TRUSTSTORE_LOCATION = ConfigOptions.key(
                    "debezium-avro-confluent.ssl.truststore.location")
            .stringType()
            .noDefaultValue()
            .withDescription("Trust store for the registry's TLS.");

    public static final ConfigOption<String> REGISTRY_TRUSTSTORE_PASSWORD = ConfigOptions.key(
                    "debezium-avro-confluent.ssl.truststore.password")
            .stringType()
            .noDefaultValue()
            .withDescription("Password of the trust store.");

    public static final ConfigOption<String> REGISTRY_KEYSTORE_LOCATION = ConfigOptions.key(
                    "debezium-avro-confluent.ssl.keystore.location")
            .stringType()
            .noDefaultValue()
            .withDescription("Key store for the registry's mutual TLS.");

    public static final ConfigOption<String> REGISTRY_KEYSTORE_PASSWORD = ConfigOptions.key(
                    "debezium-avro-confluent.ssl.keystore.password")
            .stringType()
            .noDefaultValue()
            .withDescription("Password of the key store.");

    public static final ConfigOption<Integer> REGISTRY_MAX_RETRIES = ConfigOptions.key(
                    "debezium-avro-confluent.max-retries")
            .intType()
            .defaultValue(5)
            .withDescription("Retries of a failed registry call, with exponential back-off from 100 ms.");

    public static final ConfigOption<Duration> REGISTRY_TIMEOUT = ConfigOptions.key("debezium-avro-confluent.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("Timeout of one registry call.");

    public static final ConfigOption<String> TABLE_ID_PATTERN = ConfigOptions.key("table-id.pattern")
            .stringType()
            .defaultValue("[^.]+\\.([^.]+)\\.([^.]+)")
            .withDescription("A regular expression over the whole topic name; with 'table-id.replacement' it"
                    + " gives the table id. The default reads Debezium's server.database.table.");

    public static final ConfigOption<String> TABLE_ID_REPLACEMENT = ConfigOptions.key("table-id.replacement")
            .stringType()
            .defaultValue("$1.$2")
            .withDescription("The table id, with $1, $2 ... the groups of 'table-id.pattern'.");

    public static final ConfigOption<String> BAD_RECORD_ACTION = ConfigOptions.key("bad-record.action")
            .stringType()
            .defaultValue("fail")
            .withDescription("What to do with a record that cannot be decoded (bad magic byte, unknown schema"
                    + " id, truncated Avro): fail (the job, naming topic, partition and offset) or"
                    + " dead-letter (write it to 'dead-letter.topic' with the reason in headers).");

    public static final ConfigOption<String> DEAD_LETTER_TOPIC = ConfigOptions.key("dead-letter.topic")
            .stringType()
            .noDefaultValue()
            .withDescription("The topic that receives undecodable records, as they were, with headers"
                    + " inlet.error, inlet.topic, inlet.partition, inlet.offset.");

    public static final ConfigOption<String> EXCLUDE_COLUMNS = ConfigOptions.key("exclude-columns")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "Regular expression over 'database.table.column' (the table id the topic maps to) of columns"
                            + " to leave out: they are skipped, never decoded, so a value in them cannot"
                            + " fail a record.");

    public static final ConfigOption<String> TIME_PRECISION_MODE = ConfigOptions.key("time.precision.mode")
            .stringType()
            .defaultValue("time")
            .withDescription("How TIME columns are typed: 'time' (Flink TIME; a value outside one day or with"
                    + " microseconds is a bad record), 'microseconds' (BIGINT, signed microseconds:"
                    + " every value, exact) or"
                    + " 'string' (MySQL's text form, e.g. '-838:59:59.999999').");

    public static final ConfigOption<String> SCHEMA_CHANGE_BEHAVIOR = ConfigOptions.key("schema-change.behavior")
            .stringType()
            .defaultValue("fail")
            .withDescription("What a record written with a value schema registered after the pipeline was built, whose"
                    + " columns differ from the table's, does: 'fail' stops the job once, naming"
                    + " table, column, change and"
                    + " schema id; 'ignore-added-columns' leaves added nullable columns out (logged, counted in"
                    + " numSchemaChangesIgnored) and stops on every other change; 'evolve' follows the new"
                    + " writer schema while the job runs (the table's next version goes downstream ahead of its"
                    + " rows; without a DDL a rename is a drop and an add); 'try-evolve' as 'evolve', the sink"
                    + " going on without what it cannot apply where that stays correct; 'lenient' only adds.");

    public static final ConfigOption<String> INCLUDE_SCHEMA_CHANGES = ConfigOptions.key(
                    SchemaChangePolicy.INCLUDE_OPTION)
            .stringType()
            .noDefaultValue()
            .withDescription("Under 'evolve' or 'try-evolve': the kinds of column change the lake follows,"
                    + " comma-separated: add.column, drop.column, alter.column.type, or column for all (the"
                    + " default).");

    public static final ConfigOption<String> EXCLUDE_SCHEMA_CHANGES = ConfigOptions.key(
                    SchemaChangePolicy.EXCLUDE_OPTION)
            .stringType()
            .noDefaultValue()
            .withDescription("Under 'evolve' or 'try-evolve': the kinds of column change the lake does not follow."
                    + " An added column is then left out; a dropped column stays in the lake with its values."
                    + " alter.column.type cannot be left out.");

    /** Prefix of Kafka client properties passed through, e.g. 'properties.security.protocol'. */
    public static final String PROPERTIES_PREFIX = "properties.";
}
