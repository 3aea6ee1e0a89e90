package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.util.List;

/**
 * Produces the stream of {@link ChangeEvent}s of the tables it captures, and their descriptors.
 * Runs on the client while the pipeline is built; what it adds to the job must be serializable.
 *
 * <p>Implementations register a {@link ChangeSourceFactory} in {@code META-INF/services} so that
 * pipelines can name them by identifier.
 */
@PublicEvolving
public interface ChangeSource {

    /** A short name for operator names and uids, for example {@code mysql-cdc}. */
    String name();

    /**
     * The tables this source captures, read from the source system where needed. Called once, when
     * the pipeline is built; this is also where a source checks that it can run (reachable,
     * permissions, configuration) and throws {@link io.inlet.core.InletValidationException} naming
     * the problem and the fix.
     */
    List<TableDescriptor> discoverTables();

    /**
     * Adds the source to the job. Every event's table and schema version must be among {@link
     * SourceContext#tables()}; the stream's type must be {@link SourceContext#typeInfo()}.
     */
    DataStream<ChangeEvent> createStream(StreamExecutionEnvironment env, SourceContext context);

    /**
     * Whether the stream may carry one change more than once, whatever Flink's checkpoints do: true
     * for a source fed by an at-least-once producer, such as Debezium's Kafka Connect connector,
     * which resends changes after its own restarts. Sinks then write idempotently (upserts).
     */
    default boolean mayRepeatChanges() {
        return false;
    }

    /**
     * Whether the stream carries schema change events ({@code schema-change.behavior} = {@code
     * evolve}, {@code try-evolve} or {@code lenient}): the tables' shapes may move on while the job
     * runs, and a job restored from a savepoint replays the changes since.
     */
    default boolean followsSchemaChanges() {
        return false;
    }

    /**
     * Whether a column dropped or renamed at the source stays in the lake with the values it had
     * ({@code schema-change.behavior} = {@code lenient}, or {@code drop.column} / {@code rename.column}
     * excluded): a sink may then find columns in its existing tables that the source's tables no
     * longer have, and rows written from now on leave them NULL. Implies {@link #followsSchemaChanges()}.
     */
    default boolean keepsDroppedColumns() {
        return false;
    }
}
