package io.inlet.source.mysql;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.source.SchemaChangePolicy;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * Options of the {@code mysql-cdc} source. The keys are those of Flink CDC's {@code mysql-cdc} SQL
 * connector, so a {@code WITH (...)} clause users already have carries over; Inlet adds {@code
 * exclude-columns}, {@code treat-tinyint1-as-boolean.enabled} and {@code scan.parallelism}.
 */
@PublicEvolving
public final class MySqlCdcOptions {

    private MySqlCdcOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConfigOptions.key("hostname")
            .stringType()
            .noDefaultValue()
            .withDescription("IP address or host name of the MySQL server.");

    public static final ConfigOption<Integer> PORT =
            ConfigOptions.key("port").intType().defaultValue(3306).withDescription("Port of the MySQL server.");

    public static final ConfigOption<String> USERNAME = ConfigOptions.key("username")
            .stringType()
            .noDefaultValue()
            .withDescription("User with SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE and REPLICATION"
                    + " CLIENT (BINLOG MONITOR on MariaDB).");

    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("password")
            .stringType()
            .noDefaultValue()
            .withDescription("Password of the user; never logged or shown.");

    public static final ConfigOption<String> DATABASE_NAME = ConfigOptions.key("database-name")
            .stringType()
            .noDefaultValue()
            .withDescription("Regular expression of the databases to capture; 'shop|crm' for a list.");

    public static final ConfigOption<String> TABLE_NAME = ConfigOptions.key("table-name")
            .stringType()
            .defaultValue(".*")
            .withDescription("Regular expression of the tables (their name, without database) to capture;"
                    + " 'orders|customers' for a list.");

    public static final ConfigOption<String> EXCLUDE_COLUMNS = ConfigOptions.key("exclude-columns")
            .stringType()
            .noDefaultValue()
            .withDescription("Regular expression over 'database.table.column' of columns to leave out, for"
                    + " example columns of a type Inlet cannot map.");

    public static final ConfigOption<String> SERVER_TIME_ZONE = ConfigOptions.key("server-time-zone")
            .stringType()
            .noDefaultValue()
            .withDescription("Session time zone of the server, e.g. 'UTC' or 'Europe/Berlin'; it converts"
                    + " TIMESTAMP columns. Default: the server's own, read at start. A value whose"
                    + " offset differs from the server's is refused.");

    public static final ConfigOption<String> SERVER_ID = ConfigOptions.key("server-id")
            .stringType()
            .noDefaultValue()
            .withDescription("A numeric id or a range like '5400-5408' for the replication clients; the range"
                    + " must be at least as wide as the source parallelism and unique among the"
                    + " server's replicas. Default: a random range of the needed width in 5400-6400.");

    public static final ConfigOption<String> SCAN_STARTUP_MODE = ConfigOptions.key("scan.startup.mode")
            .stringType()
            .defaultValue("initial")
            .withDescription(
                    "initial (snapshot, then binlog), latest-offset, earliest-offset, timestamp or specific-offset.");

    public static final ConfigOption<String> SCAN_STARTUP_SPECIFIC_OFFSET_FILE = ConfigOptions.key(
                    "scan.startup.specific-offset.file")
            .stringType()
            .noDefaultValue()
            .withDescription("Binlog file for 'specific-offset'.");

    public static final ConfigOption<Long> SCAN_STARTUP_SPECIFIC_OFFSET_POS = ConfigOptions.key(
                    "scan.startup.specific-offset.pos")
            .longType()
            .noDefaultValue()
            .withDescription("Binlog position for 'specific-offset'.");

    public static final ConfigOption<Long> SCAN_STARTUP_TIMESTAMP_MILLIS = ConfigOptions.key(
                    "scan.startup.timestamp-millis")
            .longType()
            .noDefaultValue()
            .withDescription("Epoch milliseconds for 'timestamp'.");

    public static final ConfigOption<Integer> SCAN_INCREMENTAL_SNAPSHOT_CHUNK_SIZE = ConfigOptions.key(
                    "scan.incremental.snapshot.chunk.size")
            .intType()
            .defaultValue(65536)
            .withDescription("Rows per snapshot chunk. Each chunk ends with a round of split bookkeeping (a"
                    + " watermark query, a split handover, the reader's queue draining), which at the Flink SQL"
                    + " connector's 8096 costs more than reading the rows; 65536 reads a 1M-row" + " table"
                    + " about 1.5x"
                    + " faster (see the README's benchmarks). A reader holds one chunk's rows in" + " memory at a time"
                    + " (roughly 30 MB at 65536 rows of ~200 bytes): lower it for very wide rows or small task"
                    + " managers. Chunk size does not change what is delivered: a chunk is re-read"
                    + " whole after a failure.");

    public static final ConfigOption<Integer> SCAN_SNAPSHOT_FETCH_SIZE = ConfigOptions.key("scan.snapshot.fetch.size")
            .intType()
            .defaultValue(1024)
            .withDescription("Rows fetched per round trip while snapshotting.");

