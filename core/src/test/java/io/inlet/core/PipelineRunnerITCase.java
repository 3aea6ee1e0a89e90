package io.inlet.core;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.spi.SourceContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PipelineRunner}'s guards, on a MiniCluster: a sink that asks for a rebuild at the same change
 * whatever the job is built with is rebuilt once and then stopped; one that asks before the job's
 * first checkpoint is not rebuilt from nothing; a rebuilding pipeline without a checkpoint directory
 * does not start.
 */
class PipelineRunnerITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    @Test
    void aJobThatAsksAgainAtTheSameChangeIsRebuiltOnceThenStopped(@TempDir Path checkpoints) {
        List<JobClient> jobs = new CopyOnWriteArrayList<>();
        PipelineRunner runner = PipelineRunner.builder()
                .pipeline(conf -> pipeline(conf, checkpoints, true))
                .onJobSubmitted(jobs::add)
                .build();
        assertThatThrownBy(runner::run)
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("The rebuilt job stopped again at the same schema change of shop.orders at pos-1")
                .hasMessageContaining("the sink under test asks");
        assertThat(jobs).hasSize(2);
    }

    @Test
    void aJobThatAsksBeforeItsFirstCheckpointIsNotRebuiltFromNothing(@TempDir Path checkpoints) {
        List<JobClient> jobs = new CopyOnWriteArrayList<>();
        PipelineRunner runner = PipelineRunner.builder()
                .pipeline(conf -> pipeline(conf, checkpoints, false))
                .onJobSubmitted(jobs::add)
                .build();
        assertThatThrownBy(runner::run)
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("retained no completed checkpoint");
        assertThat(jobs).hasSize(1);
    }

    @Test
    void aRebuildingPipelineWithoutACheckpointDirectoryDoesNotStart() {
        List<JobClient> jobs = new CopyOnWriteArrayList<>();
        PipelineRunner runner = PipelineRunner.builder()
                .pipeline(conf -> pipeline(conf, null, true))
                .onJobSubmitted(jobs::add)
                .build();
        assertThatThrownBy(runner::run)
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'state.checkpoints.dir'");
        assertThat(jobs).isEmpty();
    }

    @Test
    void aRebuiltJobThatAsksBeforeItsFirstCheckpointRestoresWhatItRestoredAndOnlyTheNewestCheckpointsStay(
            @TempDir Path checkpoints) throws Exception {
        List<JobClient> jobs = new CopyOnWriteArrayList<>();
        List<String> restored = new CopyOnWriteArrayList<>();
        PipelineRunner runner = PipelineRunner.builder()
                .pipeline(conf -> {
                    restored.add(conf.getOptional(SavepointConfigOptions.SAVEPOINT_PATH)
                            .orElse("none"));
                    switch (restored.size()) {
                        case 1: // asks after a checkpoint
                            return pipeline(conf, checkpoints, true, "pos-1");
                        case 2: // asks at another change before its first checkpoint
                            return pipeline(conf, checkpoints, false, "pos-2");
                        default: // asks after a checkpoint, and again at the same change
                            return pipeline(conf, checkpoints, true, "pos-3");
                    }
                })
                .onJobSubmitted(jobs::add)
                .build();
        assertThatThrownBy(runner::run)
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("stopped again at the same schema change of shop.orders at pos-3");
        assertThat(jobs).hasSize(4);
        String first = jobs.get(0).getJobID().toHexString();
        String third = jobs.get(2).getJobID().toHexString();
        String fourth = jobs.get(3).getJobID().toHexString();
        assertThat(restored.get(0)).isEqualTo("none");
        assertThat(restored.get(1)).contains(first + "/chk-");
        // Job 2 kept no checkpoint: job 3 restores what job 2 restored, job 1's.
        assertThat(restored.get(2)).isEqualTo(restored.get(1));
        assertThat(restored.get(3)).contains(third + "/chk-");
        // Each rebuild removed the directories its checkpoint superseded: only the last job's stays, to restore.
        try (Stream<Path> dirs = Files.list(checkpoints)) {
            assertThat(dirs.map(d -> d.getFileName().toString())).containsExactly(fourth);
        }
    }

    private static Pipeline pipeline(Configuration conf, Path checkpoints, boolean afterACheckpoint) {
        return pipeline(conf, checkpoints, afterACheckpoint, "pos-1");
    }

    private static Pipeline pipeline(Configuration conf, Path checkpoints, boolean afterACheckpoint, String position) {
        if (checkpoints != null) {
            conf.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    checkpoints.toUri().toString());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(50);
        env.setRestartStrategy(RestartStrategies.noRestart());
        ValuesChangeSource values = ValuesChangeSource.builder()
                .insert(
                        ShopTables.ORDERS,
                        1L,
                        "anna",
                        new BigDecimal("1.00"),
                        "new",
                        LocalDateTime.of(2024, 1, 1, 0, 0))
                .unbounded()
                .build();
        return Pipeline.builder()
                .environment(env)
                .source(new Following(values))
                .sink(new AskingSink(afterACheckpoint, position))
                .build();
    }

    /** The values source, saying it follows schema changes (as the MySQL source does under 'evolve'). */
    private static final class Following implements ChangeSource {
        private final ValuesChangeSource values;

        Following(ValuesChangeSource values) {
            this.values = values;
        }

        @Override
        public String name() {
            return values.name();
        }

        @Override
        public List<TableDescriptor> discoverTables() {
            return values.discoverTables();
        }

        @Override
        public DataStream<ChangeEvent> createStream(StreamExecutionEnvironment env, SourceContext context) {
            return values.createStream(env, context);
        }

        @Override
        public boolean followsSchemaChanges() {
            return true;
        }
    }

    /** A sink that takes schema changes by rebuilds and asks for one at the same place every time. */
    private static final class AskingSink implements ChangeSink {
        private final boolean afterACheckpoint;
        private final String position;

        AskingSink(boolean afterACheckpoint, String position) {
            this.afterACheckpoint = afterACheckpoint;
            this.position = position;
        }

        @Override
        public String name() {
            return "asking";
        }

        @Override
        public List<String> targetTables(List<TableDescriptor> tables) {
            return List.of("asking:" + tables);
        }

        @Override
        public boolean rebuildsForSchemaChanges() {
            return true;
        }

        @Override
        public void addSink(DataStream<ChangeEvent> stream, SinkContext context) {
            stream.map(new Ask(afterACheckpoint, position))
                    .uid(context.uid("ask"))
                    .addSink(new DiscardingSink<>())
                    .uid(context.uid("discard"));
        }
    }

    private static final class Ask extends RichMapFunction<ChangeEvent, ChangeEvent> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final boolean afterACheckpoint;
        private final String position;

        Ask(boolean afterACheckpoint, String position) {
            this.afterACheckpoint = afterACheckpoint;
            this.position = position;
        }

        @Override
        public void open(Configuration parameters) {
            if (!afterACheckpoint) {
                // At once, not at a row: a job restored past the source's rows gets none.
                throw request();
            }
        }

        @Override
        public ChangeEvent map(ChangeEvent e) {
            return e;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (afterACheckpoint) {
                throw request(); // a checkpoint completed and is retained: the runner rebuilds from it
            }
        }

        private RebuildRequiredException request() {
            return new RebuildRequiredException("shop.orders", position, "the sink under test asks for a new job");
        }
    }
}
