package io.inlet.it;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;

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
