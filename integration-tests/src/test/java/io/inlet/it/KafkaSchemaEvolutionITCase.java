package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code schema-change.behavior} = {@code evolve} on the Kafka source: a real Debezium connector
 * (embedded) captures MariaDB into a topic of two partitions, read by two source readers, each of which
 * meets every new writer schema on its own. After each {@code ALTER TABLE}, with changes before and
 * after it on rows of both partitions, the Iceberg table (read with Iceberg's reader) equals MariaDB
 * value for value. The job fails once, injected at a row of the new shape after the sink committed the
 * added column; it recovers from its last checkpoint and every change is applied once (the table has
 * one schema per change).
 */
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class KafkaSchemaEvolutionITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static final LogicalType INT = new IntType(false);

    @Test
    void newWriterSchemasOnTwoPartitionsFlowIntoIcebergAcrossAFailureRightAfterAChange(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        String topic = server + "." + db + ".t";
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, name VARCHAR(20), gone VARCHAR(10))",
                "INSERT INTO t VALUES (1, 10, 'one', 'g1'), (2, 20, 'two', 'g2'), (3, 30, 'three', 'g3'),"
                        + " (4, 40, 'four', 'g4')");
        kafka.createTopics(2, topic);
        try (DebeziumProducer dbz = DebeziumProducer.start(mysql, db, server, kafka, registry)) {
            dbz.awaitProduced(4, Duration.ofSeconds(60));
            // One restart, for the injected failure: any other failure fails the job, and the test with it.
            StreamExecutionEnvironment env = Jobs.checkpointingEnvironment(new Configuration(), 2);
            env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1, 100));
            // Column 2 is 'note' once it is added after 'v' (before, 'name' holds no such value).
            FailOnceTransform failure = new FailOnceTransform("t", 2, "first");
            Pipeline pipeline = Pipeline.builder()
                    .environment(env)
                    .source(KafkaSources.debezium(kafka, registry, topic)
                            .schemaChangeBehavior(SchemaChangeBehavior.EVOLVE)
                            .build())
                    .transform(failure)
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build();
            JobClient job = pipeline.executeAsync();
            TableIdentifier id = TableIdentifier.of(db, "t");
            Map<String, LogicalType> columns = new LinkedHashMap<>();
            columns.put("id", INT);
            columns.put("v", INT);
            columns.put("name", new VarCharType(20));
            columns.put("gone", new VarCharType(10));
            try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                    Connection c = mysql.connection(db)) {
                SchemaEvolutionITCase.awaitEqual(job, catalog, id, c, db, columns);

                // ADD COLUMN ... AFTER, with changes of every row around it (the keys spread over both partitions).
                mysql.execute(
                        db,
                        "UPDATE t SET v = 11 WHERE id = 1",
                        "ALTER TABLE t ADD COLUMN note VARCHAR(50) NULL AFTER v",
                        "UPDATE t SET note = 'second' WHERE id = 2",
                        "UPDATE t SET v = 31 WHERE id = 3");
                // Once the sink has committed the new schema, the job fails at the next row of the new shape: the
                // restored job meets the change again (or restores past it) and must not apply it twice.
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (catalog.loadTable(id).schema().findField("note") == null && System.nanoTime() < deadline) {
                    Jobs.assertRunning(job);
                    Thread.sleep(50); // waiting for the sink's schema commit
                }
                assertThat(catalog.loadTable(id).schema().findField("note")).isNotNull();
                mysql.execute(
                        db,
                        "UPDATE t SET note = 'first' WHERE id = 1",
                        "INSERT INTO t VALUES (5, 50, 'fifth', 'five', 'g5')");
                columns = SchemaEvolutionITCase.after(columns, "v", "note", new VarCharType(50));
                SchemaEvolutionITCase.awaitEqual(job, catalog, id, c, db, columns);
                assertThat(failure.fired())
                        .as("the failure injected at the row after ADD COLUMN")
                        .isTrue();

                // INT -> BIGINT, with a value only BIGINT holds.
                mysql.execute(
                        db,
                        "ALTER TABLE t MODIFY v BIGINT NOT NULL",
                        "UPDATE t SET v = 5000000000 WHERE id = 2",
                        "UPDATE t SET v = 5000000001 WHERE id = 4");
                columns.put("v", new BigIntType(false));
                SchemaEvolutionITCase.awaitEqual(job, catalog, id, c, db, columns);

                // DROP COLUMN: the others keep their values.
                mysql.execute(
                        db,
                        "ALTER TABLE t DROP COLUMN gone",
                        "UPDATE t SET name = 'uno' WHERE id = 1",
                        "DELETE FROM t WHERE id = 3",
                        "INSERT INTO t VALUES (6, 60, NULL, 'six')");
                columns.remove("gone");
                SchemaEvolutionITCase.awaitEqual(job, catalog, id, c, db, columns);

                // ADD COLUMN ... DEFAULT: the writer schema carries the default Debezium read from the DDL, and the
                // rows that existed before get it, as in MariaDB; a row inserted after carries its own value.
                mysql.execute(
                        db,
                        "ALTER TABLE t ADD COLUMN status VARCHAR(10) NOT NULL DEFAULT 'new',"
                                + " ADD COLUMN qty INT NOT NULL DEFAULT 7",
                        "INSERT INTO t VALUES (7, 70, NULL, 'seven', 'old', 1)",
                        "UPDATE t SET qty = 2 WHERE id = 2");
                columns.put("status", new VarCharType(10));
                columns.put("qty", INT);
                SchemaEvolutionITCase.awaitEqual(job, catalog, id, c, db, columns);

                Table table = catalog.loadTable(id);
                assertThat(table.schema().identifierFieldNames()).containsExactly("id");
                assertThat(table.properties().keySet()).noneMatch(k -> k.startsWith("inlet.schema-change.backfill."));
                // Created, then ADD, widen, DROP, ADD: each applied once though both readers met each and the first
                // ADD was read again after the failure.
                assertThat(table.schemas()).hasSize(5);
                assertThat(job.getJobStatus().get(30, TimeUnit.SECONDS)).isEqualTo(JobStatus.RUNNING);
            } finally {
                Jobs.cancelIfRunning(job);
            }
        }
    }
}
