package io.inlet.core;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PipelineRunnerTest {

    @Test
    void theLatestCheckpointIsTheNewestCompletedOneOfTheJob(@TempDir Path dir) throws Exception {
        JobID job = new JobID();
        assertThat(PipelineRunner.latestCheckpoint(dir.toUri().toString(), job)).isNull();
        Path jobDir = dir.resolve(job.toHexString());
        Files.createDirectories(jobDir.resolve("chk-9"));
        Files.createFile(jobDir.resolve("chk-9").resolve("_metadata"));
        Files.createDirectories(jobDir.resolve("chk-12")); // not completed: no _metadata yet
        Files.createDirectories(jobDir.resolve("chk-10"));
        Files.createFile(jobDir.resolve("chk-10").resolve("_metadata"));
        Files.createDirectories(jobDir.resolve("shared"));
        Files.createDirectories(dir.resolve(new JobID().toHexString()).resolve("chk-99"));
        assertThat(PipelineRunner.latestCheckpoint(dir.toUri().toString(), job)).endsWith("/chk-10");
    }

    @Test
    void aRebuildRequestIsFoundAmongTheCausesAlsoWhenItArrivesSerialized() {
        RebuildRequiredException request = new RebuildRequiredException("db.t", "mysql-bin.000001:4#0", "needs a job");
        ExecutionException failure = new ExecutionException(
                new JobExecutionException(new JobID(), "Job execution failed.", new RuntimeException(request)));
        assertThat(PipelineRunner.rebuildRequest(failure)).containsSame(request);

        ExecutionException serialized = new ExecutionException(
                new JobExecutionException(new JobID(), "Job execution failed.", new SerializedThrowable(request)));
        assertThat(PipelineRunner.rebuildRequest(serialized))
                .hasValueSatisfying(r -> assertThat(r.getMessage()).contains("needs a job"));

        assertThat(PipelineRunner.rebuildRequest(new ExecutionException(new InletStopException("bad record"))))
                .isEmpty();
    }

    @Test
    void aRunnerWithoutAPipelineIsRefusedNamingTheFix() {
        assertThatThrownBy(() -> PipelineRunner.builder().build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("getExecutionEnvironment(conf)");
    }
}
