package io.inlet.source.mysql;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.source.BadRecordAction;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.ChangeSourceFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

import java.util.Map;
import java.util.Set;

import static io.inlet.source.mysql.MySqlCdcOptions.*;

/** Creates a {@link MySqlCdcSource} from Flink CDC's {@code mysql-cdc} option keys. */
@PublicEvolving
public final class MySqlCdcSourceFactory implements ChangeSourceFactory {

    public static final String IDENTIFIER = "mysql-cdc";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(HOSTNAME, USERNAME, PASSWORD, DATABASE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                PORT,
                TABLE_NAME,
                EXCLUDE_COLUMNS,
                SERVER_TIME_ZONE,
                SERVER_ID,
                SCAN_STARTUP_MODE,
                SCAN_STARTUP_SPECIFIC_OFFSET_FILE,
                SCAN_STARTUP_SPECIFIC_OFFSET_POS,
                SCAN_STARTUP_TIMESTAMP_MILLIS,
                SCAN_INCREMENTAL_SNAPSHOT_CHUNK_SIZE,
                SCAN_SNAPSHOT_FETCH_SIZE,
                SCAN_PARALLELISM,
                HEARTBEAT_INTERVAL,
                CONNECT_TIMEOUT,
                CONNECT_MAX_RETRIES,
                CONNECTION_POOL_SIZE,
                TREAT_TINYINT1_AS_BOOLEAN,
                SCHEMA_CHANGE_BEHAVIOR,
                INCLUDE_SCHEMA_CHANGES,
                EXCLUDE_SCHEMA_CHANGES,
                TIME_PRECISION_MODE,
                BAD_RECORD_ACTION,
                DEAD_LETTER_PATH,
                SCAN_NEWLY_ADDED_TABLE_ENABLED,
                SSL_MODE,
                SSL_TRUSTSTORE,
                SSL_TRUSTSTORE_PASSWORD);
    }

    @Override
    public Set<String> passThroughPrefixes() {
        return Set.of(JDBC_PROPERTIES_PREFIX, DEBEZIUM_PROPERTIES_PREFIX);
    }

    @Override
    public ChangeSource createSource(Context context) {
        ReadableConfig o = context.options();
        MySqlCdcSource.Builder b = MySqlCdcSource.builder()
                .hostname(o.get(HOSTNAME))
                .port(o.get(PORT))
                .username(o.get(USERNAME))
                .password(o.get(PASSWORD))
                .databaseList(o.get(DATABASE_NAME))
                .tableList(o.get(TABLE_NAME))
                .startupMode(MySqlCdcSource.StartupMode.of(o.get(SCAN_STARTUP_MODE)))
                .chunkSize(o.get(SCAN_INCREMENTAL_SNAPSHOT_CHUNK_SIZE))
                .fetchSize(o.get(SCAN_SNAPSHOT_FETCH_SIZE))
                .heartbeatInterval(o.get(HEARTBEAT_INTERVAL))
                .connectTimeout(o.get(CONNECT_TIMEOUT))
                .connectMaxRetries(o.get(CONNECT_MAX_RETRIES))
                .connectionPoolSize(o.get(CONNECTION_POOL_SIZE))
                .treatTinyInt1AsBoolean(o.get(TREAT_TINYINT1_AS_BOOLEAN))
                .schemaChangeBehavior(SchemaChangeBehavior.of(o.get(SCHEMA_CHANGE_BEHAVIOR)))
                .timePrecisionMode(TimePrecisionMode.of(o.get(TIME_PRECISION_MODE)))
                .scanNewlyAddedTables(o.get(SCAN_NEWLY_ADDED_TABLE_ENABLED));
        o.getOptional(BAD_RECORD_ACTION).ifPresent(action -> b.badRecordAction(BadRecordAction.of(action)));
        o.getOptional(DEAD_LETTER_PATH).ifPresent(b::deadLetterPath);
        o.getOptional(SSL_MODE).ifPresent(mode -> b.sslMode(SslMode.of(mode)));
        o.getOptional(SSL_TRUSTSTORE)
                .ifPresent(store -> b.sslTrustStore(
                        store, o.getOptional(SSL_TRUSTSTORE_PASSWORD).orElse(null)));
        o.getOptional(EXCLUDE_COLUMNS).ifPresent(b::excludeColumns);
        o.getOptional(INCLUDE_SCHEMA_CHANGES).ifPresent(b::includeSchemaChanges);
        o.getOptional(EXCLUDE_SCHEMA_CHANGES).ifPresent(b::excludeSchemaChanges);
        o.getOptional(SERVER_TIME_ZONE).ifPresent(b::serverTimeZone);
        o.getOptional(SERVER_ID).ifPresent(b::serverId);
        o.getOptional(SCAN_PARALLELISM).ifPresent(b::parallelism);
        o.getOptional(SCAN_STARTUP_SPECIFIC_OFFSET_FILE).ifPresent(b::specificOffsetFile);
        o.getOptional(SCAN_STARTUP_SPECIFIC_OFFSET_POS).ifPresent(b::specificOffsetPos);
        o.getOptional(SCAN_STARTUP_TIMESTAMP_MILLIS).ifPresent(b::startupTimestampMillis);
        for (Map.Entry<String, String> e : context.rawOptions().entrySet()) {
            if (e.getKey().startsWith(JDBC_PROPERTIES_PREFIX)) {
                b.jdbcProperty(e.getKey().substring(JDBC_PROPERTIES_PREFIX.length()), e.getValue());
            } else if (e.getKey().startsWith(DEBEZIUM_PROPERTIES_PREFIX)) {
                b.debeziumProperty(e.getKey().substring(DEBEZIUM_PROPERTIES_PREFIX.length()), e.getValue());
            }
        }
        return b.build();
    }
}
