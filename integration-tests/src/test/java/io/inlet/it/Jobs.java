package io.inlet.it;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Helpers for jobs a test runs in the background. */
final class Jobs {

    private Jobs() {}

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
        while (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState() && System.currentTimeMillis() < deadline) {
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
        long deadline = System.nanoTime() + timeout.toNanos();
        JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
        while (!status.isGloballyTerminalState() && System.nanoTime() < deadline) {
            Thread.sleep(100); // polling the job's status; the assertion below decides
            status = job.getJobStatus().get(30, TimeUnit.SECONDS);
        }
        if (status != JobStatus.FAILED) {
            throw new AssertionError("The job should have failed once (without restarting) within " + timeout + ", but is " + status);
        }
        try {
            job.getJobExecutionResult().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("The job FAILED but reported no failure");
    }

    /** Every message in the chain of causes, one per line. */
    static String messages(Throwable failure) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            sb.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
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