    public static final ConfigOption<Integer> SCAN_PARALLELISM = ConfigOptions.key("scan.parallelism")
            .intType()
            .noDefaultValue()
            .withDescription("Parallelism of the source (snapshot chunks are read in parallel; the binlog by"
                    + " one reader). Default: the job's.");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOptions.key("heartbeat.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("Heartbeat interval, which keeps the binlog offset moving on idle tables.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("connect.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("How long to wait for a connection.");

    public static final ConfigOption<Integer> CONNECT_MAX_RETRIES = ConfigOptions.key("connect.max-retries")
            .intType()
            .defaultValue(3)
            .withDescription("Retries for a connection.");

    public static final ConfigOption<Integer> CONNECTION_POOL_SIZE = ConfigOptions.key("connection.pool.size")
            .intType()
            .defaultValue(20)
            .withDescription("Connection pool size.");

    public static final ConfigOption<Boolean> TREAT_TINYINT1_AS_BOOLEAN = ConfigOptions.key(
                    "treat-tinyint1-as-boolean.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("Map TINYINT(1) (and BOOLEAN) to BOOLEAN. A value other than 0 or 1 then fails"
                    + " the job; turn this off to map them to TINYINT.");

    public static final ConfigOption<String> SCHEMA_CHANGE_BEHAVIOR = ConfigOptions.key("schema-change.behavior")
            .stringType()
            .defaultValue("fail")
            .withDescription("What a schema change of a captured table in the binlog (a DDL: column added, dropped,"
                    + " renamed or retyped) does: 'fail' stops the job once, before any row of the new"
                    + " shape is written,"
                    + " naming table, column and change; 'ignore-added-columns' leaves added nullable"
                    + " columns out (logged"
                    + " once, counted in numSchemaChangesIgnored) and stops on every other change; 'evolve'"
                    + " follows the change while the job runs: the table's new version goes downstream"
                    + " ahead of its rows and the Iceberg sink applies it to its table live (sinks"
                    + " that cannot follow yet stop the job); 'try-evolve' as 'evolve', but a sink that cannot"
                    + " apply a change goes on without it where that stays correct (Iceberg keeps a column whose"
                    + " type holds every new value); 'lenient' follows it only adding:"
                    + " dropped columns stay (nullable, no longer filled), a renamed column is a new one.");

    public static final ConfigOption<String> INCLUDE_SCHEMA_CHANGES = ConfigOptions.key(
                    SchemaChangePolicy.INCLUDE_OPTION)
            .stringType()
            .noDefaultValue()
            .withDescription("Under 'evolve' or 'try-evolve': the kinds of column change the lake follows,"
                    + " comma-separated: add.column, drop.column, rename.column, alter.column.type, or column for"
                    + " all (the default).");

    public static final ConfigOption<String> EXCLUDE_SCHEMA_CHANGES = ConfigOptions.key(
                    SchemaChangePolicy.EXCLUDE_OPTION)
            .stringType()
            .noDefaultValue()
            .withDescription("Under 'evolve' or 'try-evolve': the kinds of column change the lake does not follow."
                    + " An added column is then left out; a dropped or renamed column stays in the lake with its"
                    + " values (NULL in rows changed after). alter.column.type cannot be left out.");

    public static final ConfigOption<String> TIME_PRECISION_MODE = ConfigOptions.key("time.precision.mode")
            .stringType()
            .defaultValue("time")
            .withDescription("How TIME columns are typed: 'time' (Flink TIME; a value outside one day or with"
                    + " microseconds is a bad record), 'microseconds' (BIGINT, signed microseconds:"
                    + " every value, exact) or"
                    + " 'string' (MySQL's text form, e.g. '-838:59:59.999999').");

    public static final ConfigOption<String> BAD_RECORD_ACTION = ConfigOptions.key("bad-record.action")
            .stringType()
            .defaultValue("fail")
            .withDescription("What a row whose value cannot be converted does: 'fail' stops the job once, naming"
                    + " table, position, column and value (no restart loop); 'dead-letter' writes it as a JSON line to"
                    + " 'dead-letter.path' and goes on. Counted in numBadRecords.");

    public static final ConfigOption<String> DEAD_LETTER_PATH = ConfigOptions.key("dead-letter.path")
            .stringType()
            .noDefaultValue()
            .withDescription("The directory (any Flink file system: file://, s3://, hdfs://) that receives bad rows as"
                    + " JSON lines (table, kind, position, reason, the raw row images), exactly once:"
                    + " a file appears when"
                    + " the checkpoint that wrote it completes.");

    public static final ConfigOption<Boolean> SCAN_NEWLY_ADDED_TABLE_ENABLED = ConfigOptions.key(
                    "scan.newly-added-table.enabled")
            .booleanType()
            .defaultValue(false)
            .withDescription("When a job restored from a savepoint captures tables its savepoint does not know (the"
                    + " table pattern now matches more), snapshot them, then read their changes. Without it they get"
                    + " only changes from the restore on. Needs 'scan.startup.mode' = 'initial'.");

    public static final ConfigOption<String> SSL_MODE = ConfigOptions.key("ssl.mode")
            .stringType()
            .defaultValue("preferred")
            .withDescription("TLS for every connection to the server (preflight, schema reads, snapshot chunks, the"
                    + " binlog client): disabled, preferred (TLS when offered, unverified), required (TLS or no"
                    + " connection), verify-ca (the certificate checked against 'ssl.truststore') or"
                    + " verify-identity (and"
                    + " the host name). With required and above the password never travels unencrypted.");

    public static final ConfigOption<String> SSL_TRUSTSTORE = ConfigOptions.key("ssl.truststore")
            .stringType()
            .noDefaultValue()
            .withDescription("A trust store file (PKCS12 or JKS) with the CA that signed the server's certificate, for"
                    + " verify-ca and verify-identity.");

    public static final ConfigOption<String> SSL_TRUSTSTORE_PASSWORD = ConfigOptions.key("ssl.truststore.password")
            .stringType()
            .noDefaultValue()
            .withDescription("The trust store's password; never logged.");

    /** Prefix of JDBC properties passed to the connections, e.g. 'jdbc.properties.useSSL'. */
    public static final String JDBC_PROPERTIES_PREFIX = "jdbc.properties.";

    /** Prefix of Debezium properties passed to the binlog reader, e.g. 'debezium.snapshot.locking.mode'. */
    public static final String DEBEZIUM_PROPERTIES_PREFIX = "debezium.";
}
