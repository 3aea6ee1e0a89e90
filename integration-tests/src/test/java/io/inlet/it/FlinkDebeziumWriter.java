package io.inlet.it;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Debezium Avro on Kafka written by code we did not write: Flink's own {@code debezium-avro-confluent}
 * format (values) and {@code avro-confluent} (keys), through Flink's Kafka SQL connector, against
 * the real registry; and the same format reading a topic back, as the reference decoder.
 */
final class FlinkDebeziumWriter {

    private FlinkDebeziumWriter() {}

    /** The WITH clause of a Kafka table in Debezium Avro with an Avro key. */
    static String with(String topic, String bootstrap, String registry, String keyFields, String extra) {
        return " WITH ('connector' = 'kafka', 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + bootstrap
                + "',"
                + " 'key.format' = 'avro-confluent', 'key.avro-confluent.url' = '" + registry + "', 'key.fields' = '"
                + keyFields + "',"
                + " 'value.format' = 'debezium-avro-confluent', 'value.debezium-avro-confluent.url' = '" + registry
                + "',"
                + " 'value.fields-include' = 'ALL'" + extra + ")";
    }

    /**
     * Writes a changelog (rows with their kinds) to the topic: +I as op c, -U and -D as op d, +U as
     * op c, as Flink's format encodes them.
     *
     * @param columns the columns as in SQL DDL, e.g. "id BIGINT NOT NULL, name STRING"
     */
    static void write(
            String topic,
            String bootstrap,
            String registry,
            String columns,
            String keyFields,
            TypeInformation<Row> rowType,
            Schema schema,
            List<Row> changes)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        // Pass the changelog through as it is, without the planner's upsert materializer.
        t.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        t.executeSql("CREATE TABLE sink_table (" + columns + ", PRIMARY KEY (" + keyFields + ") NOT ENFORCED)"
                + with(topic, bootstrap, registry, keyFields, ""));
        DataStream<Row> stream = env.fromCollection(changes, rowType);
        Table table = t.fromChangelogStream(stream, schema);
        table.executeInsert("sink_table").await();
    }

    /** Reads the whole topic with Flink's debezium-avro-confluent deserializer: the rows and their kinds. */
    static List<Row> read(String topic, String bootstrap, String registry, String columns, String keyFields)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.executeSql("CREATE TABLE source_table (" + columns + ")"
                + with(
                        topic,
                        bootstrap,
                        registry,
                        keyFields,
                        ", 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' ="
                                + " 'latest-offset', 'properties.group.id' = 'flink-reference'"));
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it =
                t.executeSql("SELECT * FROM source_table").collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }
}
