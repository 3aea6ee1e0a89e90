package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The changes Flink's own debezium-avro-confluent format writes ({@link FlinkDebeziumFormatITCase})
 * through an Inlet pipeline into Hudi MERGE_ON_READ leave each table in the changes' final state.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith({KafkaExtension.class, SchemaRegistryExtension.class})
class FlinkDebeziumFormatToHudiITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    @Test
    void flinksFormatLandsInHudiInTheFinalState(KafkaBroker kafka, SchemaRegistry registry, @TempDir Path lake)
            throws Exception {
        String[] topics = FlinkDebeziumFormatITCase.produce(kafka, registry);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(500);
        HudiSink sink = HudiSink.builder()
                .path(lake.toUri().toString())
                .option("write.tasks", "1")
                .option("hoodie.embed.timeline.server", "false")
                .build();
        // Bounded: the job ends after the last record, and the final checkpoint commits it to Hudi.
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source(FlinkDebeziumFormatITCase.source(kafka, registry, topics)
                        .build())
                .sink(sink)
                .build();
        pipeline.execute();

        for (TableDescriptor t : pipeline.sinkTables()) {
            List<Row> changes = t.tableId().table().equals("orders")
                    ? FlinkDebeziumFormatITCase.orderChanges()
                    : FlinkDebeziumFormatITCase.measureChanges();
            List<Row> rows = HudiReads.read(
                    lake.resolve(t.tableId().database()).resolve(t.tableId().table()),
                    sink.writeRowType(t),
                    t.primaryKey());
            // Flink's format writes no source block, so every version has the unknown source time 0,
            // and of equal ordering values the later change must win.
            assertThat(Canonical.flink(rows, sink.writeRowType(t).getFieldNames(), HudiOrdering.COLUMNS))
                    .as("Hudi table %s", t.tableId())
                    .containsExactlyElementsOf(
                            Canonical.flink(FlinkDebeziumFormatITCase.finalState(changes), t.columnNames()));
        }
    }
}
