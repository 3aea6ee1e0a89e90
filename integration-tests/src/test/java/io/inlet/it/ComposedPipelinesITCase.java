package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SPIs compose: the Debezium Kafka source feeds the Iceberg sink ({@code MySqlToHudiITCase}: the
 * MySQL source the Hudi sink).
 */
@Tag("every-flink-line") // run on Flink 1.18 too (see the README, Run the tests)
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class ComposedPipelinesITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @Test
    void debeziumOnKafkaIntoIceberg(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        try (DebeziumProducer dbz = KafkaSources.shop(mysql, db, server, kafka, registry)) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(500);
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(KafkaSources.shopSource(server, kafka, registry))
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build();
            JobClient job = pipeline.executeAsync();
            try (HadoopCatalog catalog = new HadoopCatalog(
                            new org.apache.hadoop.conf.Configuration(false),
                            warehouse.toUri().toString());
                    Connection c = mysql.connection(db)) {
                awaitIcebergEqual(job, c, db, catalog, pipeline.sinkTables());
                // Debezium delivers at least once: after its own restart it resends changes. The sink
                // must apply them idempotently (write-mode auto chooses upsert for this source).
                assertThat(resend(kafka, server + "." + db + ".orders")).isGreaterThanOrEqualTo(4);
                mysql.execute(
                        db,
                        "UPDATE orders SET status = 'cancelled' WHERE id = 4",
                        "DELETE FROM order_items WHERE order_id = 1 AND line_no = 1",
                        "INSERT INTO all_types VALUES " + ShopDatabase.allTypesLowRow(9),
                        "UPDATE orders SET id = 44 WHERE id = 4");
                awaitIcebergEqual(job, c, db, catalog, pipeline.sinkTables());
            } finally {
                Jobs.cancelAndAwait(job);
            }
        }
    }

    private static void awaitIcebergEqual(
            JobClient job, Connection c, String db, HadoopCatalog catalog, List<TableDescriptor> tables)
            throws Exception {
        long deadline = System.nanoTime() + KafkaSources.SHOP_TIMEOUT.toNanos();
        for (TableDescriptor t : tables) {
            TableIdentifier id = TableIdentifier.of(db, t.tableId().table());
            List<String> expected = Canonical.mysqlAs(c, db, t.tableId().table(), t.toRowType());
            List<String> actual = List.of();
            while (System.nanoTime() < deadline) {
                Jobs.assertRunning(job);
                if (catalog.tableExists(id)) {
                    actual = Canonical.iceberg(catalog.loadTable(id));
                    if (actual.equals(expected)) {
                        break;
                    }
                }
                Thread.sleep(250); // polling for the next commit; the assertion below decides
            }
            assertThat(actual).as("Iceberg table %s", id).containsExactlyElementsOf(expected);
        }
    }

    /** Produces every record of the topic once more, bytes as they are, as Debezium does after a restart. */
    static int resend(KafkaBroker kafka, String topic) throws Exception {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        List<ProducerRecord<byte[], byte[]>> again = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    again.add(new ProducerRecord<>(topic, r.partition(), r.key(), r.value()));
                }
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<byte[], byte[]> r : again) {
                producer.send(r).get();
            }
        }
        return again.size();
    }
}
