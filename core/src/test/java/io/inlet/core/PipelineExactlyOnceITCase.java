package io.inlet.core;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;
import io.inlet.core.transform.MetadataTransform;
import io.inlet.core.transform.RouteTransform;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pipeline's wiring keeps exactly-once: failures injected in the source and in the sink, and a
 * stop with savepoint resumed as a new job, end with every change committed once.
 */
class PipelineExactlyOnceITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    private static ValuesChangeSource.Builder orders(int n) {
        ValuesChangeSource.Builder b = ValuesChangeSource.builder();
        for (long id = 0; id < n; id++) {
            Object[] row = {
                id,
                "c" + id,
                new BigDecimal(id + ".25"),
                "new",
                LocalDateTime.parse("2024-01-01T00:00:00").plusSeconds(id)
            };
            b.insert(ShopTables.ORDERS, row);
            if (id % 3 == 0) {
                Object[] after = row.clone();
                after[3] = "paid";
                b.update(ShopTables.ORDERS, row, after);
            }
            if (id % 7 == 0) {
                b.delete(ShopTables.ORDERS, row[0], row[1], row[2], id % 3 == 0 ? "paid" : "new", row[4]);
            }
        }
        return b;
    }

    private static List<String> expectedRows(int n) {
        return java.util.stream.LongStream.range(0, n)
                .filter(id -> id % 7 != 0)
                .mapToObj(id -> id + ", c" + id + ", " + id + ".25, " + (id % 3 == 0 ? "paid" : "new") + ", "
                        + LocalDateTime.parse("2024-01-01T00:00:00").plusSeconds(id))
                .sorted()
                .collect(Collectors.toList());
    }

    private static StreamExecutionEnvironment env() {
        return env(new Configuration());
    }

    private static StreamExecutionEnvironment env(Configuration conf) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(50);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(3, 0));
        env.getConfig().disableGenericTypes();
        return env;
    }

    private static List<String> describe(List<ChangeEvent> events) {
        return events.stream().map(e -> e.kind() + " " + e.position()).collect(Collectors.toList());
    }

    @Test
    void failuresInTheSourceAndTheSinkLoseAndDuplicateNothing() throws Exception {
        ValuesChangeSource source =
                orders(60).checkpointEvery(10).failOnceAfter(25).build();
        CollectingChangeSink sink =
                CollectingChangeSink.builder().upsert(true).failOnceAfter(17).build();
        Pipeline.builder().environment(env()).source(source).sink(sink).build().execute();

        assertThat(source.failureFired()).isTrue();
        assertThat(sink.failureFired()).isTrue();
        // Every event exactly once: positions are unique per event.
        assertThat(describe(sink.committed())).containsExactlyInAnyOrderElementsOf(describe(source.events()));
        assertThat(sink.tableRows(ShopTables.ORDERS.tableId())).isEqualTo(expectedRows(60));
    }

    @Test
    void stopWithSavepointAndResumeAsANewJob(@TempDir Path savepoints) throws Exception {
        int n = 60;
        String sinkId = java.util.UUID.randomUUID().toString();
        List<ChangeEvent> all = orders(n).build().events();

        JobClient first = pipeline(orders(n).checkpointEvery(20).unbounded().build(), sinkId, null)
                .executeAsync();
        String savepoint;
        try {
            CollectingChangeSink.results(sinkId).await(20, Duration.ofSeconds(60));
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get();
        } catch (Exception e) {
            first.cancel().get();
            throw e;
        }
        assertThat(first.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
        int committedBefore = CollectingChangeSink.results(sinkId).events().size();
        assertThat(committedBefore).isBetween(20, all.size() - 1);

        JobClient second =
                pipeline(orders(n).unbounded().build(), sinkId, savepoint).executeAsync();
        try {
            CollectingChangeSink.results(sinkId).await(all.size(), Duration.ofSeconds(60));
        } finally {
            second.cancel().get();
        }

        List<ChangeEvent> committed = CollectingChangeSink.results(sinkId).events();
        assertThat(describe(committed)).containsExactlyInAnyOrderElementsOf(describe(all));
    }

    private static Pipeline pipeline(ValuesChangeSource source, String sinkId, String savepoint) {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
        }
        return Pipeline.builder()
                .environment(env(conf))
                .source(source)
                .transform(
                        RouteTransform.builder().route("shop\\.(.*)", "lake.$1").build())
                .transform(MetadataTransform.builder().columns("_op").build())
                .sink(CollectingChangeSink.builder().id(sinkId).upsert(true).build())
                .build();
    }
}
