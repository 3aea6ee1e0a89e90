package io.inlet.source.kafka;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.SourceContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.source.kafka.internal.DeadLetterSerializer;
import io.inlet.source.kafka.internal.DebeziumDecodeFunction;
import io.inlet.source.kafka.internal.DebeziumRecordDecoder;
import io.inlet.source.kafka.internal.EnvelopeSchemas;
import io.inlet.source.kafka.internal.KafkaRawRecord;
import io.inlet.source.kafka.internal.RawRecordDeserializer;
import io.inlet.source.kafka.internal.RegistrySettings;
import io.inlet.source.kafka.internal.SchemaRegistryClient;

import org.apache.avro.Schema;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Reads Debezium change events from Kafka: Avro in the Confluent wire format, writer schemas from any
 * Confluent-compatible registry. Each topic is one table; its descriptor comes from the latest value
 * schema registered for the topic ({@code <topic>-value}, the envelope's row) and its primary key from
 * the key schema ({@code <topic>-key}). Debezium's semantic types and Avro's logical types are both
 * understood; records are decoded straight from Avro binary into change events.
 *
 * <pre>{@code
 * DebeziumKafkaSource source = DebeziumKafkaSource.builder()
 *     .bootstrapServers("kafka:9092")
 *     .topics("dbserver1.inventory.orders", "dbserver1.inventory.customers")
 *     .registryUrl("http://registry:8081")
 *     .groupId("inlet-inventory")
 *     .deadLetterTopic("inventory-dead-letters")
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class DebeziumKafkaSource implements ChangeSource {

    private static final Logger LOG = LoggerFactory.getLogger(DebeziumKafkaSource.class);

    private final String bootstrapServers;
    private final List<String> topics;

    @Nullable
    private final String topicPattern;

    @Nullable
    private final String groupId;

    private final String startupMode;

    @Nullable
    private final Long startupTimestamp;

    @Nullable
    private final String startupOffsets;

    private final String boundedMode;

    @Nullable
    private final Long boundedTimestamp;

    @Nullable
    private final String boundedOffsets;

    private final Properties kafkaProperties;
    private final RegistrySettings registry;
    private final String tableIdPattern;
    private final String tableIdReplacement;

    @Nullable
    private final String deadLetterTopic;

    @Nullable
    private final String excludeColumns;

    private final TimePrecisionMode timePrecisionMode;
    private final SchemaChangePolicy schemaChangePolicy;

    private transient Map<String, TableDescriptor> tablesByTopic;
    private transient Map<String, Long> buildOffsets;
    /** Per topic, the defaults of the columns added since its oldest schema, read when the tables were. */
    private transient Map<String, Map<String, String>> addedDefaults;

    private DebeziumKafkaSource(Builder b, RegistrySettings registry) {
        this.bootstrapServers = b.bootstrapServers;
        this.topics = new ArrayList<>(b.topics);
        this.topicPattern = b.topicPattern;
        this.groupId = b.groupId;
        this.startupMode = b.startupMode;
        this.startupTimestamp = b.startupTimestamp;
        this.startupOffsets = b.startupOffsets;
        this.boundedMode = b.boundedMode;
        this.boundedTimestamp = b.boundedTimestamp;
        this.boundedOffsets = b.boundedOffsets;
        this.kafkaProperties = b.kafkaProperties;
        this.registry = registry;
        this.tableIdPattern = b.tableIdPattern;
        this.tableIdReplacement = b.tableIdReplacement;
        this.deadLetterTopic = "dead-letter".equals(b.badRecordAction) ? b.deadLetterTopic : null;
        this.excludeColumns = b.excludeColumns;
        this.timePrecisionMode = b.timePrecisionMode;
        this.schemaChangePolicy = b.schemaChangePolicy;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "debezium-kafka";
    }

    @Override
    public List<TableDescriptor> discoverTables() {
        List<String> resolved = resolveTopics();
        SchemaRegistryClient client = new SchemaRegistryClient(registry);
        Pattern idPattern = Pattern.compile(tableIdPattern);
        Pattern excluded = excludeColumns == null ? null : Pattern.compile(excludeColumns);
        List<String> problems = new ArrayList<>();
        Map<String, TableDescriptor> byTopic = new LinkedHashMap<>();
        Map<String, Map<String, String>> defaults = new HashMap<>();

        Map<TableId, String> topicOfTable = new HashMap<>();
        String narrow = topicPattern == null
                ? ""
                : " It matched 'topic-pattern' = '" + topicPattern + "': if it is no change topic"
                        + " of the connector (a schema history, dead-letter or other application's topic),"
                        + " narrow 'topic-pattern' to the"
                        + " connector's topics, e.g. 'dbserver1\\..*'.";
        for (String topic : resolved) {
            TableId id = tableId(idPattern, topic, problems, narrow);
            if (id == null) {
                continue;
            }
            String other = topicOfTable.putIfAbsent(id, topic);
            if (other != null) {
                problems.add("Topics " + other + " and " + topic + " both map to table " + id
                        + "; set 'table-id.pattern' and 'table-id.replacement' to keep them apart.");
                continue;
            }
            try {
                Optional<SchemaRegistryClient.Registered> value = client.latest(topic + "-value");
                if (value.isEmpty()) {
                    problems.add("The schema registry at " + registry.describe() + " has no subject " + topic
                            + "-value."
                            + " Inlet derives the table from the schema Debezium registered for the topic's values: has"
                            + " anything been written to " + topic + " yet, with the topic-name subject strategy?"
                            + client.pathHint() + narrow);
                    continue;
                }
                Schema key = client.latest(topic + "-key").map(r -> r.schema).orElse(null);
                TableDescriptor described =
                        EnvelopeSchemas.describe(id, topic, value.get().schema, key, excluded, timePrecisionMode);
                byTopic.put(topic, described);
                if (value.get().version > 1) {
                    // Records written before a column was added lack it: they take the default it was added with.
                    try {
                        List<Schema> history = new ArrayList<>();
                        client.history(topic + "-value").forEach(r -> history.add(r.schema));
                        Map<String, String> d = EnvelopeSchemas.addedDefaults(history, topic, described);
                        if (!d.isEmpty()) {
                            defaults.put(topic, d);
                            LOG.info("Topic {}: records from before a column was added take its default: {}", topic, d);
                        }
                    } catch (IOException | RuntimeException e) {
                        LOG.warn(
                                "Topic {}: cannot read the subject's schema history ({}); a record from before a"
                                        + " column was added gets NULL there, or stops the job when the column is"
                                        + " NOT NULL.",
                                topic,
                                e.toString());
                    }
                }
            } catch (InletValidationException e) {
                e.problems().forEach(p -> problems.add(p + narrow));
            } catch (IOException e) {
                throw new InletValidationException(
                        "Cannot read schemas from the schema registry at " + registry.describe() + ": " + e.getMessage()
                                + " Check 'debezium-avro-confluent.url' and that the registry is up.",
                        e);
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        tablesByTopic = byTopic;
        addedDefaults = defaults;
        buildOffsets = endOffsets(new ArrayList<>(byTopic.keySet()));
        LOG.info(
                "debezium-kafka reads {} topic(s) as tables: {}",
                byTopic.size(),
                byTopic.entrySet().stream()
                        .map(e -> e.getKey() + " -> " + e.getValue().tableId())
                        .collect(Collectors.joining(", ")));
        return new ArrayList<>(byTopic.values());
    }

    @Nullable
    private TableId tableId(Pattern pattern, String topic, List<String> problems, String narrow) {
        Matcher m = pattern.matcher(topic);
        if (!m.matches()) {
            problems.add(
                    "Topic " + topic + " does not match 'table-id.pattern' = '" + tableIdPattern + "' (whole name)."
                            + (narrow.isEmpty()
                                    ? " Set 'table-id.pattern' and 'table-id.replacement' for its naming,"
                                            + " e.g. '(.*)'" + " and 'default.$1'."
                                    : narrow + " If it is one, set 'table-id.pattern' and"
                                            + " 'table-id.replacement' for its naming."));
            return null;
        }
        StringBuffer sb = new StringBuffer();
        try {
            m.appendReplacement(sb, tableIdReplacement);
            return TableId.parse(sb.toString());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            problems.add("'table-id.replacement' = '" + tableIdReplacement + "' gives no table id for topic " + topic
                    + ": " + e.getMessage());
            return null;
        }
    }

    /**
     * The end offset of every partition of the topics now, by {@code topic:partition}: the tables'
     * shapes are the newest schemas' of now, so records from these offsets on must have them.
     */
    private Map<String, Long> endOffsets(List<String> topicNames) {
        Properties p = new Properties();
        p.putAll(kafkaProperties);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        Map<String, Long> out = new HashMap<>();
        try (Admin admin = Admin.create(p)) {
            Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
            admin.describeTopics(topicNames)
                    .allTopicNames()
                    .get(60, TimeUnit.SECONDS)
                    .forEach((name, d) -> d.partitions()
                            .forEach(part ->
                                    wanted.put(new TopicPartition(name, part.partition()), OffsetSpec.latest())));
            admin.listOffsets(wanted)
                    .all()
                    .get(60, TimeUnit.SECONDS)
                    .forEach((tp, info) -> out.put(tp.topic() + ":" + tp.partition(), info.offset()));
        } catch (Exception e) {
            throw new InletValidationException(
                    "Cannot read the end offsets of the topics " + topicNames + " at " + bootstrapServers + ": " + e
                            + ". Check 'properties.bootstrap.servers' and that the user may describe the topics.",
                    e);
        }
        return out;
    }

    /** The explicit topics, checked to exist, or those matching the pattern now. */
    private List<String> resolveTopics() {
        Set<String> existing;
        Properties p = new Properties();
        p.putAll(kafkaProperties);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        try (Admin admin = Admin.create(p)) {
            existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new InletValidationException(
                    "Cannot list the topics of the Kafka cluster at " + bootstrapServers + ": " + e
                            + ". Check 'properties.bootstrap.servers' and the security 'properties.*'.",
                    e);
        }
        if (topicPattern != null) {
            Pattern pat = Pattern.compile(topicPattern);
            // Never Inlet's own dead-letter topic: its records are the ones that could not be read.
            List<String> matched = existing.stream()
                    .filter(t -> pat.matcher(t).matches())
                    .filter(t -> !t.equals(deadLetterTopic))
                    .sorted()
                    .collect(Collectors.toList());
            if (matched.isEmpty()) {
                throw new InletValidationException(
                        "No topic of the Kafka cluster at " + bootstrapServers + " matches 'topic-pattern' = '"
                                + topicPattern + "' (whole name). Topics: " + new TreeSet<>(existing) + ".");
            }
            return matched;
        }
        if (deadLetterTopic != null && topics.contains(deadLetterTopic)) {
            throw new InletValidationException(
                    "'topic' names the dead-letter topic " + deadLetterTopic + ", where this source sets"
                            + " aside the records it cannot read. Read another topic, or set another"
                            + " 'dead-letter.topic'.");
        }
        List<String> missing =
                topics.stream().filter(t -> !existing.contains(t)).collect(Collectors.toList());
        if (!missing.isEmpty()) {
            throw new InletValidationException("The Kafka cluster at " + bootstrapServers + " has no topic " + missing
                    + ". Fix 'topic'; topics there: " + new TreeSet<>(existing) + ".");
        }
        return topics;
    }

    @Override
    public DataStream<ChangeEvent> createStream(StreamExecutionEnvironment env, SourceContext context) {
        Map<String, TableDescriptor> byTopic = new LinkedHashMap<>();
        for (TableDescriptor t : context.tables()) {
            tablesByTopic.forEach((topic, d) -> {
                if (d.tableId().equals(t.tableId())) {
                    byTopic.put(topic, t);
                }
            });
        }
        KafkaSourceBuilder<KafkaRawRecord> b = KafkaSource.<KafkaRawRecord>builder()
                .setBootstrapServers(bootstrapServers)
                // Exactly the topics validated now: a topic created later that matches a
                // pattern is not read without a rebuilt pipeline that knows its table.
                .setTopics(new ArrayList<>(byTopic.keySet()))
                .setDeserializer(new RawRecordDeserializer())
                .setProperties(kafkaProperties)
                .setStartingOffsets(offsets(startupMode, startupTimestamp, startupOffsets, byTopic.keySet(), true));
        if (groupId != null) {
            b.setGroupId(groupId);
        }
        if (!"unbounded".equals(boundedMode)) {
            b.setBounded(offsets(boundedMode, boundedTimestamp, boundedOffsets, byTopic.keySet(), false));
        }
        DataStreamSource<KafkaRawRecord> raw = env.fromSource(
                b.build(), WatermarkStrategy.noWatermarks(), "Kafka: " + String.join(", ", byTopic.keySet()));
        raw.uid(context.uid("kafka-reader"));
        OutputTag<KafkaRawRecord> dlq =
                deadLetterTopic == null ? null : new OutputTag<>("dead-letters", KafkaRawRecord.TYPE);
        SingleOutputStreamOperator<ChangeEvent> events = raw.process(
                        new DebeziumDecodeFunction(
                                registry,
                                byTopic,
                                new DebeziumRecordDecoder.Settings(
                                                buildOffsets, excludeColumns, timePrecisionMode, schemaChangePolicy)
                                        .withAddedDefaults(addedDefaults == null ? Map.of() : addedDefaults),
                                dlq),
                        context.typeInfo())
                .name("Debezium Avro decoder")
                .uid(context.uid("decoder"))
                .setParallelism(raw.getParallelism());
        if (dlq != null) {
            Properties producer = new Properties();
            producer.putAll(kafkaProperties);
            producer.keySet()
                    .removeIf(k -> String.valueOf(k).startsWith("group.")
                            || String.valueOf(k).startsWith("auto.offset"));
            events.getSideOutput(dlq)
                    .sinkTo(KafkaSink.<KafkaRawRecord>builder()
                            .setBootstrapServers(bootstrapServers)
                            .setKafkaProducerConfig(producer)
                            .setRecordSerializer(new DeadLetterSerializer(deadLetterTopic))
                            // At least once: a dead letter written twice after a restart is set aside twice, never
                            // lost.
                            .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                            .build())
                    .name("Dead letters to " + deadLetterTopic)
                    .uid(context.uid("dead-letters"));
        }
        return events;
    }

    private OffsetsInitializer offsets(
            String mode, @Nullable Long timestamp, @Nullable String specific, Set<String> topicSet, boolean startup) {
        switch (mode) {
            case "earliest-offset":
                return OffsetsInitializer.earliest();
            case "latest-offset":
                return OffsetsInitializer.latest();
            case "group-offsets":
                return startup
                        ? OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST)
                        : OffsetsInitializer.committedOffsets();
            case "timestamp":
                return OffsetsInitializer.timestamp(timestamp);
            case "specific-offsets":
                Map<TopicPartition, Long> offsets = new HashMap<>();
                for (String part : specific.split(";")) {
                    Map<String, String> kv = new HashMap<>();
                    for (String p : part.split(",")) {
                        String[] pair = p.split(":");
                        kv.put(pair[0].trim(), pair[1].trim());
                    }
                    for (String topic : topicSet) {
                        offsets.put(
                                new TopicPartition(topic, Integer.parseInt(kv.get("partition"))),
                                Long.parseLong(kv.get("offset")));
                    }
                }
                return OffsetsInitializer.offsets(offsets);
            default:
                throw new IllegalStateException("Unchecked mode " + mode);
        }
    }

    /**
     * Debezium's Kafka Connect connector delivers at least once: after its own restart it resends the
     * changes since its last committed offset, so sinks must apply them idempotently.
     */
    @Override
    public boolean mayRepeatChanges() {
        return true;
    }

    /** Whether {@code schema-change.behavior} follows schema changes (evolve, try-evolve, lenient). */
    @Override
    public boolean followsSchemaChanges() {
        return schemaChangePolicy.sendsChanges();
    }

    /** Whether dropped and renamed columns stay in the lake (lenient, or excluded from the ones followed). */
    @Override
    public boolean keepsDroppedColumns() {
        return schemaChangePolicy.keepsDroppedColumns();
    }

    @Override
    public String toString() {
        return "DebeziumKafkaSource{" + bootstrapServers + ", "
                + (topicPattern != null ? "topic-pattern=" + topicPattern : "topic=" + topics) + ", registry="
                + registry.describe() + (deadLetterTopic == null ? "" : ", dead-letter.topic=" + deadLetterTopic) + "}";
    }

    /** Builds a {@link DebeziumKafkaSource}; {@link #build()} checks the options. */
    @PublicEvolving
    public static final class Builder {
        private String bootstrapServers;
        private final List<String> topics = new ArrayList<>();

        @Nullable
        private String topicPattern;

        @Nullable
        private String groupId;

        private String startupMode = DebeziumKafkaOptions.SCAN_STARTUP_MODE.defaultValue();

        @Nullable
        private Long startupTimestamp;

        @Nullable
        private String startupOffsets;

        private String boundedMode = DebeziumKafkaOptions.SCAN_BOUNDED_MODE.defaultValue();

        @Nullable
        private Long boundedTimestamp;

        @Nullable
        private String boundedOffsets;

        private final Properties kafkaProperties = new Properties();
        private String registryUrl;

        @Nullable
        private String basicAuthUserInfo;

        @Nullable
        private String truststoreLocation;

        @Nullable
        private String truststorePassword;

        @Nullable
        private String keystoreLocation;

        @Nullable
        private String keystorePassword;

        private int registryMaxRetries = DebeziumKafkaOptions.REGISTRY_MAX_RETRIES.defaultValue();
        private Duration registryTimeout = DebeziumKafkaOptions.REGISTRY_TIMEOUT.defaultValue();
        private String tableIdPattern = DebeziumKafkaOptions.TABLE_ID_PATTERN.defaultValue();
        private String tableIdReplacement = DebeziumKafkaOptions.TABLE_ID_REPLACEMENT.defaultValue();
        private String badRecordAction = DebeziumKafkaOptions.BAD_RECORD_ACTION.defaultValue();

        @Nullable
        private String deadLetterTopic;

        @Nullable
        private String excludeColumns;

        private TimePrecisionMode timePrecisionMode = TimePrecisionMode.TIME;
        private SchemaChangeBehavior schemaChangeBehavior = SchemaChangeBehavior.FAIL;
        private String includeSchemaChanges;
        private String excludeSchemaChanges;
        private SchemaChangePolicy schemaChangePolicy;

        private Builder() {}

        /**
         * Columns to leave out, never decoded: a regular expression over {@code database.table.column} (the table id).
         */
        public Builder excludeColumns(String regex) {
            this.excludeColumns = regex;
            return this;
        }

        /** How TIME columns (Debezium's MicroTime, Time, NanoTime) are typed; see {@link TimePrecisionMode}. */
        public Builder timePrecisionMode(TimePrecisionMode mode) {
            this.timePrecisionMode = Objects.requireNonNull(mode);
            return this;
        }

        /**
         * What a writer schema registered after the pipeline was built that changes a table does; see {@link
         * SchemaChangeBehavior}.
         */
        public Builder schemaChangeBehavior(SchemaChangeBehavior behavior) {
            this.schemaChangeBehavior = Objects.requireNonNull(behavior);
            return this;
        }

        /**
         * Under {@code evolve} or {@code try-evolve}: the kinds of column change the lake follows,
         * comma-separated Flink CDC tags; default all. See {@link SchemaChangePolicy}.
         */
        public Builder includeSchemaChanges(String tags) {
            this.includeSchemaChanges = tags;
            return this;
        }

        /** Under {@code evolve} or {@code try-evolve}: the kinds of column change the lake does not follow. */
        public Builder excludeSchemaChanges(String tags) {
            this.excludeSchemaChanges = tags;
            return this;
        }

        public Builder bootstrapServers(String servers) {
            this.bootstrapServers = servers;
            return this;
        }

        public Builder topics(String... names) {
            topics.addAll(List.of(names));
            return this;
        }

        public Builder topicPattern(String regex) {
            this.topicPattern = regex;
            return this;
        }

        public Builder groupId(String id) {
            this.groupId = id;
            return this;
        }

        /** earliest-offset, latest-offset, group-offsets, timestamp or specific-offsets. */
        public Builder startupMode(String mode) {
            this.startupMode = Objects.requireNonNull(mode).toLowerCase(Locale.ROOT);
            return this;
        }

        public Builder startupTimestamp(long epochMillis) {
            this.startupTimestamp = epochMillis;
            return this;
        }

        public Builder startupSpecificOffsets(String offsets) {
            this.startupOffsets = offsets;
            return this;
        }

        /** unbounded, or latest-offset, group-offsets, timestamp, specific-offsets for a bounded read. */
        public Builder boundedMode(String mode) {
            this.boundedMode = Objects.requireNonNull(mode).toLowerCase(Locale.ROOT);
            return this;
        }

        public Builder boundedTimestamp(long epochMillis) {
            this.boundedTimestamp = epochMillis;
            return this;
        }

        public Builder boundedSpecificOffsets(String offsets) {
            this.boundedOffsets = offsets;
            return this;
        }

        /** A Kafka client property, e.g. {@code security.protocol}. */
        public Builder kafkaProperty(String key, String value) {
            kafkaProperties.setProperty(key, value);
            return this;
        }

        public Builder registryUrl(String url) {
            this.registryUrl = url;
            return this;
        }

        public Builder registryBasicAuth(String userInfo) {
            this.basicAuthUserInfo = userInfo;
            return this;
        }

        public Builder registryTrustStore(String location, @Nullable String password) {
            this.truststoreLocation = location;
            this.truststorePassword = password;
            return this;
        }

        public Builder registryKeyStore(String location, @Nullable String password) {
            this.keystoreLocation = location;
            this.keystorePassword = password;
            return this;
        }

        public Builder registryMaxRetries(int retries) {
            this.registryMaxRetries = retries;
            return this;
        }

        public Builder registryTimeout(Duration timeout) {
            this.registryTimeout = timeout;
            return this;
        }

        public Builder tableId(String topicPattern, String replacement) {
            this.tableIdPattern = topicPattern;
            this.tableIdReplacement = replacement;
            return this;
        }

        /** fail (default) or dead-letter. */
        public Builder badRecordAction(String action) {
            this.badRecordAction = Objects.requireNonNull(action).toLowerCase(Locale.ROOT);
            return this;
        }

        /** Sets bad records aside in this topic (and the bad-record action to dead-letter). */
        public Builder deadLetterTopic(String topic) {
            this.deadLetterTopic = topic;
            this.badRecordAction = "dead-letter";
            return this;
        }

        /**
         * @throws InletValidationException naming each missing or invalid option and its fix
         */
        public DebeziumKafkaSource build() {
            List<String> problems = new ArrayList<>();
            if (bootstrapServers == null || bootstrapServers.trim().isEmpty()) {
                problems.add("Set 'properties.bootstrap.servers'.");
            }
            if (topics.isEmpty() == (topicPattern == null)) {
                problems.add("Set exactly one of 'topic' and 'topic-pattern'.");
            }
            if (topicPattern != null) {
                checkRegex(problems, "topic-pattern", topicPattern);
            }
            checkRegex(problems, "table-id.pattern", tableIdPattern);
            try {
                schemaChangePolicy =
                        SchemaChangePolicy.of(schemaChangeBehavior, includeSchemaChanges, excludeSchemaChanges);
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
            if (excludeColumns != null) {
                checkRegex(problems, "exclude-columns", excludeColumns);
            }
            if (registryUrl == null || registryUrl.trim().isEmpty()) {
                problems.add("Set 'debezium-avro-confluent.url' to the schema registry, e.g. http://registry:8081.");
            }
            Set<String> startModes =
                    Set.of("earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets");
            if (!startModes.contains(startupMode)) {
                problems.add("'scan.startup.mode' = '" + startupMode + "' is unknown; use one of "
                        + new TreeSet<>(startModes) + ".");
            }
            if ("timestamp".equals(startupMode) && startupTimestamp == null) {
                problems.add("'scan.startup.mode' = 'timestamp' needs 'scan.startup.timestamp-millis'.");
            }
            if ("specific-offsets".equals(startupMode)) {
                checkOffsets(problems, "scan.startup.specific-offsets", startupOffsets);
            }
            if (!"unbounded".equals(boundedMode) && !startModes.contains(boundedMode)
                    || "earliest-offset".equals(boundedMode)) {
                problems.add("'scan.bounded.mode' = '" + boundedMode
                        + "' is unknown; use unbounded, latest-offset, group-offsets, timestamp or specific-offsets.");
            }
            if ("timestamp".equals(boundedMode) && boundedTimestamp == null) {
                problems.add("'scan.bounded.mode' = 'timestamp' needs 'scan.bounded.timestamp-millis'.");
            }
            if ("specific-offsets".equals(boundedMode)) {
                checkOffsets(problems, "scan.bounded.specific-offsets", boundedOffsets);
            }
            if ("group-offsets".equals(startupMode) && groupId == null) {
                problems.add("'scan.startup.mode' = 'group-offsets' needs 'properties.group.id'; or choose"
                        + " earliest-offset.");
            }
            if (!Set.of("fail", "dead-letter").contains(badRecordAction)) {
                problems.add("'bad-record.action' = '" + badRecordAction + "' is unknown; use fail or dead-letter.");
            }
            if ("dead-letter".equals(badRecordAction) && deadLetterTopic == null) {
                problems.add("'bad-record.action' = 'dead-letter' needs 'dead-letter.topic'.");
            }
            if (registryMaxRetries < 0) {
                problems.add("'debezium-avro-confluent.max-retries' must not be negative.");
            }
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems);
            }
            RegistrySettings registry = new RegistrySettings(
                    registryUrl,
                    basicAuthUserInfo,
                    truststoreLocation,
                    truststorePassword,
                    keystoreLocation,
                    keystorePassword,
                    registryMaxRetries,
                    registryTimeout.toMillis());
            return new DebeziumKafkaSource(this, registry);
        }

        private static void checkRegex(List<String> problems, String key, String regex) {
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                problems.add("'" + key + "' = '" + regex + "' is not a valid regular expression: " + e.getDescription()
                        + ".");
            }
        }

        private static void checkOffsets(List<String> problems, String key, @Nullable String offsets) {
            if (offsets == null
                    || !offsets.trim().matches("partition:\\d+,offset:\\d+(;partition:\\d+,offset:\\d+)*")) {
                problems.add("'" + key + "' = '" + offsets
                        + "' is not of the form 'partition:0,offset:42;partition:1,offset:300'.");
            }
        }
    }
}
