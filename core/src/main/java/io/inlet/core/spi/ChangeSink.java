package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.List;

/**
 * Consumes the stream of change events for a set of tables and writes each table somewhere. The
 * pipeline validates a sink against its tables (primary keys, checkpointing, target conflicts)
 * before anything runs.
 */
@PublicEvolving
public interface ChangeSink {

    /** A short name for operator names and uids, for example {@code iceberg}. */
    String name();

    /**
     * Whether the sink makes data visible only when a checkpoint completes (as Iceberg and Hudi
     * do). A pipeline with such a sink and checkpointing off is rejected: it would write nothing.
     */
    default boolean requiresCheckpointing() {
        return true;
    }

    /** Whether every table must have a primary key (upsert and changelog writers). */
    default boolean requiresPrimaryKey() {
        return false;
    }

    /**
     * Identifies each physical table the sink would write for these tables, in a form comparable
     * across sinks of the same kind (for example {@code iceberg:hadoop:/warehouse/lake.orders}). Two
     * sinks of one pipeline may not write the same target.
     */
    List<String> targetTables(List<TableDescriptor> tables);

    /**
     * A stable text that tells this sink apart from the other sinks of its kind in one job: where it
     * writes (a catalog and warehouse, a base path), not how. The pipeline derives the sink's default
     * operator uids from it, so that a restored job finds its sinks' state (a committer's pending
     * files, a writer's key index) however the user reordered or added sinks and transforms. Change
     * it and the sink's state is left behind; the default is the sink's name.
     */
    default String uidSeed() {
        return name();
    }

    /**
     * Sink-specific checks of the tables it gets.
     *
     * @throws io.inlet.core.InletValidationException naming the table, the option and the fix
     */
    default void validate(List<TableDescriptor> tables) {}

    /**
     * Sink-specific checks of the tables it gets, knowing whether the source sends schema changes
     * ({@link ChangeSource#followsSchemaChanges()}): an existing table of another shape may then be one
     * the job's changes bring along (restored from a savepoint taken before them). The default checks
     * as {@link #validate(List)}.
     *
     * @throws io.inlet.core.InletValidationException naming the table, the option and the fix
     */
    default void validate(List<TableDescriptor> tables, boolean schemaChangesFollowed) {
        validate(tables);
    }

    /**
     * As {@link #validate(List, boolean)}, knowing also whether the source keeps dropped and renamed
     * columns in the lake ({@link ChangeSource#keepsDroppedColumns()}): an existing table may then have
     * columns the rows lack, which the sink writes on as NULL. The pipeline calls this one; the default
     * checks as {@link #validate(List, boolean)}.
     *
     * @throws io.inlet.core.InletValidationException naming the table, the option and the fix
     */
    default void validate(List<TableDescriptor> tables, boolean schemaChangesFollowed, boolean droppedColumnsKept) {
        validate(tables, schemaChangesFollowed);
    }

    /**
     * Whether the sink takes some schema changes only by stopping the job with a {@link
     * io.inlet.core.RebuildRequiredException}, to be rebuilt with the tables' new schemas and restored
     * from its latest retained checkpoint ({@link io.inlet.core.PipelineRunner} does both). Such a
     * pipeline needs retained checkpoints; the runner checks for them before it starts the job.
     */
    default boolean rebuildsForSchemaChanges() {
        return false;
    }

    /**
     * What the sink would do with each table, a line each, for a dry run: where it writes and how
     * (for example whether a table exists and its write mode). Reads only; creates nothing. The
     * default lists {@link #targetTables}.
     */
    default List<String> describe(List<TableDescriptor> tables) {
        return targetTables(tables);
    }

    /**
     * Adds the sink to the job. A sink that writes in parallel must route all changes of one row to
     * the same writer (key by primary key), or it may apply them out of order.
     */
    void addSink(DataStream<ChangeEvent> stream, SinkContext context);
}
