package io.inlet.source.iceberg;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * Options of the Iceberg changelog source, with the keys of Iceberg's own Flink read options.
 *
 * <pre>{@code
 * IcebergChangelogSource.builder()
 *         .catalogLoader(CatalogLoader.hadoop("lake", new Configuration(false), Map.of("warehouse", uri)))
 *         .table("shop.orders")
 *         .startingStrategy(StartingStrategy.INCREMENTAL_FROM_EARLIEST_SNAPSHOT)
 *         .build();
 * }</pre>
 */
@PublicEvolving
public final class IcebergSourceOptions {

    /** Where a read starts. */
    public enum StartingStrategy {
        /** All rows of the current snapshot as inserts, then the changes of every later snapshot. */
        TABLE_SCAN_THEN_INCREMENTAL,
        /** The changes of the current snapshot (included) and every later one, as Iceberg's option has it. */
        INCREMENTAL_FROM_LATEST_SNAPSHOT,
        /** The changes of every snapshot from the oldest one still in the table's history. */
        INCREMENTAL_FROM_EARLIEST_SNAPSHOT,
        /** The changes of {@code start-snapshot-id} (included) and every later snapshot. */
        INCREMENTAL_FROM_SNAPSHOT_ID,
        /** The changes of the first snapshot at or after {@code start-snapshot-timestamp}, and every later one. */
        INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP
    }

    /** Where the changelog read finds a removed row's values, its before-image. */
    public enum BeforeImages {
        /**
         * From the table's files: whole-row deletes are the before-images; for a key-only delete
         * (upsert mode) the older data files holding the key are read again. No state, any start.
         */
        FILES,
        /**
         * From keyed state: the pairing keeps each live key's latest row, so a key-only delete reads
         * only the delete file. State as large as the table (one row per key, in the job's state
         * backend); exact only when the read has seen every live row, so it needs {@code
         * TABLE_SCAN_THEN_INCREMENTAL} or {@code INCREMENTAL_FROM_EARLIEST_SNAPSHOT} from the table's
         * first snapshot, and a read cannot switch modes on restore. It assumes one live row per key,
         * and reads as keys the deletes by exactly the identifier fields that reach all of a key's rows.
         */
        STATE
    }

    /** How a streaming SQL read of a table with identifier fields reads it. */
    public enum StreamingReadMode {
        /** Inlet's changelog read: {@code +I}, {@code -U}/{@code +U}, {@code -D}, every snapshot. */
        CHANGELOG("changelog"),
        /** Iceberg's own streaming read: the rows of {@code append} snapshots only, the others skipped. */
        APPEND_ONLY("append-only");

        private final String value;

        StreamingReadMode(String value) {
            this.value = value;
        }

        /** The option's value; Flink matches it case-insensitively. */
        @Override
        public String toString() {
            return value;
        }
    }

    public static final ConfigOption<Boolean> STREAMING = ConfigOptions.key("streaming")
            .booleanType()
            .defaultValue(false)
            .withDescription("Iceberg's read option: read the table as an unbounded stream. Through the"
                    + " inlet-iceberg catalog a table with identifier fields is then read as a changelog (see"
                    + " streaming-read-mode).");

    public static final ConfigOption<StreamingReadMode> STREAMING_READ_MODE = ConfigOptions.key("streaming-read-mode")
            .enumType(StreamingReadMode.class)
            .defaultValue(StreamingReadMode.CHANGELOG)
            .withDescription("With streaming = true, through the inlet-iceberg catalog: 'changelog' (the default)"
                    + " reads a table with identifier fields as +I/-U/+U/-D with Inlet's source; 'append-only'"
                    + " uses Iceberg's own source, which skips every snapshot with deletes. Tables without"
                    + " identifier fields are always read by Iceberg's source.");

    public static final ConfigOption<StartingStrategy> STARTING_STRATEGY = ConfigOptions.key("starting-strategy")
            .enumType(StartingStrategy.class)
            .defaultValue(StartingStrategy.TABLE_SCAN_THEN_INCREMENTAL)
            .withDescription("Where the read starts: the current table then its changes (the default), or the"
                    + " changes from the latest snapshot, the earliest, a snapshot id or a timestamp.");

    public static final ConfigOption<BeforeImages> BEFORE_IMAGES = ConfigOptions.key("before-images")
            .enumType(BeforeImages.class)
            .defaultValue(BeforeImages.FILES)
            .withDescription("Where the changelog read finds the rows a snapshot removed: 'files' (the default)"
                    + " reads them from the table (for key-only deletes of upsert tables, the older files that hold"
                    + " the keys, again per snapshot); 'state' keeps each key's latest row in keyed state (as large"
                    + " as the table) and reads only the delete files, several times faster on upsert tables. 'state'"
                    + " needs starting-strategy TABLE_SCAN_THEN_INCREMENTAL or INCREMENTAL_FROM_EARLIEST_SNAPSHOT, and"
                    + " a restored read keeps the mode it started with.");

    public static final ConfigOption<Long> START_SNAPSHOT_ID = ConfigOptions.key("start-snapshot-id")
            .longType()
            .noDefaultValue()
            .withDescription("The first snapshot whose changes are read, with INCREMENTAL_FROM_SNAPSHOT_ID.");

    public static final ConfigOption<Long> START_SNAPSHOT_TIMESTAMP = ConfigOptions.key("start-snapshot-timestamp")
            .longType()
            .noDefaultValue()
            .withDescription("Epoch milliseconds: the changes of the first snapshot committed at or after it, with"
                    + " INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP.");

    public static final ConfigOption<Duration> MONITOR_INTERVAL = ConfigOptions.key("monitor-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often the table is checked for new snapshots.");

    /**
     * The tables of the {@code iceberg} ChangeSource, with the keys of Iceberg's Flink connector; the
     * catalog keys ({@code catalog-type}, {@code warehouse}, {@code uri}, {@code catalog.*}, {@code
     * hadoop.*}) are the {@code iceberg} sink's.
     */
    public static final ConfigOption<String> CATALOG_TABLE = ConfigOptions.key("catalog-table")
            .stringType()
            .noDefaultValue()
            .withDescription("The tables the iceberg ChangeSource reads: a ';'-separated list of table names in"
                    + " 'catalog-database', or of namespace.table.");

    public static final ConfigOption<String> CATALOG_DATABASE = ConfigOptions.key("catalog-database")
            .stringType()
            .defaultValue("default")
            .withDescription("The namespace of the names in 'catalog-table' that have none.");

    private IcebergSourceOptions() {}
}
