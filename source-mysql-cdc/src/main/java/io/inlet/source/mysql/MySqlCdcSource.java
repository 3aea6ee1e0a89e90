package io.inlet.source.mysql;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.source.BadRecordAction;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.SnapshotSignals;
import io.inlet.core.spi.SourceContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.source.mysql.internal.CdcSourceSpec;
import io.inlet.source.mysql.internal.ChangeEventDeserializer;
import io.inlet.source.mysql.internal.FlinkCdc;
import io.inlet.source.mysql.internal.MySqlInspector;
import io.inlet.source.mysql.internal.Regexes;
import io.inlet.source.mysql.internal.SideChannel;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * Captures MySQL (and MariaDB) tables from the binlog with Flink CDC's incremental-snapshot {@code
 * MySqlSource}: a snapshot of each table read in parallel chunks without global locks, then the
 * binlog, exactly once. Many tables in one job.
 *
 * <p>Before the job starts, {@link #discoverTables()} checks the server (reachable with the
 * credentials, binlog on with ROW format and FULL row images, replication privileges, time zone)
 * and reads each table's schema into a {@link TableDescriptor} with faithfully mapped types (see
 * {@link io.inlet.source.mysql.internal.MySqlTypes}). The password is never logged or shown.
 *
 * <pre>{@code
 * MySqlCdcSource source = MySqlCdcSource.builder()
 *     .hostname("db.internal").port(3306)
 *     .username("cdc").password(System.getenv("CDC_PASSWORD"))
 *     .databaseList("shop")
 *     .tableList("orders|order_items|customers")
 *     .startupMode(MySqlCdcSource.StartupMode.INITIAL)
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class MySqlCdcSource implements ChangeSource {

    private static final Logger LOG = LoggerFactory.getLogger(MySqlCdcSource.class);

    /** Where the source starts reading. */
    @PublicEvolving
    public enum StartupMode {
        /** A snapshot of the tables, then the binlog from where the snapshot ended. */
        INITIAL("initial"),
        /** The binlog from its current end: only changes made from now on. */
        LATEST_OFFSET("latest-offset"),
        /** The binlog from its oldest file still on the server. */
        EARLIEST_OFFSET("earliest-offset"),
        /** The binlog from the first event at or after a point in time. */
        TIMESTAMP("timestamp"),
        /** The binlog from a given file and position. */
        SPECIFIC_OFFSET("specific-offset");

        private final String key;

        StartupMode(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        static StartupMode of(String key) {
            for (StartupMode m : values()) {
                if (m.key.equalsIgnoreCase(key)) {
                    return m;
                }
            }
            throw new InletValidationException("'scan.startup.mode' = '" + key + "' is unknown; use one of "
                    + java.util.Arrays.stream(values()).map(StartupMode::key).collect(Collectors.joining(", ")) + ".");
        }
    }

    private final String hostname;
    private final int port;
    private final String username;
    private final String password;
    private final String databases;
    private final String tables;

    @Nullable
    private final String excludeColumns;

    @Nullable
    private final String serverTimeZone;

    @Nullable
    private final String serverId;

    private final StartupMode startupMode;

    @Nullable
    private final String specificOffsetFile;

    @Nullable
    private final Long specificOffsetPos;

    @Nullable
    private final Long startupTimestampMillis;

    private final int chunkSize;
    private final int fetchSize;

    @Nullable
    private final Integer parallelism;

    private final Duration heartbeatInterval;
    private final Duration connectTimeout;
    private final int connectMaxRetries;
    private final int connectionPoolSize;
    private final boolean tinyInt1IsBoolean;
    private final Properties jdbcProperties;
    private final Properties debeziumProperties;
    private final SchemaChangePolicy schemaChangePolicy;
    private final TimePrecisionMode timePrecisionMode;
    private final BadRecordAction badRecordAction;

    @Nullable
    private final String deadLetterPath;

    private final boolean scanNewlyAddedTables;
    private final SslMode sslMode;

    @Nullable
    private final String sslTrustStore;

    @Nullable
    private final String sslTrustStorePassword;

    private transient MySqlInspector.Result inspected;

    private MySqlCdcSource(Builder b) {
        this.hostname = b.hostname;
        this.port = b.port;
        this.username = b.username;
        this.password = b.password;
        this.databases = b.databases;
        this.tables = b.tables;
        this.excludeColumns = b.excludeColumns;
        this.serverTimeZone = b.serverTimeZone;
        this.serverId = b.serverId;
        this.startupMode = b.startupMode;
        this.specificOffsetFile = b.specificOffsetFile;
        this.specificOffsetPos = b.specificOffsetPos;
        this.startupTimestampMillis = b.startupTimestampMillis;
        this.chunkSize = b.chunkSize;
        this.fetchSize = b.fetchSize;
        this.parallelism = b.parallelism;
        this.heartbeatInterval = b.heartbeatInterval;
        this.connectTimeout = b.connectTimeout;
        this.connectMaxRetries = b.connectMaxRetries;
        this.connectionPoolSize = b.connectionPoolSize;
        this.tinyInt1IsBoolean = b.tinyInt1IsBoolean;
        this.jdbcProperties = b.jdbcProperties;
        this.debeziumProperties = b.debeziumProperties;
        this.schemaChangePolicy = b.schemaChangePolicy;
        this.timePrecisionMode = b.timePrecisionMode;
        this.badRecordAction = b.badRecordAction;
        this.deadLetterPath = b.deadLetterPath;
        this.scanNewlyAddedTables = b.scanNewlyAddedTables;
        this.sslMode = b.sslMode;
        this.sslTrustStore = b.sslTrustStore;
        this.sslTrustStorePassword = b.sslTrustStorePassword;
    }

    /**
     * The JDBC properties of every JDBC connection (preflight, schema reads, the snapshot's pool and
     * readers): the user's, and TLS as 'ssl.mode' says. Connector/J's sslMode wins over useSSL.
     */
    private Properties jdbcConnectionProperties() {
        Properties p = new Properties();
        p.putAll(jdbcProperties);
        p.setProperty("sslMode", sslMode.jdbcValue());
        // Connector/J 8.0 offers MariaDB (which it sees as MySQL 5.5.5) only TLS 1.0 and 1.1, which JDK 11+
        // disable: the handshake would fail with "No appropriate protocol".
        p.putIfAbsent("enabledTLSProtocols", "TLSv1.2,TLSv1.3");
        if (sslMode.encrypts()) {
            p.remove("allowPublicKeyRetrieval"); // not needed, and unsafe, where the connection is encrypted
        }
        if (sslTrustStore != null) {
            p.setProperty(
                    "trustCertificateKeyStoreUrl",
                    Path.of(sslTrustStore).toUri().toString());
            p.setProperty("trustCertificateKeyStoreType", storeType(sslTrustStore));
            if (sslTrustStorePassword != null) {
                p.setProperty("trustCertificateKeyStorePassword", sslTrustStorePassword);
            }
        }
        return p;
    }

    private static String storeType(String path) {
        String lower = path.toLowerCase(Locale.ROOT);
        return lower.endsWith(".jks") ? "JKS" : "PKCS12";
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "mysql-cdc";
    }

    @Override
    public List<TableDescriptor> discoverTables() {
        MySqlInspector inspector = new MySqlInspector(
                hostname,
                port,
                username,
                password,
                jdbcConnectionProperties(),
                (int) connectTimeout.toMillis(),
                sslMode);
        inspected = inspector.inspect(
                databases, tables, excludeColumns, tinyInt1IsBoolean, serverTimeZone, timePrecisionMode);
        if (sslMode == SslMode.VERIFY_IDENTITY) {
            LOG.warn(
                    "mysql-cdc at {}:{}: 'ssl.mode' = 'verify-identity' checks the server's name on"
                            + " the JDBC connections; the"
                            + " binlog client of Flink CDC (2.4 and 3.1 alike) checks it against 'localhost', so that"
                            + " connection verifies the"
                            + " certificate's CA only.",
                    hostname,
                    port);
        }
        LOG.info(
                "mysql-cdc at {}:{} captures {} table(s): {} (server time zone {})",
                hostname,
                port,
                inspected.tables.size(),
                inspected.tables.stream().map(t -> t.tableId().identifier()).collect(Collectors.joining(", ")),
                inspected.serverZone);
        return inspected.tables;
    }

    @Override
    public DataStream<ChangeEvent> createStream(StreamExecutionEnvironment env, SourceContext context) {
        if (inspected == null) {
            throw new IllegalStateException(
                    "createStream before discoverTables: the pipeline discovers the tables first.");
        }
        int p = parallelism != null ? parallelism : env.getParallelism();
        List<TableDescriptor> captured = context.tables();
        ChangeEventTypeInfo ownType = SideChannel.typeWith(captured);
        ChangeEventDeserializer.Settings settings = new ChangeEventDeserializer.Settings(
                excludeColumns,
                inspected.binlogFile,
                inspected.binlogPosition,
                schemaChangePolicy,
                badRecordAction,
                timePrecisionMode,
                inspected.timePrecisions,
                tinyInt1IsBoolean);
        CdcSourceSpec spec = CdcSourceSpec.builder()
                .hostname(hostname)
                .port(port)
                .username(username)
                .password(password)
                // Exactly the tables validated at build time, as literal patterns: a table
                // created later that matches the user's pattern is not captured silently.
                .databaseList(captured.stream()
                        .map(t -> Regexes.literal(t.tableId().database()))
                        .distinct()
                        .collect(Collectors.toList()))
                .tableList(captured.stream()
                        .map(t -> Regexes.literal(t.tableId().database()) + "\\."
                                + Regexes.literal(t.tableId().table()))
                        .collect(Collectors.toList()))
                .serverId(serverIdRange(p))
                .serverTimeZone(inspected.serverZone.getId())
                .startup(startupMode, specificOffsetFile, specificOffsetPos, startupTimestampMillis)
                .splitSize(chunkSize)
                .fetchSize(fetchSize)
                .heartbeatInterval(heartbeatInterval)
                .connectTimeout(connectTimeout)
                .connectMaxRetries(connectMaxRetries)
                .connectionPoolSize(connectionPoolSize)
                .scanNewlyAddedTables(scanNewlyAddedTables)
                .jdbcProperties(jdbcConnectionProperties())
                .debeziumProperties(debeziumProperties())
                .build();
        DataStreamSource<ChangeEvent> raw = env.fromSource(
                FlinkCdc.mySqlSource(
                        spec, new ChangeEventDeserializer(captured, ownType, settings), hostname + ":" + port),
                WatermarkStrategy.noWatermarks(),
                "MySQL CDC " + hostname + ":" + port,
                ownType);
        raw.setParallelism(p).uid(context.uid("reader"));
        OutputTag<String> deadLetters =
                badRecordAction == BadRecordAction.DEAD_LETTER ? SideChannel.deadLetterTag() : null;
        SingleOutputStreamOperator<ChangeEvent> events = raw.process(
                        new SideChannel.Splitter(deadLetters), context.typeInfo())
                .name("MySQL CDC: bad records and schema notices")
                .uid(context.uid("side-channel"))
                .setParallelism(p);
        if (deadLetters != null) {
            SideChannel.writeDeadLetters(
                    events.getSideOutput(deadLetters), deadLetterPath, context.uid("dead-letters"));
        }
        context.announceSnapshots(SnapshotSignals.of(
                events.getSideOutput(SideChannel.snapshotSignalTag()),
                SourcePosition.snapshot(inspected.binlogFile, inspected.binlogPosition)
                        .order()));
        return events;
    }

    private Properties debeziumProperties() {
        Properties props = new Properties();
        // Debezium's queue polling waits up to poll.interval.ms (500 ms) whenever a snapshot chunk
        // ends; 50 ms keeps the reader busy (see the benchmarks) and changes nothing else.
        props.setProperty("poll.interval.ms", "50");
        // A connection that goes quiet (a server gone without closing it) is noticed and reopened after
        // this long; Debezium's default is a minute, and its heartbeat (0.8 of it) keeps a live one busy.
        props.setProperty("connect.keep.alive.interval.ms", "10000");
        props.putAll(debeziumProperties);
        // The binlog client (and Debezium's own JDBC connection) encrypt as 'ssl.mode' says. The binlog client of
        // Flink CDC 2.4 and 3.1 (mysql-binlog-connector 0.27, Debezium 1.9) checks the certificate against the
        // name 'localhost', not the host it connects to, so with verify-identity it verifies the CA only (the JDBC
        // connections check the host's name too).
        props.setProperty(
                "database.ssl.mode",
                (sslMode == SslMode.VERIFY_IDENTITY ? SslMode.VERIFY_CA : sslMode).debeziumValue());
        if (sslTrustStore != null) {
            props.setProperty("database.ssl.truststore", sslTrustStore);
            if (sslTrustStorePassword != null) {
                props.setProperty("database.ssl.truststore.password", sslTrustStorePassword);
            }
        }
        return props;
    }

    private String serverIdRange(int parallelism) {
        if (serverId == null) {
            int start = 5400 + ThreadLocalRandom.current().nextInt(1000);
            return start + "-" + (start + parallelism - 1);
        }
        String[] parts = serverId.trim().split("-");
        try {
            long first = Long.parseLong(parts[0].trim());
            long last = parts.length > 1 ? Long.parseLong(parts[1].trim()) : first;
            if (last - first + 1 < parallelism) {
                throw new InletValidationException("'server-id' = '" + serverId + "' gives " + (last - first + 1)
                        + " id(s) for a source parallelism of "
                        + parallelism + ": every reader needs its own. Use a range like '" + first + "-"
                        + (first + parallelism - 1) + "'.");
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new InletValidationException(
                    "'server-id' = '" + serverId + "' is neither a number nor a range like '5400-5404'.");
        }
        return serverId.trim();
    }

    /**
     * Whether the binlog may hand a sink changes it already has: when the job starts at an earlier
     * binlog position (earliest-offset, timestamp, specific-offset) over tables that may hold their
     * effects. A snapshot ('initial') hands each row once, and so does 'latest-offset'.
     */
    @Override
    public boolean mayRepeatChanges() {
        return startupMode == StartupMode.EARLIEST_OFFSET
                || startupMode == StartupMode.TIMESTAMP
                || startupMode == StartupMode.SPECIFIC_OFFSET;
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

    /** Never shows the password. */
    @Override
    public String toString() {
        return "MySqlCdcSource{" + username + "@" + hostname + ":" + port + ", database-name=" + databases
                + ", table-name=" + tables + ", scan.startup.mode=" + startupMode.key() + "}";
    }

    /** Builds a {@link MySqlCdcSource}; {@link #build()} checks the options. */
    @PublicEvolving
    public static final class Builder {
        private String hostname;
        private int port = MySqlCdcOptions.PORT.defaultValue();
        private String username;
        private String password;
        private String databases;
        private String tables = MySqlCdcOptions.TABLE_NAME.defaultValue();

        @Nullable
        private String excludeColumns;

        @Nullable
        private String serverTimeZone;

        @Nullable
        private String serverId;

        private StartupMode startupMode = StartupMode.INITIAL;

        @Nullable
        private String specificOffsetFile;

        @Nullable
        private Long specificOffsetPos;

        @Nullable
        private Long startupTimestampMillis;

        private int chunkSize = MySqlCdcOptions.SCAN_INCREMENTAL_SNAPSHOT_CHUNK_SIZE.defaultValue();
        private int fetchSize = MySqlCdcOptions.SCAN_SNAPSHOT_FETCH_SIZE.defaultValue();

        @Nullable
        private Integer parallelism;

        private Duration heartbeatInterval = MySqlCdcOptions.HEARTBEAT_INTERVAL.defaultValue();
        private Duration connectTimeout = MySqlCdcOptions.CONNECT_TIMEOUT.defaultValue();
        private int connectMaxRetries = MySqlCdcOptions.CONNECT_MAX_RETRIES.defaultValue();
        private int connectionPoolSize = MySqlCdcOptions.CONNECTION_POOL_SIZE.defaultValue();
        private boolean tinyInt1IsBoolean = MySqlCdcOptions.TREAT_TINYINT1_AS_BOOLEAN.defaultValue();
        private final Properties jdbcProperties = new Properties();
        private final Properties debeziumProperties = new Properties();
        private SchemaChangeBehavior schemaChangeBehavior = SchemaChangeBehavior.FAIL;
        private String includeSchemaChanges;
        private String excludeSchemaChanges;
        private SchemaChangePolicy schemaChangePolicy;
        private TimePrecisionMode timePrecisionMode = TimePrecisionMode.TIME;
        private BadRecordAction badRecordAction = BadRecordAction.FAIL;
        private boolean badRecordActionSet;

        @Nullable
        private String deadLetterPath;

        private boolean scanNewlyAddedTables = MySqlCdcOptions.SCAN_NEWLY_ADDED_TABLE_ENABLED.defaultValue();
        private SslMode sslMode = SslMode.of(MySqlCdcOptions.SSL_MODE.defaultValue());
        private boolean sslModeSet;

        @Nullable
        private String sslTrustStore;

        @Nullable
        private String sslTrustStorePassword;

        private Builder() {}

        /** TLS for every connection to the server; see {@link SslMode}. */
        public Builder sslMode(SslMode mode) {
            this.sslMode = Objects.requireNonNull(mode);
            this.sslModeSet = true;
            return this;
        }

        /** The trust store (PKCS12 or JKS file) that holds the CA of the server's certificate, for verify modes. */
        public Builder sslTrustStore(String path, @Nullable String storePassword) {
            this.sslTrustStore = path;
            this.sslTrustStorePassword = storePassword;
            return this;
        }

        public Builder hostname(String value) {
            this.hostname = value;
            return this;
        }

        public Builder port(int value) {
            this.port = value;
            return this;
        }

        public Builder username(String value) {
            this.username = value;
            return this;
        }

        public Builder password(String value) {
            this.password = value;
            return this;
        }

        /** Databases as regular expressions (each matching whole names); several are alternatives. */
        public Builder databaseList(String... regexes) {
            this.databases = String.join("|", regexes);
            return this;
        }

        /** Tables (their names, without database) as regular expressions; default all. */
        public Builder tableList(String... regexes) {
            this.tables = String.join("|", regexes);
            return this;
        }

        /** Columns to leave out: a regular expression over {@code database.table.column}. */
        public Builder excludeColumns(String regex) {
            this.excludeColumns = regex;
            return this;
        }

        public Builder serverTimeZone(String zoneId) {
            this.serverTimeZone = zoneId;
            return this;
        }

        /** A server id or a range {@code "5400-5404"} at least as wide as the parallelism. */
        public Builder serverId(String idOrRange) {
            this.serverId = idOrRange;
            return this;
        }

        public Builder startupMode(StartupMode mode) {
            this.startupMode = Objects.requireNonNull(mode);
            return this;
        }

        /** Starts at a binlog file and position ({@link StartupMode#SPECIFIC_OFFSET}). */
        public Builder startupSpecificOffset(String file, long position) {
            this.startupMode = StartupMode.SPECIFIC_OFFSET;
            this.specificOffsetFile = file;
            this.specificOffsetPos = position;
            return this;
        }

        /** The binlog file for {@link StartupMode#SPECIFIC_OFFSET}. */
        public Builder specificOffsetFile(String file) {
            this.specificOffsetFile = file;
            return this;
        }

        /** The binlog position for {@link StartupMode#SPECIFIC_OFFSET}. */
        public Builder specificOffsetPos(long position) {
            this.specificOffsetPos = position;
            return this;
        }

        /** The epoch milliseconds for {@link StartupMode#TIMESTAMP}. */
        public Builder startupTimestampMillis(long epochMillis) {
            this.startupTimestampMillis = epochMillis;
            return this;
        }

        /** Starts at a point in time ({@link StartupMode#TIMESTAMP}). */
        public Builder startupTimestamp(long epochMillis) {
            this.startupMode = StartupMode.TIMESTAMP;
            this.startupTimestampMillis = epochMillis;
            return this;
        }

        public Builder chunkSize(int rows) {
            this.chunkSize = rows;
            return this;
        }

        public Builder fetchSize(int rows) {
            this.fetchSize = rows;
            return this;
        }

        public Builder parallelism(int value) {
            this.parallelism = value;
            return this;
        }

        public Builder heartbeatInterval(Duration value) {
            this.heartbeatInterval = value;
            return this;
        }

        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder connectMaxRetries(int value) {
            this.connectMaxRetries = value;
            return this;
        }

        public Builder connectionPoolSize(int value) {
            this.connectionPoolSize = value;
            return this;
        }

        public Builder treatTinyInt1AsBoolean(boolean value) {
            this.tinyInt1IsBoolean = value;
            return this;
        }

        /** What a schema change of a captured table does; see {@link SchemaChangeBehavior}. */
        public Builder schemaChangeBehavior(SchemaChangeBehavior behavior) {
            this.schemaChangeBehavior = Objects.requireNonNull(behavior);
            return this;
        }

        /**
         * Under {@code evolve} or {@code try-evolve}: the kinds of column change the lake follows,
         * comma-separated Flink CDC tags ({@code add.column}, {@code drop.column}, {@code rename.column},
         * {@code alter.column.type}, {@code column}); default all. See {@link SchemaChangePolicy}.
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

        /** How TIME columns are typed; see {@link TimePrecisionMode}. */
        public Builder timePrecisionMode(TimePrecisionMode mode) {
            this.timePrecisionMode = Objects.requireNonNull(mode);
            return this;
        }

        /** What a row that cannot be converted does; see {@link BadRecordAction}. */
        public Builder badRecordAction(BadRecordAction action) {
            this.badRecordAction = Objects.requireNonNull(action);
            this.badRecordActionSet = true;
            return this;
        }

        /**
         * Sets bad rows aside as JSON lines in this directory; the bad-record action becomes
         * dead-letter unless it was set explicitly.
         */
        public Builder deadLetterPath(String directory) {
            this.deadLetterPath = directory;
            if (!badRecordActionSet) {
                this.badRecordAction = BadRecordAction.DEAD_LETTER;
            }
            return this;
        }

        /**
         * Snapshot tables a restored job captures that its savepoint does not know ({@code
         * scan.newly-added-table.enabled}).
         */
        public Builder scanNewlyAddedTables(boolean enabled) {
            this.scanNewlyAddedTables = enabled;
            return this;
        }

        public Builder jdbcProperty(String key, String value) {
            jdbcProperties.setProperty(key, value);
            return this;
        }

        public Builder debeziumProperty(String key, String value) {
            debeziumProperties.setProperty(key, value);
            return this;
        }

        /**
         * @throws InletValidationException naming each missing or invalid option and its fix
         */
        public MySqlCdcSource build() {
            List<String> problems = new ArrayList<>();
            try {
                schemaChangePolicy =
                        SchemaChangePolicy.of(schemaChangeBehavior, includeSchemaChanges, excludeSchemaChanges);
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
            require(problems, hostname, MySqlCdcOptions.HOSTNAME.key());
            require(problems, username, MySqlCdcOptions.USERNAME.key());
            if (password == null) {
                problems.add("Set '" + MySqlCdcOptions.PASSWORD.key() + "' (use '' for a user without one).");
            }
            require(problems, databases, MySqlCdcOptions.DATABASE_NAME.key());
            if (port < 1 || port > 65535) {
                problems.add("'port' = " + port + " is no TCP port.");
            }
            if (startupMode == StartupMode.SPECIFIC_OFFSET
                    && (specificOffsetFile == null || specificOffsetPos == null)) {
                problems.add("'scan.startup.mode' = 'specific-offset' needs 'scan.startup.specific-offset.file' and"
                        + " 'scan.startup.specific-offset.pos'.");
            }
            if (startupMode == StartupMode.TIMESTAMP && startupTimestampMillis == null) {
                problems.add("'scan.startup.mode' = 'timestamp' needs 'scan.startup.timestamp-millis'.");
            }
            if (chunkSize < 1) {
                problems.add("'scan.incremental.snapshot.chunk.size' must be positive, was " + chunkSize + ".");
            }
            if (fetchSize < 1) {
                problems.add("'scan.snapshot.fetch.size' must be positive, was " + fetchSize + ".");
            }
            if (parallelism != null && parallelism < 1) {
                problems.add("'scan.parallelism' must be positive, was " + parallelism + ".");
            }
            if (badRecordAction == BadRecordAction.DEAD_LETTER
                    && (deadLetterPath == null || deadLetterPath.trim().isEmpty())) {
                problems.add(
                        "'bad-record.action' = 'dead-letter' needs 'dead-letter.path', the directory for the bad rows"
                                + " (e.g. file:///var/inlet/dead-letters or s3://bucket/dead-letters).");
            }
            if (scanNewlyAddedTables && startupMode != StartupMode.INITIAL) {
                problems.add(
                        "'scan.newly-added-table.enabled' needs 'scan.startup.mode' = 'initial' (a new table gets a"
                                + " snapshot first); it is '" + startupMode.key() + "'.");
            }
            if (sslMode.verifies() && sslTrustStore == null) {
                problems.add("'ssl.mode' = '" + sslMode.key() + "' checks the server's certificate"
                        + " and needs 'ssl.truststore', a PKCS12 or JKS file with the CA that signed it.");
            }
            if (sslTrustStore != null && !Files.isReadable(Path.of(sslTrustStore))) {
                problems.add("'ssl.truststore' = '" + sslTrustStore + "' is no readable file.");
            }
            // Flink CDC's documented jdbc.properties.useSSL carries over as the one setting it stands for.
            String useSsl = jdbcProperties.getProperty("useSSL");
            if (useSsl != null && !useSsl.trim().matches("(?i)true|yes|false|no")) {
                problems.add("'jdbc.properties.useSSL' = '" + useSsl
                        + "' is neither true nor false; set TLS with 'ssl.mode'.");
            } else if (useSsl != null) {
                SslMode implied = useSsl.trim().matches("(?i)true|yes") ? SslMode.REQUIRED : SslMode.DISABLED;
                if (sslModeSet && sslMode != implied) {
                    problems.add("'jdbc.properties.useSSL' = '" + useSsl + "' contradicts 'ssl.mode' = '"
                            + sslMode.key() + "'. Set TLS with 'ssl.mode' alone.");
                } else if (!sslModeSet) {
                    LOG.warn(
                            "'jdbc.properties.useSSL' = '{}' is taken as 'ssl.mode' = '{}' for every"
                                    + " connection, the binlog" + " client's included; set 'ssl.mode' instead.",
                            useSsl,
                            implied.key());
                    sslMode = implied;
                }
                jdbcProperties.remove("useSSL");
            }
            for (String key :
                    new String[] {"sslMode", "requireSSL", "verifyServerCertificate", "trustCertificateKeyStoreUrl"}) {
                if (jdbcProperties.containsKey(key)) {
                    problems.add("Set TLS with 'ssl.mode' (and 'ssl.truststore'), not 'jdbc.properties." + key
                            + "': one setting" + " covers every connection, the binlog client's included.");
                }
            }
            for (String key : new String[] {"database.ssl.mode", "database.ssl.truststore"}) {
                if (debeziumProperties.containsKey(key)) {
                    problems.add("Set TLS with 'ssl.mode' (and 'ssl.truststore'), not 'debezium." + key
                            + "': one setting" + " covers every connection, the JDBC ones included.");
                }
            }
            for (String key : new String[] {"database.password", "database.user", "database.hostname"}) {
                if (debeziumProperties.containsKey(key)) {
                    problems.add("Set the connection with the source's own options, not 'debezium." + key + "'.");
                }
            }
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems);
            }
            return new MySqlCdcSource(this);
        }

        private static void require(List<String> problems, @Nullable String value, String key) {
            if (value == null || value.trim().isEmpty()) {
                problems.add("Set '" + key + "'.");
            }
        }
    }
}
