package io.inlet.examples;

import io.inlet.core.Pipeline;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Settings become a pipeline: source, numbered transforms and sink by identifier, on a MiniCluster. */
@Tag("every-flink-line") // run on Flink 1.18 too (see the README, Run the tests)
class InletJobITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    @Test
    void settingsDescribeTheWholePipeline() throws Exception {
        String dataId = ValuesChangeSource.builder()
                .insert(
                        ShopTables.ORDERS,
                        1L,
                        "anna",
                        new BigDecimal("19.90"),
                        "new",
                        LocalDateTime.parse("2024-01-01T10:00:00"))
                .insert(
                        ShopTables.ORDERS,
                        2L,
                        "bob",
                        new BigDecimal("5.00"),
                        "paid",
                        LocalDateTime.parse("2024-01-01T11:00:00"))
                .build()
                .register();
        String sinkId = "inlet-job-" + UUID.randomUUID();
        JobSettings settings = JobSettings.of(
                new String[] {
                    "--source.type",
                    "values",
                    "--source.data-id",
                    dataId,
                    "--transform.2.type",
                    "metadata",
                    "--transform.2.metadata-columns",
                    "_op",
                    "--transform.1.type",
                    "route",
                    "--transform.1.source-table",
                    "shop\\.(.*)",
                    "--transform.1.sink-table",
                    "lake.$1",
                    "--sink.type",
                    "collect",
                    "--sink.sink-id",
                    sinkId,
                    "--pipeline.name",
                    "settings-test",
                    "--pipeline.checkpoint-interval",
                    "200 ms",
                    "--pipeline.parallelism",
                    "2"
                },
                Map.of(),
                Path.of("/nonexistent"),
                k -> null);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Pipeline pipeline = InletJob.pipeline(settings, env, Set.of()).build();
        assertThat(pipeline.jobName()).isEqualTo("settings-test");
        assertThat(env.getParallelism()).isEqualTo(2);
        assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(200);
        assertThat(pipeline.sinkTables().get(0).tableId().identifier()).isEqualTo("lake.orders");
        assertThat(pipeline.sinkTables().get(0).columnNames()).endsWith("_op"); // route ran first, then metadata
        pipeline.execute();

        assertThat(CollectingChangeSink.results(sinkId).events().stream()
                        .map(ChangeEvent::tableId)
                        .map(Object::toString)
                        .collect(Collectors.toList()))
                .containsExactly("lake.orders", "lake.orders");
    }

    @Test
    void flinkSettingsConfigureDurableStateWithoutAConfigurationFile(
            @org.junit.jupiter.api.io.TempDir Path checkpoints) {
        JobSettings settings = JobSettings.of(
                new String[] {
                    "--source.type",
                    "values",
                    "--sink.type",
                    "collect",
                    "--flink.state.checkpoints.dir",
                    checkpoints.toUri().toString(),
                    "--flink.execution.checkpointing.externalized-checkpoint-retention",
                    "RETAIN_ON_CANCELLATION",
                    "--flink.execution.checkpointing.interval",
                    "5 s",
                    "--flink.state.backend.type",
                    "hashmap",
                    "--flink.restart-strategy.type",
                    "fixed-delay",
                    "--flink.restart-strategy.fixed-delay.attempts",
                    "7",
                    "--flink.execution.savepoint.path",
                    checkpoints.resolve("job/chk-3").toUri().toString()
                },
                Map.of(),
                Path.of("/nonexistent"),
                k -> null);
        StreamExecutionEnvironment env = InletJob.environment(settings);
        org.apache.flink.streaming.api.environment.CheckpointConfig cc = env.getCheckpointConfig();
        assertThat(cc.getCheckpointInterval()).isEqualTo(5000);
        assertThat(cc.getExternalizedCheckpointCleanup())
                .isEqualTo(
                        org.apache.flink.streaming.api.environment.CheckpointConfig.ExternalizedCheckpointCleanup
                                .RETAIN_ON_CANCELLATION);
        assertThat(cc.getCheckpointStorage())
                .isInstanceOf(org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage.class);
        assertThat(((org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage) cc.getCheckpointStorage())
                        .getCheckpointPath()
                        .toUri()
                        .getPath())
                .isEqualTo(checkpoints.toUri().getPath().replaceAll("/$", ""));
        assertThat(env.getConfiguration().get(org.apache.flink.configuration.StateBackendOptions.STATE_BACKEND))
                .isEqualTo("hashmap");
        assertThat(env.getConfiguration()
                        .get(
                                org.apache.flink.configuration.RestartStrategyOptions
                                        .RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS))
                .isEqualTo(7);
        assertThat(env.getConfiguration().get(org.apache.flink.runtime.jobgraph.SavepointConfigOptions.SAVEPOINT_PATH))
                .endsWith("job/chk-3");
    }

    @Test
    void missingAndUnknownSettingsAreNamed() {
        JobSettings typo = JobSettings.of(
                new String[] {"--sourc.hostname", "db", "--sink.type", "collect"},
                Map.of(),
                Path.of("/nonexistent"),
                k -> null);
        assertThatThrownBy(() -> InletJob.pipeline(
                        typo, StreamExecutionEnvironment.getExecutionEnvironment(), Set.of("generator.")))
                .hasMessageContaining("Unknown setting(s) [sourc.hostname]; the settings of this job are [source.*,"
                        + " transform.<n>.*, sink.*, flink.*")
                .hasMessageContaining("generator.*");
        JobSettings none = JobSettings.of(new String[0], Map.of(), Path.of("/nonexistent"), k -> null);
        assertThatThrownBy(
                        () -> InletJob.pipeline(none, StreamExecutionEnvironment.getExecutionEnvironment(), Set.of()))
                .hasMessageContaining("Setting 'source.type' is missing")
                .hasMessageContaining("Setting 'sink.type' is missing");
        JobSettings badTransform = JobSettings.of(
                new String[] {"--source.type", "values", "--sink.type", "collect", "--transform.first.type", "route"},
                Map.of(),
                Path.of("/nonexistent"),
                k -> null);
        assertThatThrownBy(() ->
                        InletJob.pipeline(badTransform, StreamExecutionEnvironment.getExecutionEnvironment(), Set.of()))
                .hasMessageContaining("Setting 'transform.first.type' does not number its transform");
    }
}
