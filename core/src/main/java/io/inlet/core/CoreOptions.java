package io.inlet.core;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * Options of the core module: the pipeline and the built-in transforms. The transform keys follow
 * Flink CDC's pipeline definitions ({@code source-table}, {@code sink-table}, {@code projection},
 * {@code filter}), so users who know those know these.
 */
@PublicEvolving
public final class CoreOptions {

    private CoreOptions() {}

    // ---------------------------------------------------------------- pipeline

    public static final ConfigOption<String> PIPELINE_NAME = ConfigOptions.key("pipeline.name")
            .stringType()
            .defaultValue("inlet-pipeline")
            .withDescription("The Flink job name of the pipeline.");

    public static final ConfigOption<Duration> DEFAULT_CHECKPOINT_INTERVAL = ConfigOptions.key(
                    "pipeline.default-checkpoint-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("The checkpoint interval the pipeline sets when it creates the execution"
                    + " environment itself and checkpointing is off there. An environment"
                    + " passed to the builder is never changed silently.");

    public static final ConfigOption<String> UID = ConfigOptions.key("uid")
            .stringType()
            .noDefaultValue()
            .withDescription("The prefix of the operator uids of a source, transform or sink, by which a restored"
                    + " job finds their state. Default: derived from its name and what it is (for a"
                    + " sink: where it writes), never from its place in the pipeline, so adding or"
                    + " reordering sinks and transforms keeps every other's state.");

    // ---------------------------------------------------------------- transforms

    public static final ConfigOption<String> SOURCE_TABLE = ConfigOptions.key("source-table")
            .stringType()
            .defaultValue(".*")
            .withDescription("A Java regular expression matched against the whole 'database.table' id of"
                    + " each table; the transform applies to the tables it matches. Escape"
                    + " the dot: 'inventory\\.orders_.*'.");

    public static final ConfigOption<String> FILTER = ConfigOptions.key("filter")
            .stringType()
            .noDefaultValue()
            .withDescription("The condition rows must meet to pass, in SQL: comparisons (=, <>, !=, <, <=, >,"
                    + " >=) of a column with a literal, IS [NOT] NULL, [NOT] IN (...),"
                    + " [NOT] LIKE '...', joined with AND, OR, NOT and parentheses. A"
                    + " comparison with NULL is unknown and drops the row, as in SQL.");

    public static final ConfigOption<String> PROJECTION = ConfigOptions.key("projection")
            .stringType()
            .noDefaultValue()
            .withDescription("The columns to keep, in order, comma-separated: 'id, name AS customer, amount'."
                    + " '*' stands for every column not named elsewhere in the list. A"
                    + " primary key survives when all its columns are kept.");

    public static final ConfigOption<String> SINK_TABLE = ConfigOptions.key("sink-table")
            .stringType()
            .noDefaultValue()
            .withDescription("The table id the tables matched by 'source-table' are routed to; '$1', '$2'"
                    + " refer to groups of the 'source-table' expression ('lake.$1'). Tables"
                    + " routed to one id are merged and must have the same columns and key.");

    public static final ConfigOption<String> METADATA_COLUMNS = ConfigOptions.key("metadata-columns")
            .stringType()
            .defaultValue("_op, _source_ts, _ingested_at")
            .withDescription("The metadata columns to append, comma-separated, each optionally renamed with"
                    + " AS: _op (STRING, the row kind +I/-U/+U/-D), _source_ts (TIMESTAMP_LTZ(3),"
                    + " when the change happened in the source) and _ingested_at"
                    + " (TIMESTAMP_LTZ(3), when the pipeline processed it).");
}
