package io.inlet.core;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;
import io.inlet.core.transform.FilterTransform;
import io.inlet.core.transform.MetadataTransform;
import io.inlet.core.transform.ProjectionTransform;
import io.inlet.core.transform.RouteTransform;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every problem Pipeline.builder().build() reports before anything runs, with its message. */
class PipelineValidationTest {

    private static StreamExecutionEnvironment env(boolean checkpointing) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, new Configuration());
        if (checkpointing) {
            env.enableCheckpointing(1000);
        }
        return env;
    }

    private static ValuesChangeSource source() {
        return ValuesChangeSource.builder()
                .table(ShopTables.ORDERS)
                .table(ShopTables.CUSTOMERS)
                .table(ShopTables.AUDIT_LOG)
                .build();
    }

    @Test
    void rejectsCheckpointingOffForASinkThatCommitsOnCheckpoints() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(false))
                        .source(source())
                        .sink(CollectingChangeSink.builder().name("lake").build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining(
                        "Checkpointing is off, but the sink(s) [lake] commit data only when a checkpoint completes")
                .hasMessageContaining("never write a row")
                .hasMessageContaining("env.enableCheckpointing(...)")
                .hasMessageContaining("execution.checkpointing.interval")
                .hasMessageContaining("checkpointInterval(Duration.ofSeconds(30))");
    }

    @Test
    void acceptsCheckpointingOffWhenNoSinkNeedsIt() {
        Pipeline p = Pipeline.builder()
                .environment(env(false))
                .source(source())
                .sink(CollectingChangeSink.builder()
                        .requiresCheckpointing(false)
                        .build())
                .build();
        assertThat(p.sinkTables()).hasSize(3);
    }

    @Test
    void checkpointIntervalOnTheBuilderEnablesCheckpointingOnAGivenEnvironment() {
        StreamExecutionEnvironment env = env(false);
        Pipeline.builder()
                .environment(env)
                .checkpointInterval(Duration.ofSeconds(7))
                .source(source())
                .sink(CollectingChangeSink.builder().build())
                .build();
        assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(7000L);
    }

    @Test
    void warnsWhenCheckpointsWouldBeKeptInTheJobManagersMemory() {
        assertThat(Pipeline.jobManagerCheckpointStorageWarning(env(true)))
                .contains("no checkpoint directory is set")
                .contains("at most 5 MB per operator state")
                .contains("'state.checkpoints.dir'")
                .contains("setCheckpointStorage(...)");

        Configuration withDir = new Configuration();
        withDir.setString("state.checkpoints.dir", "file:///tmp/inlet-checkpoints");
        assertThat(Pipeline.jobManagerCheckpointStorageWarning(
                        StreamExecutionEnvironment.createLocalEnvironment(1, withDir)))
                .isNull();

        StreamExecutionEnvironment onEnv = env(true);
        onEnv.getCheckpointConfig().setCheckpointStorage("file:///tmp/inlet-checkpoints");
        assertThat(Pipeline.jobManagerCheckpointStorageWarning(onEnv)).isNull();

        StreamExecutionEnvironment explicitlyInMemory = env(true);
        explicitlyInMemory.getCheckpointConfig().setCheckpointStorage(new JobManagerCheckpointStorage());
        assertThat(Pipeline.jobManagerCheckpointStorageWarning(explicitlyInMemory))
                .isNotNull();
    }

    @Test
    void rejectsATableWithoutPrimaryKeyForAnUpsertSink() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .sink(CollectingChangeSink.builder()
                                .name("lake")
                                .upsert(true)
                                .build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining(
                        "Sink #1 (lake) writes upserts and deletes by primary key, but table shop.audit_log has none")
                .hasMessageContaining("give the table a primary key in the source")
                .hasMessageNotContaining("shop.orders has none");
    }

    @Test
    void aProjectionThatDropsTheKeyLeavesTheTableWithoutOne() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .transform(ProjectionTransform.builder()
                                .sourceTable("shop\\.customers")
                                .projection("name, email")
                                .build())
                        .transform(FilterTransform.builder()
                                .sourceTable("shop\\.(orders|customers)")
                                .filter("id > 0")
                                .build())
                        .sink(CollectingChangeSink.builder().upsert(true).build())
                        .build())
                .hasMessageContaining("Transform #2 (filter): filter: the column 'id' does not exist in table"
                        + " shop.customers (columns: name, email)");
    }

    @Test
    void rejectsTransformsNamingColumnsThatDoNotExist() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .transform(FilterTransform.builder()
                                .sourceTable("shop\\.orders")
                                .filter("total > 100")
                                .build())
                        .sink(CollectingChangeSink.builder().build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining(
                        "Transform #1 (filter): filter: the column 'total' does not exist in table shop.orders")
                .hasMessageContaining("(columns: id, customer, amount, status, created)")
                .hasMessageContaining("Fix the condition, or narrow 'source-table'");
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .transform(ProjectionTransform.builder()
                                .projection("id, name AS customer_name")
                                .build())
                        .sink(CollectingChangeSink.builder().build())
                        .build())
                .hasMessageContaining("projection: the column 'id' does not exist in table shop.audit_log")
                .hasMessageContaining("projection: the column 'name' does not exist in table shop.orders");
    }

    @Test
    void rejectsATableExpressionThatMatchesNothing() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .transform(RouteTransform.builder()
                                .route("inventory\\.(.*)", "lake.$1")
                                .build())
                        .sink(CollectingChangeSink.builder().build())
                        .build())
                .hasMessageContaining("'source-table' = 'inventory\\.(.*)' matches none of the tables [shop.orders,"
                        + " shop.customers, shop.audit_log]");
    }

    @Test
    void rejectsTwoSinksWritingTheSameTable() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .sink(CollectingChangeSink.builder()
                                .name("a")
                                .target("warehouse")
                                .build())
                        .sink(CollectingChangeSink.builder()
                                .name("b")
                                .target("warehouse")
                                .build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Sink #1 (a) and Sink #2 (b) both write the table warehouse:shop.orders")
                .hasMessageContaining("point one of them at another table");
    }

    @Test
    void rejectsRoutingTablesOfDifferentShapesIntoOne() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .transform(RouteTransform.builder()
                                .route("shop\\.(orders|customers)", "lake.merged")
                                .build())
                        .sink(CollectingChangeSink.builder().build())
                        .build())
                .hasMessageContaining("route: cannot merge shop.customers into lake.merged together with shop.orders:"
                        + " their columns differ");
    }

    @Test
    void rejectsAMetadataColumnThatClashesWithAColumn() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .transform(MetadataTransform.builder()
                                .columns("_op, _source_ts AS created")
                                .build())
                        .sink(CollectingChangeSink.builder().build())
                        .build())
                .hasMessageContaining("metadata: table shop.orders already has a column 'created'")
                .hasMessageContaining("'_source_ts AS other_name'");
    }

    @Test
    void reportsEveryProblemAtOnce() {
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(false))
                        .source(source())
                        .sink(CollectingChangeSink.builder()
                                .name("a")
                                .upsert(true)
                                .target("t")
                                .build())
                        .sink(CollectingChangeSink.builder()
                                .name("b")
                                .target("t")
                                .build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageStartingWith("The pipeline has 5 problems:")
                .hasMessageContaining("1. Checkpointing is off")
                .hasMessageContaining("has none")
                .hasMessageContaining("both write the table t:shop.audit_log");
    }

    @Test
    void aSinkProblemCausedByAnExceptionKeepsItInTheStackTrace() {
        IOException unreachable = new IOException("catalog unreachable");
        IOException refused = new IOException("refused");
        ChangeSink failing = new ChangeSink() {
            @Override
            public String name() {
                return "failing";
            }

            @Override
            public List<String> targetTables(List<TableDescriptor> tables) {
                throw new InletValidationException("The catalog failed: " + refused, refused);
            }

            @Override
            public void validate(List<TableDescriptor> tables) {
                throw new InletValidationException("The catalog failed: " + unreachable, unreachable);
            }

            @Override
            public void addSink(DataStream<ChangeEvent> stream, SinkContext context) {}
        };
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env(true))
                        .source(source())
                        .sink(failing)
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Sink #1 (failing): The catalog failed: java.io.IOException: catalog unreachable")
                .hasCause(unreachable)
                .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(refused));
    }

    @Test
    void rejectsAPipelineWithoutSourceOrSink() {
        assertThatThrownBy(() -> Pipeline.builder().environment(env(true)).build())
                .hasMessageContaining("The pipeline has no source")
                .hasMessageContaining("The pipeline has no sink");
        assertThatThrownBy(() -> Pipeline.builder().source(source()).source(source()))
                .hasMessageContaining("A pipeline has one source");
    }

    @Test
    void buildsFromIdentifiersAndOptions() {
        String dataId = source().register();
        Pipeline p = Pipeline.builder()
                .environment(env(true))
                .source("values", Map.of("data-id", dataId))
                .transform("route", Map.of("source-table", "shop\\.(.*)", "sink-table", "lake.$1"))
                .transform("metadata", Map.of("metadata-columns", "_op"))
                .sink("collect", Map.of("sink-id", "x"))
                .build();
        assertThat(p.sinkTables())
                .extracting(t -> t.tableId().identifier())
                .containsExactly("lake.orders", "lake.customers", "lake.audit_log");
        assertThat(p.sinkTables().get(0).columnNames()).endsWith("_op");
    }
}
