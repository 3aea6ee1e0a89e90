package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.TestRows;
import io.inlet.source.kafka.DebeziumKafkaSource;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's own debezium-avro-confluent format writes inserts, updates and deletes of two tables to a
 * real broker against a real registry, plus Debezium-style tombstones; Inlet's decoder reads each
 * topic to exactly the rows Flink's own deserializer reads, value for value and kind for kind, and a
 * pipeline into Hudi MERGE_ON_READ leaves each table in the changes' final state.
 */
@ExtendWith({KafkaExtension.class, SchemaRegistryExtension.class})
class FlinkDebeziumFormatITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    static final String ORDERS_COLUMNS =
            "id BIGINT NOT NULL, customer STRING, amount DECIMAL(10, 2), status STRING, created TIMESTAMP(3)";

    static final String MEASURES_COLUMNS =
            "id INT NOT NULL, flag BOOLEAN, small SMALLINT, big DECIMAL(38, 10), f FLOAT, d"
                    + " DOUBLE, bin BYTES, `day` DATE," + " tod TIME(3), ts3 TIMESTAMP(3), note STRING";

    static List<Row> orderChanges() {
        List<Row> rows = new ArrayList<>();
        for (long i = 1; i <= 6; i++) {
            rows.add(Row.ofKind(
                    RowKind.INSERT,
                    i,
                    "c" + i + " ✓",
                    new BigDecimal(i + ".25"),
                    "new",
                    LocalDateTime.parse("2024-01-01T00:00:00.123").plusDays(i)));
        }
        rows.add(Row.ofKind(
                RowKind.UPDATE_BEFORE,
                2L,
                "c2 ✓",
                new BigDecimal("2.25"),
                "new",
                LocalDateTime.parse("2024-01-03T00:00:00.123")));
        rows.add(Row.ofKind(
                RowKind.UPDATE_AFTER,
                2L,
                "c2 ✓",
                new BigDecimal("-2.50"),
                "paid",
                LocalDateTime.parse("2024-01-03T00:00:00.123")));
        rows.add(Row.ofKind(
                RowKind.DELETE,
                3L,
                "c3 ✓",
                new BigDecimal("3.25"),
                "new",
                LocalDateTime.parse("2024-01-04T00:00:00.123")));
        rows.add(Row.ofKind(RowKind.INSERT, 7L, null, null, null, null));
        return rows;
    }

    static List<Row> measureChanges() {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.ofKind(
                RowKind.INSERT,
                1,
                true,
                (short) -32768,
                new BigDecimal("1234567890123456789012345678.0123456789"),
                3.14f,
                -1e-300,
                new byte[] {0, 1, -1},
                LocalDate.of(1969, 12, 31),
                LocalTime.parse("23:59:59.999"),
                LocalDateTime.parse("1900-01-01T00:00:00.123"),
                "😀"));
        rows.add(Row.ofKind(
                RowKind.INSERT,
                2,
                false,
                (short) 0,
                new BigDecimal("-0.0000000001"),
                0.0f,
                0.0,
                new byte[0],
                LocalDate.of(2024, 2, 29),
                LocalTime.MIDNIGHT,
                LocalDateTime.parse("2038-01-19T03:14:07.999"),
                ""));
        rows.add(Row.ofKind(
                RowKind.UPDATE_BEFORE,
                1,
                true,
                (short) -32768,
                new BigDecimal("1234567890123456789012345678.0123456789"),
                3.14f,
                -1e-300,
                new byte[] {0, 1, -1},
                LocalDate.of(1969, 12, 31),
                LocalTime.parse("23:59:59.999"),
                LocalDateTime.parse("1900-01-01T00:00:00.123"),
                "😀"));
        rows.add(Row.ofKind(RowKind.UPDATE_AFTER, 1, null, null, null, null, null, null, null, null, null, "emptied"));
        rows.add(Row.ofKind(
                RowKind.DELETE,
                2,
                false,
                (short) 0,
                new BigDecimal("-0.0000000001"),
                0.0f,
                0.0,
                new byte[0],
                LocalDate.of(2024, 2, 29),
                LocalTime.MIDNIGHT,
                LocalDateTime.parse("2038-01-19T03:14:07.999"),
                ""));
        return rows;
    }

    static TypeInformation<Row> ordersType() {
        return Types.ROW_NAMED(
                new String[] {"id", "customer", "amount", "status", "created"},
                Types.LONG,
                Types.STRING,
                Types.BIG_DEC,
                Types.STRING,
                Types.LOCAL_DATE_TIME);
    }

    static Schema ordersSchema() {
        return Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("customer", DataTypes.STRING())
                .column("amount", DataTypes.DECIMAL(10, 2))
                .column("status", DataTypes.STRING())
                .column("created", DataTypes.TIMESTAMP(3))
                .build();
    }

    static TypeInformation<Row> measuresType() {
        return Types.ROW_NAMED(
                new String[] {"id", "flag", "small", "big", "f", "d", "bin", "day", "tod", "ts3", "note"},
                Types.INT,
                Types.BOOLEAN,
                Types.SHORT,
                Types.BIG_DEC,
                Types.FLOAT,
                Types.DOUBLE,
                Types.PRIMITIVE_ARRAY(Types.BYTE),
                Types.LOCAL_DATE,
                Types.LOCAL_TIME,
                Types.LOCAL_DATE_TIME,
                Types.STRING);
    }

    static Schema measuresSchema() {
        return Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("flag", DataTypes.BOOLEAN())
                .column("small", DataTypes.SMALLINT())
                .column("big", DataTypes.DECIMAL(38, 10))
                .column("f", DataTypes.FLOAT())
                .column("d", DataTypes.DOUBLE())
                .column("bin", DataTypes.BYTES())
                .column("day", DataTypes.DATE())
                .column("tod", DataTypes.TIME(3))
                .column("ts3", DataTypes.TIMESTAMP(3))
                .column("note", DataTypes.STRING())
                .build();
    }

    /** Writes both tables with Flink's format and a tombstone after each delete; returns the topics. */
    static String[] produce(KafkaBroker kafka, SchemaRegistry registry) throws Exception {
        String server = TestNames.unique("flink");
        String orders = server + ".shop.orders";
        String measures = server + ".shop.measures";
        kafka.createTopics(1, orders, measures);
        FlinkDebeziumWriter.write(
                orders,
                kafka.bootstrapServers(),
                registry.ccompatUrl(),
                ORDERS_COLUMNS,
                "id",
                ordersType(),
                ordersSchema(),
                orderChanges());
        FlinkDebeziumWriter.write(
                measures,
                kafka.bootstrapServers(),
                registry.ccompatUrl(),
                MEASURES_COLUMNS,
                "id",
                measuresType(),
                measuresSchema(),
                measureChanges());
        tombstoneAfterDeletes(kafka, orders);
        tombstoneAfterDeletes(kafka, measures);
        return new String[] {orders, measures};
    }

    /** Debezium follows each delete with a tombstone of the same key for log compaction: so do we. */
    static void tombstoneAfterDeletes(KafkaBroker kafka, String topic) throws Exception {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, TestNames.unique("g"));
        List<byte[]> keys = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int seen = 0;
            while (System.nanoTime() < deadline && seen < 5) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    seen++;
                    keys.add(r.key());
                }
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, keys.get(keys.size() - 1), null))
                    .get();
        }
    }

    static DebeziumKafkaSource.Builder source(KafkaBroker kafka, SchemaRegistry registry, String... topics) {
        return KafkaSources.debezium(kafka, registry, topics).boundedMode("latest-offset");
    }

    /** Kind and values of every event of a table, in order. */
    static List<String> inlet(List<ChangeEvent> events, TableDescriptor t) {
        return events.stream()
                .filter(e -> e.tableId().equals(t.tableId()))
                .map(e -> e.kind().shortString() + " "
                        + Canonical.flink(
                                        List.of(Row.of(
                                                TestRows.values(t, e.row()).toArray())),
                                        t.columnNames())
                                .get(0))
                .collect(Collectors.toList());
    }

    static List<String> flink(List<Row> rows, List<String> names) {
        return rows.stream()
                .map(r -> r.getKind().shortString() + " "
                        + Canonical.flink(List.of(r), names).get(0))
                .collect(Collectors.toList());
    }

    @Test
    void inletDecodesWhatFlinksOwnDeserializerDecodes(KafkaBroker kafka, SchemaRegistry registry) throws Exception {
        String[] topics = produce(kafka, registry);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        CollectingChangeSink sink = CollectingChangeSink.builder().build();
        Pipeline pipeline = Pipeline.builder()
                .environment(env)
                .source(source(kafka, registry, topics).build())
                .sink(sink)
                .build();
        pipeline.execute();

        TableDescriptor orders = pipeline.sinkTables().stream()
                .filter(t -> t.tableId().table().equals("orders"))
                .findFirst()
                .get();
        TableDescriptor measures = pipeline.sinkTables().stream()
                .filter(t -> t.tableId().table().equals("measures"))
                .findFirst()
                .get();
        assertThat(orders.primaryKey()).containsExactly("id");
        assertThat(orders.toRowType().asSummaryString())
                .isEqualTo("ROW<`id` BIGINT NOT NULL, `customer` STRING, `amount` DECIMAL(10, 2), `status`"
                        + " STRING, `created` TIMESTAMP(3)> NOT NULL");

        List<Row> flinkOrders = FlinkDebeziumWriter.read(
                topics[0], kafka.bootstrapServers(), registry.ccompatUrl(), ORDERS_COLUMNS, "id");
        List<Row> flinkMeasures = FlinkDebeziumWriter.read(
                topics[1], kafka.bootstrapServers(), registry.ccompatUrl(), MEASURES_COLUMNS, "id");
        assertThat(flinkOrders).hasSize(10);
        assertThat(inlet(sink.committed(), orders)).containsExactlyElementsOf(flink(flinkOrders, orders.columnNames()));
        assertThat(inlet(sink.committed(), measures))
                .containsExactlyElementsOf(flink(flinkMeasures, measures.columnNames()));
    }

    /** The rows a changelog leaves behind, keyed by its first field. */
    static List<Row> finalState(List<Row> changes) {
        Map<Object, Row> rows = new LinkedHashMap<>();
        for (Row r : changes) {
            if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                Row copy = Row.copy(r);
                copy.setKind(RowKind.INSERT);
                rows.put(r.getField(0), copy);
            } else {
                rows.remove(r.getField(0));
            }
        }
        return new ArrayList<>(rows.values());
    }
}
