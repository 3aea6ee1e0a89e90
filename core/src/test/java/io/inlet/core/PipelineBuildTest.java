package io.inlet.core;

import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;
import io.inlet.core.transform.FilterTransform;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** build() validates and nothing else; the job reaches its environment once, when asked. */
class PipelineBuildTest {

    private static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, new Configuration());
        env.enableCheckpointing(1000);
        return env;
    }

    private static Pipeline.Builder builder(StreamExecutionEnvironment env) {
        return Pipeline.builder()
                .environment(env)
                .jobName("shop")
                .source(ValuesChangeSource.builder().table(ShopTables.ORDERS).build())
                .transform(FilterTransform.builder()
                        .sourceTable("shop\\.orders")
                        .filter("id > 0")
                        .build())
                .sink(CollectingChangeSink.builder().name("lake").build());
    }

    @Test
    void buildAddsNothingToTheEnvironmentAndAddingTwiceAddsOnce() {
        StreamExecutionEnvironment env = env();
        Pipeline pipeline = builder(env).build();
        assertThat(env.getTransformations()).as("operators after build()").isEmpty();
        assertThat(pipeline.addToEnvironment()).isSameAs(env);
        int operators = env.getTransformations().size();
        assertThat(operators).isPositive();
        pipeline.addToEnvironment();
        assertThat(env.getTransformations()).hasSize(operators);
    }

    @Test
    void aBuilderBuildsOnePipeline() {
        Pipeline.Builder builder = builder(env());
        builder.build();
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already built its pipeline")
                .hasMessageContaining("Pipeline.builder()");
        assertThatThrownBy(() -> builder.sink(
                        CollectingChangeSink.builder().name("other").build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has built its pipeline");
    }

    @Test
    void describesThePlanWithoutAddingIt() {
        StreamExecutionEnvironment env = env();
        String plan = builder(env).build().describe();
        assertThat(plan)
                .startsWith("Pipeline 'shop'\n")
                .contains("  source ")
                .contains("(uid inlet-source-values)")
                .contains("    " + ShopTables.ORDERS.tableId().identifier())
                .contains("  transform #1 ")
                .contains("(uid inlet-transform-filter-")
                .contains("  sink ")
                .contains("(uid inlet-sink-lake")
                .contains("checkpoints every PT1S, parallelism 1");
        assertThat(env.getTransformations()).isEmpty();
    }
}
