package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.source.mysql.MySqlCdcSource.StartupMode;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * Everything Flink CDC's {@code MySqlSource} is built from, in terms of no Flink CDC line: {@link
 * FlinkCdc} turns it into that line's source. Immutable; built by {@code MySqlCdcSource} once its
 * options are checked.
 */
@Internal
public final class CdcSourceSpec {

    public final String hostname;
    public final int port;
    public final String username;
    public final String password;
    /** Regular expressions, one per database. */
    public final List<String> databaseList;
    /** Regular expressions {@code database\.table}, one per table. */
    public final List<String> tableList;
    /** A server id or a range {@code 5400-5404}, as wide as the parallelism. */
    public final String serverId;

    public final String serverTimeZone;
    public final StartupMode startupMode;

    @Nullable
    public final String specificOffsetFile;

    @Nullable
    public final Long specificOffsetPos;

    @Nullable
    public final Long startupTimestampMillis;

    public final int splitSize;
    public final int fetchSize;
    public final Duration heartbeatInterval;
    public final Duration connectTimeout;
    public final int connectMaxRetries;
    public final int connectionPoolSize;
    public final boolean scanNewlyAddedTables;
    public final Properties jdbcProperties;
    public final Properties debeziumProperties;

    private CdcSourceSpec(Builder b) {
        this.hostname = Objects.requireNonNull(b.hostname, "hostname");
        this.port = b.port;
        this.username = Objects.requireNonNull(b.username, "username");
        this.password = Objects.requireNonNull(b.password, "password");
        this.databaseList = List.copyOf(b.databaseList);
        this.tableList = List.copyOf(b.tableList);
        this.serverId = Objects.requireNonNull(b.serverId, "serverId");
        this.serverTimeZone = Objects.requireNonNull(b.serverTimeZone, "serverTimeZone");
        this.startupMode = Objects.requireNonNull(b.startupMode, "startupMode");
        this.specificOffsetFile = b.specificOffsetFile;
        this.specificOffsetPos = b.specificOffsetPos;
        this.startupTimestampMillis = b.startupTimestampMillis;
        this.splitSize = b.splitSize;
        this.fetchSize = b.fetchSize;
        this.heartbeatInterval = Objects.requireNonNull(b.heartbeatInterval, "heartbeatInterval");
        this.connectTimeout = Objects.requireNonNull(b.connectTimeout, "connectTimeout");
        this.connectMaxRetries = b.connectMaxRetries;
        this.connectionPoolSize = b.connectionPoolSize;
        this.scanNewlyAddedTables = b.scanNewlyAddedTables;
        this.jdbcProperties = copy(b.jdbcProperties);
        this.debeziumProperties = copy(b.debeziumProperties);
    }

    private static Properties copy(Properties p) {
        Properties c = new Properties();
        c.putAll(p);
        return c;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "CdcSourceSpec{" + username + "@" + hostname + ":" + port + ", tables=" + tableList + ", server-id="
                + serverId + ", startup=" + startupMode.key() + "}";
    }

    /** Builds a {@link CdcSourceSpec}; every value is set by the caller, nothing is defaulted here. */
    public static final class Builder {
        private String hostname;
        private int port;
        private String username;
        private String password;
        private List<String> databaseList = List.of();
        private List<String> tableList = List.of();
        private String serverId;
        private String serverTimeZone;
        private StartupMode startupMode;
        private String specificOffsetFile;
        private Long specificOffsetPos;
        private Long startupTimestampMillis;
        private int splitSize;
        private int fetchSize;
        private Duration heartbeatInterval;
        private Duration connectTimeout;
        private int connectMaxRetries;
        private int connectionPoolSize;
        private boolean scanNewlyAddedTables;
        private Properties jdbcProperties = new Properties();
        private Properties debeziumProperties = new Properties();

        private Builder() {}

        public Builder hostname(String hostname) {
            this.hostname = hostname;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder username(String username) {
            this.username = username;
            return this;
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        public Builder databaseList(List<String> databaseList) {
            this.databaseList = databaseList;
            return this;
        }

        public Builder tableList(List<String> tableList) {
            this.tableList = tableList;
            return this;
        }

        public Builder serverId(String serverId) {
            this.serverId = serverId;
            return this;
        }

        public Builder serverTimeZone(String serverTimeZone) {
            this.serverTimeZone = serverTimeZone;
            return this;
        }

        /** The startup mode, and the file and position or the time it starts from where it needs one. */
        public Builder startup(
                StartupMode mode,
                @Nullable String specificOffsetFile,
                @Nullable Long specificOffsetPos,
                @Nullable Long startupTimestampMillis) {
            this.startupMode = mode;
            this.specificOffsetFile = specificOffsetFile;
            this.specificOffsetPos = specificOffsetPos;
            this.startupTimestampMillis = startupTimestampMillis;
            return this;
        }

        public Builder splitSize(int splitSize) {
            this.splitSize = splitSize;
            return this;
        }

        public Builder fetchSize(int fetchSize) {
            this.fetchSize = fetchSize;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder connectMaxRetries(int connectMaxRetries) {
            this.connectMaxRetries = connectMaxRetries;
            return this;
        }

        public Builder connectionPoolSize(int connectionPoolSize) {
            this.connectionPoolSize = connectionPoolSize;
            return this;
        }

        public Builder scanNewlyAddedTables(boolean scanNewlyAddedTables) {
            this.scanNewlyAddedTables = scanNewlyAddedTables;
            return this;
        }

        public Builder jdbcProperties(Properties jdbcProperties) {
            this.jdbcProperties = jdbcProperties;
            return this;
        }

        public Builder debeziumProperties(Properties debeziumProperties) {
            this.debeziumProperties = debeziumProperties;
            return this;
        }

        public CdcSourceSpec build() {
            return new CdcSourceSpec(this);
        }
    }
}
