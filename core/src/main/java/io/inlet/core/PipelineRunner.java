package io.inlet.core;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.SerializedThrowable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a pipeline and keeps it going across the schema changes a sink takes only in a job built with
 * the tables' new schemas: when the job stops with a {@link RebuildRequiredException} (Hudi 0.14 at an
 * added or widened column), the runner builds the pipeline again, so its source reads the tables as
 * they are now, and restores the new job from the stopped job's latest retained checkpoint. The
 * changes after that checkpoint are read again and written once; no human is needed. Any other end
 * of the job ends the run as {@link Pipeline#execute()} would.
 *
 * <p>The function gets the configuration to create its environment with: empty at first, the
 * checkpoint to restore ({@code execution.savepoint.path}) on a rebuild. A pipeline that may be
 * rebuilt ({@link Pipeline#rebuildsForSchemaChanges()}) needs a checkpoint directory; the runner
 * retains its checkpoints when the job fails (and says so where that overrides a setting).
 *
 * <pre>{@code
 * PipelineRunner.builder()
 *     .pipeline(conf -> Pipeline.builder()
 *             .environment(StreamExecutionEnvironment.getExecutionEnvironment(conf))
 *             .source("mysql-cdc", Map.of(..., "schema-change.behavior", "evolve"))
 *             .sink("hudi", Map.of("path", "s3://lake/hudi"))
 *             .build())
 *     .build()
 *     .run();
 * }</pre>
 *
 * <p>The runner waits for each job, so it needs a job whose result the client gets: a local run,
 * {@code flink run} (attached) or application mode. Submitted detached, the job runs once.
 */
@PublicEvolving
public final class PipelineRunner {

    private static final Logger LOG = LoggerFactory.getLogger(PipelineRunner.class);

    private final Function<Configuration, Pipeline> pipeline;
    private final Consumer<JobClient> onSubmit;

    private PipelineRunner(Function<Configuration, Pipeline> pipeline, Consumer<JobClient> onSubmit) {
        this.pipeline = pipeline;
        this.onSubmit = onSubmit;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds and runs the pipeline, rebuilding and restoring it at each change a sink needs a new job
     * for, and returns when a job ends otherwise (a streaming job: cancelled; a bounded one: done).
     *
     * @throws Exception the job's failure, or why it cannot be rebuilt (no checkpoint retained, the
     *     rebuilt job stopped again at the same change)
     */
    public JobExecutionResult run() throws Exception {
        Configuration restore = new Configuration();
        RebuildRequiredException previous = null;
        int rebuilds = 0;
        // The jobs this run started that may have retained checkpoints, in order; superseded ones are removed.
        List<JobID> started = new ArrayList<>();
        while (true) {
            Pipeline p = pipeline.apply(new Configuration(restore));
            StreamExecutionEnvironment env = p.environment();
            Optional<String> expected = restore.getOptional(SavepointConfigOptions.SAVEPOINT_PATH);
            if (expected.isPresent()
                    && !expected.equals(env.getConfiguration().getOptional(SavepointConfigOptions.SAVEPOINT_PATH))) {
                throw new IllegalStateException("The pipeline function of the PipelineRunner built a pipeline whose"
                        + " environment does not restore " + expected.get()
                        + ". Create the environment with the"
                        + " configuration the function gets:"
                        + " StreamExecutionEnvironment.getExecutionEnvironment(conf).");
            }
            String checkpoints = p.rebuildsForSchemaChanges() ? retainCheckpoints(env) : null;
            // Run as Pipeline#execute() runs (the runtime's attached execution, unchanged); the listener tells
            // which job it was.
            AtomicReference<JobClient> submitted = new AtomicReference<>();
            env.registerJobListener(new JobListener() {
                @Override
                public void onJobSubmitted(@Nullable JobClient client, @Nullable Throwable failure) {
                    if (client != null) {
                        submitted.set(client);
                        onSubmit.accept(client);
                    }
                }

                @Override
                public void onJobExecuted(@Nullable JobExecutionResult result, @Nullable Throwable failure) {}
            });
            try {
                JobExecutionResult result = p.execute();
                if (submitted.get() != null) {
                    started.add(submitted.get().getJobID());
                }
                pruneAtEnd(checkpoints, started, expected.orElse(null));
                return result;
            } catch (Exception e) {
                JobClient job = submitted.get();
                if (checkpoints == null || job == null) {
                    throw e;
                }
                started.add(job.getJobID());
                RebuildRequiredException request = rebuildRequest(e).orElse(null);
                if (request == null) {
                    pruneAtEnd(checkpoints, started, expected.orElse(null));
                    throw e;
                }
                String checkpoint = latestCheckpoint(checkpoints, job.getJobID());
                if (checkpoint == null && expected.isPresent()) {
                    // A rebuilt job that stopped again before its first checkpoint: what it restored is still
                    // there (restored without claiming it, so it outlives the job) and still before the change.
                    checkpoint = expected.get();
                }
                if (checkpoint == null) {
                    throw new InletStopException(
                            "Job " + job.getJobID() + " stopped to be rebuilt for a schema"
                                    + " change, but it retained no completed checkpoint under " + checkpoints
                                    + " to restore:"
                                    + " the change came before its first checkpoint. Start it again from a savepoint"
                                    + " taken before the"
                                    + " change, or as it was first started if its source then reads from a fixed start"
                                    + " (a source starting at the latest offset would skip the changes since). "
                                    + request.getMessage(),
                            request);
                }
                // Only the checkpoint the next job restores from is needed; the stopped jobs' others go.
                prune(checkpoints, started, checkpoint);
                if (previous != null
                        && Objects.equals(previous.position(), request.position())
                        && Objects.equals(previous.table(), request.table())) {
                    // Whatever checkpoint it restored: the job built with the tables as they are now cannot take
                    // the change either (e.g. the column was added and dropped again since), and would again.
                    throw new InletStopException(
                            "The rebuilt job stopped again at the same schema change of " + request.table() + " at "
                                    + request.position() + ": the pipeline built with the tables as they are now"
                                    + " does not take it either. " + request.getMessage(),
                            request);
                }
                rebuilds++;
                LOG.info(
                        "Job {} stopped for a schema change of {} at {}; rebuilding the pipeline with the tables as"
                                + " they are now and restoring it from {} (rebuild {}).",
                        job.getJobID(),
                        request.table(),
                        request.position(),
                        checkpoint,
                        rebuilds);
                previous = request;
                restore.set(SavepointConfigOptions.SAVEPOINT_PATH, checkpoint);
            }
        }
    }

    /**
     * The checkpoint directory of the job, with retention on failure turned on: a rebuild restores
     * from the last checkpoint the failed job kept.
     */
    private static String retainCheckpoints(StreamExecutionEnvironment env) {
        CheckpointStorage storage = env.getCheckpointConfig().getCheckpointStorage();
        ReadableConfig conf = env.getConfiguration();
        String dir = storage instanceof FileSystemCheckpointStorage
                ? ((FileSystemCheckpointStorage) storage).getCheckpointPath().toString()
                : conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).orElse(null);
        if (dir == null) {
            throw new InletValidationException("The pipeline's sink takes some schema changes by a rebuild of the"
                    + " job from its latest checkpoint, but no checkpoint directory is set, so no checkpoint outlives"
                    + " the job. Set 'state.checkpoints.dir' (in a job's settings"
                    + " 'flink.state.checkpoints.dir'), e.g. s3://bucket/checkpoints, or set"
                    + " 'schema-change.behavior' = 'fail' on the source.");
        }
        CheckpointConfig checkpoints = env.getCheckpointConfig();
        if (!checkpoints.isExternalizedCheckpointsEnabled()) {
            if (conf.getOptional(ExecutionCheckpointingOptions.EXTERNALIZED_CHECKPOINT)
                    .isPresent()) {
                LOG.warn(
                        "'{}' = NO_EXTERNALIZED_CHECKPOINTS is overridden with RETAIN_ON_CANCELLATION: a job"
                                + " rebuilt for a schema change restores from the checkpoint the stopped job kept.",
                        ExecutionCheckpointingOptions.EXTERNALIZED_CHECKPOINT.key());
            }
            checkpoints.setExternalizedCheckpointCleanup(
                    CheckpointConfig.ExternalizedCheckpointCleanup.RETAIN_ON_CANCELLATION);
        }
        return dir;
    }

    /**
     * At the end of the run: keeps the newest checkpoint a restore would take (the last job's, else the one it
     * restored from) and removes the other jobs' retained checkpoints.
     */
    private static void pruneAtEnd(@Nullable String checkpoints, List<JobID> started, @Nullable String restored) {
        if (checkpoints == null || started.isEmpty()) {
            return;
        }
        try {
            String keep = latestCheckpoint(checkpoints, started.get(started.size() - 1));
            prune(checkpoints, started, keep != null ? keep : restored);
        } catch (IOException e) {
            LOG.warn("Could not look for the retained checkpoints of rebuilt jobs under {}.", checkpoints, e);
        }
    }

    /**
     * Removes the checkpoint directories of the jobs this run started, but the one holding {@code keep}:
     * each rebuild restores without claiming its checkpoint (NO_CLAIM), so the stopped job's directory
     * outlives it, and after many rebuilds they would pile up.
     */
    static void prune(String checkpoints, List<JobID> started, @Nullable String keep) {
        String keepDir =
                keep == null ? null : new Path(keep).getParent().toUri().getPath();
        for (JobID id : started) {
            Path dir = new Path(checkpoints, id.toHexString());
            if (dir.toUri().getPath().equals(keepDir)) {
                continue;
            }
            try {
                FileSystem fs = dir.getFileSystem();
                if (fs.exists(dir) && fs.delete(dir, true)) {
                    LOG.info(
                            "Removed the retained checkpoints of job {} ({}): a later checkpoint supersedes them.",
                            id,
                            dir);
                }
            } catch (IOException e) {
                LOG.warn("Could not remove the retained checkpoints of job {} ({}).", id, dir, e);
            }
        }
    }

    /** The request in the failure's causes; one that arrives serialized keeps only its message. */
    static Optional<RebuildRequiredException> rebuildRequest(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RebuildRequiredException) {
                return Optional.of((RebuildRequiredException) t);
            }
            if (t instanceof SerializedThrowable
                    && RebuildRequiredException.class
                            .getName()
                            .equals(((SerializedThrowable) t).getOriginalErrorClassName())) {
                return Optional.of(new RebuildRequiredException("?", t.getMessage(), t.getMessage()));
            }
        }
        return Optional.empty();
    }

    /** The path of the job's newest completed checkpoint under the directory, or null. */
    @Nullable
    static String latestCheckpoint(String directory, JobID job) throws IOException {
        Path jobDir = new Path(directory, job.toHexString());
        FileSystem fs = jobDir.getFileSystem();
        if (!fs.exists(jobDir)) {
            return null;
        }
        FileStatus[] entries = fs.listStatus(jobDir);
        long newest = -1;
        Path found = null;
        for (FileStatus s : entries == null ? new FileStatus[0] : entries) {
            String name = s.getPath().getName();
            if (!s.isDir() || !name.startsWith("chk-")) {
                continue;
            }
            long n;
            try {
                n = Long.parseLong(name.substring(4));
            } catch (NumberFormatException e) {
                continue;
            }
            // _metadata is written last: a directory without it holds a checkpoint that never completed.
            if (n > newest && fs.exists(new Path(s.getPath(), "_metadata"))) {
                newest = n;
                found = s.getPath();
            }
        }
        return found == null ? null : found.toString();
    }

    /** Builds a {@link PipelineRunner}. */
    @PublicEvolving
    public static final class Builder {

        private Function<Configuration, Pipeline> pipeline;
        private Consumer<JobClient> onSubmit = job -> {};

        private Builder() {}

        /**
         * How to build the pipeline: on an environment created with the configuration the function
         * gets ({@code StreamExecutionEnvironment.getExecutionEnvironment(conf)}), called again for
         * each rebuild, so that sources read their tables' schemas anew.
         */
        public Builder pipeline(Function<Configuration, Pipeline> pipeline) {
            this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
            return this;
        }

        /** Called with each job the runner submits, e.g. to report its id or to cancel it. */
        public Builder onJobSubmitted(Consumer<JobClient> listener) {
            this.onSubmit = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public PipelineRunner build() {
            if (pipeline == null) {
                throw new InletValidationException("The PipelineRunner has no pipeline. Give it one with"
                        + " pipeline(conf -> Pipeline.builder().environment("
                        + "StreamExecutionEnvironment.getExecutionEnvironment(conf))...build()).");
            }
            return new PipelineRunner(pipeline, onSubmit);
        }
    }
}
