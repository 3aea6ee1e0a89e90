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
}
