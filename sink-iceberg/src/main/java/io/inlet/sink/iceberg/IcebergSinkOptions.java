package io.inlet.sink.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.iceberg.CatalogOptions;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Options of the {@code iceberg} sink. Catalog keys are those of Iceberg's Flink catalog ({@code
 * catalog-type}, {@code catalog-impl}, {@code warehouse}, {@code uri}); write keys those of Iceberg's
 * Flink write options ({@code write-parallelism}, {@code distribution-mode}).
 */
@PublicEvolving
public final class IcebergSinkOptions {

    private IcebergSinkOptions() {}

    /** {@link CatalogOptions#CATALOG_NAME}. */
    public static final ConfigOption<String> CATALOG_NAME = CatalogOptions.CATALOG_NAME;

    /** {@link CatalogOptions#CATALOG_TYPE}. */
    public static final ConfigOption<String> CATALOG_TYPE = CatalogOptions.CATALOG_TYPE;

    /** {@link CatalogOptions#CATALOG_IMPL}. */
    public static final ConfigOption<String> CATALOG_IMPL = CatalogOptions.CATALOG_IMPL;

    /** {@link CatalogOptions#WAREHOUSE}. */
    public static final ConfigOption<String> WAREHOUSE = CatalogOptions.WAREHOUSE;

    /** {@link CatalogOptions#URI}. */
    public static final ConfigOption<String> URI = CatalogOptions.URI;

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key("default-database")
            .stringType()
            .defaultValue("default")
            .withDescription("Namespace of tables whose id has no database.");

    public static final ConfigOption<String> WRITE_MODE = ConfigOptions.key("write-mode")
            .stringType()
            .defaultValue("auto")
            .withDescription(
                    "upsert: every +I/+U deletes the key first (equality delete), so replays and re-snapshots are"
                            + " idempotent; changelog: -U/-D delete, +I/+U insert, no delete per insert (cheaper, but a"
                            + " row inserted twice stays twice); auto: upsert for a source that may" + " deliver a"
                            + " change twice,"
                            + " else changelog with the rows of a snapshot upserted when the table already"
                            + " holds rows. All"
                            + " three are exactly-once across failures and restores.");

    public static final ConfigOption<Integer> WRITE_PARALLELISM = ConfigOptions.key("write-parallelism")
            .intType()
            .noDefaultValue()
            .withDescription("Parallelism of the writers of each table. Default: the job's.");

    public static final ConfigOption<Integer> WRITE_MAX_OPEN_WRITERS = ConfigOptions.key("write-max-open-writers")
            .intType()
            .defaultValue(1000)
            .withDescription("Open table writers per write subtask, each with its files. Beyond it the least recently"
                    + " used writer closes its files before the checkpoint; they are committed with the checkpoint as"
                    + " their own snapshot, before the files of the same table written after them.");

    public static final ConfigOption<MemorySize> WRITE_MAX_BUFFERED_BYTES = ConfigOptions.key(
                    "write-max-buffered-bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("256mb"))
            .withDescription("Estimated bytes the open writers of one write subtask hold: per open writer its"
                    + " files' buffers (a Parquet file holds a buffer of its page size, 1 MB by default, from the"
                    + " start; delete files get 64 KB pages unless the table sets"
                    + " write.delete.parquet.page-size-bytes),"
                    + " and per row its values and the key the writer keeps to delete it by position. Beyond it the"
                    + " least recently used writers close their files early, as with write-max-open-writers. Count"
                    + " it, times the write subtasks per task manager, against the task manager's heap.");

    public static final ConfigOption<String> DISTRIBUTION_MODE = ConfigOptions.key("distribution-mode")
            .stringType()
            .defaultValue("none")
            .withDescription("none (rows keyed by primary key) or hash (by partition, for fewer files per partition).");

    public static final ConfigOption<Boolean> RECONCILE_SNAPSHOTS = ConfigOptions.key("reconcile-snapshots")
            .booleanType()
            .defaultValue(true)
            .withDescription(
                    "When the source takes a snapshot from scratch over tables that already hold rows (a job started"
                            + " without state), remove the rows the snapshot no longer finds once it is"
                            + " committed, so the"
                            + " tables end equal to the source. Turn it off when other jobs also write" + " these"
                            + " tables: their"
                            + " rows would be removed too.");

    /** {@link CatalogOptions#CATALOG_PROPERTIES_PREFIX}. */
    public static final String CATALOG_PROPERTIES_PREFIX = CatalogOptions.CATALOG_PROPERTIES_PREFIX;

    /** {@link CatalogOptions#HADOOP_PROPERTIES_PREFIX}. */
    public static final String HADOOP_PROPERTIES_PREFIX = CatalogOptions.HADOOP_PROPERTIES_PREFIX;

    /** Prefix of table properties for tables the sink creates, e.g. 'table.write.target-file-size-bytes'. */
    public static final String TABLE_PROPERTIES_PREFIX = "table.";

    /** Prefix of partition specs per table: 'partition-spec.shop.orders' = 'bucket(id, 16)'. */
    public static final String PARTITION_SPEC_PREFIX = "partition-spec.";
}
