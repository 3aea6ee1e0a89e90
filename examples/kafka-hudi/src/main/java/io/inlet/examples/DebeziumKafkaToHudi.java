package io.inlet.examples;

import java.util.Map;

/**
 * Job jar entry point: the topics a Debezium connector writes (Avro in the Confluent wire format,
 * schemas in a Confluent-compatible registry) into Hudi MERGE_ON_READ tables, one per topic.
 * Settings as in {@link InletJob}, with {@code source.type = debezium-kafka} and {@code sink.type =
 * hudi}; the options are those of the {@code debezium-kafka} source and the {@code hudi} sink.
 *
 * <pre>{@code
 * flink run inlet-examples-kafka-hudi-0.1.0-job.jar \
 *     --source.properties.bootstrap.servers kafka:9092 --source.topic-pattern 'dbserver1\.inventory\..*' \
 *     --source.debezium-avro-confluent.url http://registry:8081 --source.properties.group.id inlet-hudi \
 *     --sink.path hdfs://namenode:8020/lake/hudi --sink.compaction.delta_commits 5
 * }</pre>
 */
public final class DebeziumKafkaToHudi {

    private DebeziumKafkaToHudi() {}

    public static void main(String[] args) throws Exception {
        InletJob.run(
                args,
                Map.of(
                        "source.type",
                        "debezium-kafka",
                        "sink.type",
                        "hudi",
                        "pipeline.name",
                        "inlet: debezium-kafka to hudi"));
    }
}
