package io.inlet.it;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.dispatcher.UnavailableDispatcherOperationException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Helpers for jobs a test runs in the background. */
final class Jobs {

    private Jobs() {}

    /**
     * An environment at parallelism 1 with 300 ms checkpoints and a restart strategy of a thousand
     * attempts: a job that should stop once and does not is seen restarting, not failed.
     */
    static StreamExecutionEnvironment restartingEnvironment() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(300);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1000, 100));
        return env;
    }

    /**
     * An environment with the configuration (e.g. a savepoint to restore), 300 ms checkpoints and no
     * restarts: a test restarts its jobs itself.
     */
    static StreamExecutionEnvironment checkpointingEnvironment(Configuration conf, int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(300);
        // Without this Flink's default (fixed delay when checkpointing is on) restarts a failed job
        // from its last checkpoint, and a stop-with-savepoint retried meanwhile would cut a savepoint
        // behind changes the test already saw written.
        env.setRestartStrategy(RestartStrategies.noRestart());
        return env;
    }

    /**
     * Stops the job with a savepoint into the directory and returns its path. A job whose job manager
     * or tasks are still starting refuses the savepoint ("not available while the JobManager is
     * initializing", "Not all required tasks are currently running") and runs on: the stop is tried
     * again until it succeeds or a minute has passed. Any other failure of the stop fails the test: the
     * job may have failed over to an earlier checkpoint meanwhile, and a savepoint taken after that
     * would hold a position before changes the test saw written.
     */
    static String stopWithSavepoint(JobClient job, Path directory) throws Exception {
        return stopWithSavepoint(job, directory.toUri().toString());
    }

    /** As {@link #stopWithSavepoint(JobClient, Path)}, into a directory of any file system Flink has. */
    static String stopWithSavepoint(JobClient job, String directory) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return job.stopWithSavepoint(false, directory, SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // The job manager or the tasks still starting; by message, as a cause may arrive as a
                // SerializedThrowable.
                boolean starting = ExceptionUtils.findThrowable(e, UnavailableDispatcherOperationException.class)
                                .isPresent()
                        || ExceptionUtils.findThrowableWithMessage(
                                        e, "not available while the JobManager is initializing")
                                .isPresent()
                        || ExceptionUtils.findThrowableWithMessage(
                                        e, CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING.message())
                                .isPresent();
                if (!starting) {
                    throw new AssertionError(
                            "Stop-with-savepoint failed while the job was "
                                    + job.getJobStatus().get(30, TimeUnit.SECONDS),
                            e.getCause());
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100); // the tasks are still starting; the deadline above decides
            }
        }
    }

    /** Fails the test at once, with the job's own failure, when the job is no longer running. */
    static void assertRunning(JobClient job) throws Exception {
        JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
        if (status.isGloballyTerminalState()) {
            try {
                job.getJobExecutionResult().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("The job ended " + status + " while the test waited for it", e.getCause());
            }
            throw new AssertionError("The job ended " + status + " while the test waited for it");
        }
    }

    /**
     * Cancels the job and waits until it has ended and Hudi's background threads (compaction,
     * rollback) have stopped writing: they outlive the cancelled tasks, and a temporary directory
     * deleted under them fails the test after its assertions passed.
     */
    static void cancelAndAwait(JobClient job) throws Exception {
        job.cancel().get(30, TimeUnit.SECONDS);
        long deadline = System.currentTimeMillis() + 60_000;
        while (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(50); // waiting for the cancellation to finish
        }
        while (hudiThreadBusy() && System.currentTimeMillis() < deadline) {
            Thread.sleep(50); // waiting for Hudi's executors to finish their last action
        }
    }

    /**
     * Waits until the job has failed (not restarting) and returns its failure; fails the test when
     * the job is still running (or restarting) when the time is up.
     */
    static Throwable awaitFailure(JobClient job, Duration timeout) throws Exception {
        // The result is there once the job has ended for good; a job that restarts has none.
        try {
            job.getJobExecutionResult().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("The job should have failed once (without restarting) within " + timeout
                    + ", but is " + job.getJobStatus().get(30, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
            if (status != JobStatus.FAILED) {
                throw new AssertionError(
                        "The job should have failed once (without restarting), but is " + status, e.getCause());
            }
            return e.getCause();
        }
        throw new AssertionError("The job should have failed once (without restarting), but finished");
    }

    /** Every message in the chain of causes, one per line. */
    static String messages(Throwable failure) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            sb.append(t.getClass().getName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
            if (t.getCause() == t) {
                break;
            }
        }
        return sb.toString();
    }

    /** Cancels the job unless it has ended already. */
    static void cancelIfRunning(JobClient job) throws Exception {
        if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
            cancelAndAwait(job);
        }
    }

    private static boolean hudiThreadBusy() {
        for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
            for (StackTraceElement frame : stack) {
                if (frame.getClassName().startsWith("org.apache.hudi.")) {
                    return true;
                }
            }
        }
        return false;
    }
}
