package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.List;

/**
 * Maps a stream of change events and the descriptors of its tables to new ones: filters, projects,
 * routes or enriches rows. {@link #transformTables} runs while the pipeline is built, so a transform
 * that cannot apply (a missing column, say) fails before the job starts.
 */
@PublicEvolving
public interface ChangeTransform {

    /** A short name for operator names and uids, for example {@code route}. */
    String name();

    /**
     * The descriptors of the tables this transform emits, given those it receives.
     *
     * @throws io.inlet.core.InletValidationException naming the table, the column or option and the
     *     fix, when the transform cannot apply to these tables
     */
    List<TableDescriptor> transformTables(List<TableDescriptor> input);

    /**
     * Adds the transform to the job. Events must match {@link TransformContext#outputTables()}; the
     * result's type must be {@link TransformContext#outputTypeInfo()}. The changes of one row must
     * stay in order: run at the input's parallelism (so Flink chains the operator) or key the
     * stream by primary key, never rebalance it.
     */
    DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context);
}
