package io.inlet.examples;

import io.inlet.testing.FlinkDistribution;
import io.inlet.testing.JobJar;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The serverless job jar: generated Debezium change events through the real Kafka broker and schema
 * registry into Iceberg, run with {@code flink run} on a Flink runtime without Hadoop.
 */
@ExtendWith({KafkaExtension.class, SchemaRegistryExtension.class})
class OrdersGeneratorJobJarITCase {

    private static final int EVENTS = 200;

    @Test
    @Tag("every-flink-line") // the packaging check runs on Flink 1.18 too (see the README, Run the tests)
    void holdsGeneratorKafkaAndIcebergAndNothingOfFlinkOrPlainHadoop() {
        JobJar jar = JobJar.ofThisModule();
        assertThat(jar.deployabilityProblems("io.inlet.examples.OrdersGeneratorToIceberg"))
                .isEmpty();
        assertThat(jar.icebergCatalogProblems()).isEmpty();
        assertThat(jar.services("io.inlet.core.spi.ChangeSourceFactory"))
                .contains("io.inlet.source.kafka.DebeziumKafkaSourceFactory");
        assertThat(jar.services("io.inlet.core.spi.ChangeSinkFactory"))
                .contains("io.inlet.sink.iceberg.IcebergSinkFactory");
        // The generator: in the jar up to Flink 1.18; from 1.19 on the distribution has it (parent-first).
        boolean distributionHasIt =
                FlinkDistribution.classPath().stream().anyMatch(e -> e.contains("flink-connector-datagen"));
        assertThat(jar.has("org/apache/flink/connector/datagen/source/DataGeneratorSource.class"))
                .isEqualTo(!distributionHasIt);
        assertThat(jar.has("org/apache/flink/connector/kafka/sink/KafkaSink.class"))
                .isTrue();
        assertThat(jar.has("org/apache/iceberg/aws/glue/GlueCatalog.class")).isTrue();
    }

    @Test
    void generatedChangesReachIcebergThroughKafkaOnAFlinkWithoutHadoop(
            KafkaBroker kafka, SchemaRegistry registry, @TempDir Path work) throws Exception {
        String topic = TestNames.unique("gen") + ".shop.orders";
        Path warehouse = work.resolve("warehouse");
        List<String> expected = DebeziumOrders.finalState(EVENTS).values().stream()
                .map(OrdersGeneratorJobJarITCase::row)
                .sorted()
                .collect(Collectors.toList());
        try (FlinkDistribution.Run run = FlinkDistribution.run(
                        JobJar.ofThisModule().path(),
                        Map.of(),
                        "--generator.topic",
                        topic,
                        "--generator.rows",
                        String.valueOf(EVENTS),
                        "--generator.rows-per-second",
                        "2000",
                        "--source.properties.bootstrap.servers",
                        kafka.bootstrapServers(),
                        "--source.debezium-avro-confluent.url",
                        registry.ccompatUrl(),
                        "--sink.warehouse",
                        warehouse.toUri().toString(),
                        "--pipeline.checkpoint-interval",
                        "1 s",
                        "--pipeline.parallelism",
                        "2");
                HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString())) {
            TableIdentifier id = TableIdentifier.of("shop", "orders");
            List<String> actual = List.of();
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (System.nanoTime() < deadline) {
                assertThat(run.running())
                        .as("flink run is still running. %s", run.describe())
                        .isTrue();
                if (catalog.tableExists(id)) {
                    actual = rows(catalog, id);
                    if (actual.equals(expected)) {
                        break;
                    }
                }
                Thread.sleep(500); // polling for the next checkpoint's commit; the assertion below decides
            }
            assertThat(actual)
                    .as("Iceberg table shop.orders. %s", run.describe())
                    .isEqualTo(expected);
            assertThat(run.output())
                    .contains("No Hadoop Dependency available")
                    .contains("write-mode auto chose upsert (the source may deliver a change more than once)")
                    .doesNotContain(" ERROR ");
        }
    }

    private static String row(DebeziumOrders.Order o) {
        return o.id + "|" + o.customer + "|" + o.amount.setScale(2).toPlainString() + "|" + o.status + "|"
                + LocalDateTime.ofInstant(Instant.ofEpochMilli(o.updatedAtMs), ZoneOffset.UTC);
    }

    private static List<String> rows(HadoopCatalog catalog, TableIdentifier id) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(catalog.loadTable(id)).build()) {
            for (Record r : records) {
                rows.add(r.getField("id") + "|" + r.getField("customer") + "|"
                        + ((BigDecimal) r.getField("amount")).toPlainString() + "|" + r.getField("status") + "|"
                        + r.getField("updated_at"));
            }
        }
        rows.sort(null);
        return rows;
    }
}
