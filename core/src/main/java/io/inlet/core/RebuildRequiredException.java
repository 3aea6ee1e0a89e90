package io.inlet.core;

import io.inlet.annotation.PublicEvolving;

/**
 * Stops the job because a sink can take a table's schema change only in a job built with the
 * table's new schema (Hudi 0.14's writers fix their schema when they open). {@link PipelineRunner}
 * then builds the pipeline again, so that its source reads the tables as they are now, and restores
 * the new job from the stopped job's latest retained checkpoint: the changes after that checkpoint
 * are read again and written once. A job run without the runner fails with this message; running
 * its main again from its latest retained checkpoint goes on the same way.
 *
 * <p>Like every {@link InletStopException} it is not retried by Flink's restart strategy: the same
 * job graph would meet the same change again.
 */
@PublicEvolving
public class RebuildRequiredException extends InletStopException {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String position;

    /**
     * @param table the table whose change needs the rebuild
     * @param position where in the source the change is; a rebuilt job that asks again at the same
     *     place did not get further, and the runner stops instead of rebuilding in a loop
     * @param message what changed and why the sink needs a new job for it
     */
    public RebuildRequiredException(String table, String position, String message) {
        super(message);
        this.table = table;
        this.position = position;
    }

    public String table() {
        return table;
    }

    public String position() {
        return position;
    }
}
