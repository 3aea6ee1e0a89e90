package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.mysql.MySqlCdcSource;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The SPIs compose: the Debezium Kafka source feeds the Iceberg sink, the MySQL source the Hudi sink. */
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class ComposedPipelinesITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @Test
    void debeziumOnKafkaIntoIceberg(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        try (DebeziumProducer dbz = DebeziumKafkaToHudiITCase.debezium(mysql, db, server, kafka, registry)) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(500);
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(DebeziumKafkaToHudiITCase.source(server, kafka, registry))
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

    @Test
    void mysqlIntoHudi(MariaDbServer mysql, @TempDir Path lake) throws Exception {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1000);
        HudiSink sink = DebeziumKafkaToHudiITCase.hudi(lake).build();
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source(MySqlCdcSource.builder()
                        .hostname(mysql.host())
                        .port(mysql.port())
                        .username(mysql.rootUser())
                        .password(mysql.rootPassword())
                        .databaseList(db)
                        .build())
                .sink(sink)
                .build();
        JobClient job = pipeline.executeAsync();
        try (Connection c = mysql.connection(db)) {
            DebeziumKafkaToHudiITCase.awaitEqual(job, c, db, lake, sink, pipeline.sinkTables());
            mysql.execute(
                    db,
                    "START TRANSACTION",
                    "DELETE FROM orders WHERE id = 2",
                    "INSERT INTO orders (id, customer, amount, status, note, created) VALUES (2,"
                            + " 'bob again', 2.00, 'new', NULL, '2024-04-04 04:04:04.444')",
                    "COMMIT",
                    "UPDATE all_types SET c_int = -1, c_time6 = '01:02:03.004000' WHERE id = 1",
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(7));
            DebeziumKafkaToHudiITCase.awaitEqual(job, c, db, lake, sink, pipeline.sinkTables());
            DebeziumKafkaToHudiITCase.awaitCompaction(job, lake.resolve(db).resolve("orders"));
        } finally {
            Jobs.cancelAndAwait(job);
        }

        // The tables Hudi wrote are checked before a new pipeline writes them again.
        DebeziumKafkaToHudiITCase.hudi(lake).build().validate(pipeline.sinkTables());
        assertThatThrownBy(() -> DebeziumKafkaToHudiITCase.hudi(lake)
                        .tableType("COPY_ON_WRITE")
                        .build()
                        .validate(pipeline.sinkTables()))
                .hasMessageContaining(
                        "The existing Hudi table at " + lake.toUri().toString().replaceAll("/+$", "") + "/" + db
                                + "/orders is MERGE_ON_READ, not COPY_ON_WRITE");
        assertThatThrownBy(() -> DebeziumKafkaToHudiITCase.hudi(lake)
                        .partitionFields(db + ".orders", "status")
                        .build()
                        .validate(pipeline.sinkTables()))
                .hasMessageContaining("/orders is partitioned by [], the sink would partition by [status]");
        TableDescriptor orders = pipeline.sinkTables().stream()
                .filter(t -> t.tableId().table().equals("orders"))
                .findFirst()
                .get();
        TableDescriptor retyped = orders.toBuilder()
                .columns(orders.columns().stream()
                        .map(col -> col.name().equals("amount")
                                ? col.withType(org.apache.flink.table.api.DataTypes.DOUBLE())
                                : col)
                        .collect(java.util.stream.Collectors.toList()))
                .build();
        assertThatThrownBy(() -> DebeziumKafkaToHudiITCase.hudi(lake)
                        .precombineField("created")
                        .build()
                        .validate(List.of(retyped)))
                .hasMessageContaining("orders versions by '_source_position', the sink by 'created'")
                .hasMessageContaining(
                        "has the columns [id, customer, amount, status, note, created, _source_position]");
    }

    private static void awaitIcebergEqual(
            JobClient job, Connection c, String db, HadoopCatalog catalog, List<TableDescriptor> tables)
            throws Exception {
        long deadline = System.nanoTime() + DebeziumKafkaToHudiITCase.TIMEOUT.toNanos();
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
