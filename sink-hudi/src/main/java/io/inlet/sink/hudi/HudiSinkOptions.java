package io.inlet.sink.hudi;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.util.Set;

/**
 * Options of the {@code hudi} sink. The keys are those of Hudi's Flink SQL connector ({@code
 * table.type}, {@code precombine.field}, {@code index.type}, {@code write.tasks}, {@code
 * compaction.*}, {@code changelog.enabled}, {@code hive_sync.*}, {@code hoodie.*}); any of them
 * passes through to Hudi's writer unchanged.
 */
@PublicEvolving
public final class HudiSinkOptions {

    private HudiSinkOptions() {}

    public static final ConfigOption<String> PATH = ConfigOptions.key("path")
            .stringType()
            .noDefaultValue()
            .withDescription("The base path; each table is written to <path>/<database>/<table>, e.g."
                    + " file:///data/hudi or s3a://bucket/hudi.");

    public static final ConfigOption<String> TABLE_TYPE = ConfigOptions.key("table.type")
            .stringType()
            .defaultValue("MERGE_ON_READ")
            .withDescription("MERGE_ON_READ (changes in log files, compacted into base files) or COPY_ON_WRITE.");

    public static final ConfigOption<String> PRECOMBINE_FIELD = ConfigOptions.key("precombine.field")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "The column that orders two versions of a row (the larger wins, ties go to the later). Default: a"
                            + " column _source_position the sink adds (BIGINT NOT NULL): the change's" + " position"
                            + " in its source, so"
                            + " that versions land in source order whatever their timestamps (MySQL's" + " binlog"
                            + " file, position and"
                            + " row; a snapshot's rows just before the binlog position it started at; for"
                            + " Kafka the Debezium source"
                            + " block's position, else the record's offset).");

    public static final ConfigOption<Boolean> CHANGELOG_ENABLED = ConfigOptions.key("changelog.enabled")
            .booleanType()
            .defaultValue(false)
            .withDescription("Keep every change (+I, -U, +U, -D) in the log files for streaming readers,"
                    + " instead of the latest row only.");

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key("default-database")
            .stringType()
            .defaultValue("default")
            .withDescription("The path segment of tables whose id has no database.");

    public static final ConfigOption<Boolean> RECONCILE_SNAPSHOTS = ConfigOptions.key("reconcile-snapshots")
            .booleanType()
            .defaultValue(true)
            .withDescription(
                    "When the source takes a snapshot from scratch over tables that already hold rows (a job started"
                            + " without state), delete the rows the snapshot no longer finds, so the tables"
                            + " end equal to the"
                            + " source. Needs the sink's own precombine column and changelog.enabled=false."
                            + " Turn it off when"
                            + " other jobs also write these tables: their rows would be deleted too.");

    /** Prefix of partition fields per table: 'partition-fields.shop.orders' = 'region,day'. */
    public static final String PARTITION_FIELDS_PREFIX = "partition-fields.";

    /**
     * Prefix of Hadoop settings, Hudi's own convention: {@code 'hadoop.fs.s3a.endpoint'} is {@code
     * fs.s3a.endpoint} in the Hadoop configuration of every table's writer, reader and of the sink's own
     * look at the tables (e.g. {@code fs.s3a.path.style.access}, {@code fs.s3a.access.key}, {@code
     * fs.s3a.secret.key} for {@code s3a://} paths). Kept out of logs and messages.
     */
    public static final String HADOOP_PREFIX = "hadoop.";

    /** Prefixes of Hudi's own Flink options, passed through to every table's writer. */
    public static final Set<String> HUDI_PREFIXES = Set.of(
            HADOOP_PREFIX,
            "hoodie.",
            "index.",
            "write.",
            "compaction.",
            "clean.",
            "archive.",
            "hive_sync.",
            "metadata.",
            "clustering.",
            "payload.",
            "record.merger.");

    /** The precombine column the sink adds when none is named. */
    public static final String SOURCE_POSITION_COLUMN = "_source_position";

    /**
     * Hudi's soft-delete column, which the sink adds with its precombine column (unless the table
     * keeps a changelog): a record with {@code true} there is a delete that Hudi merges by its
     * ordering value. Always empty in rows readers see.
     */
    public static final String DELETED_COLUMN = "_hoodie_is_deleted";
}
