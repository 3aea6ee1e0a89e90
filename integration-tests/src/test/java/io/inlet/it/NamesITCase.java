package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.transform.FilterTransform;
import io.inlet.sink.iceberg.WriteMode;
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
import java.util.concurrent.Callable;

/**
 * Names that parsers and paths trip over: a table named {@code line-items}, columns named {@code
 * order}, {@code key}, {@code desc} and {@code select}, a mixed-case column, from MySQL and from
 * Debezium on Kafka into Iceberg and Hudi (in the Flink 1.17 build), each read back with its own reader.
 */
@Tag("hudi") // mirrors into Hudi too on 1.17: the Hudi execution there (integration-tests/pom.xml)
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class NamesITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static final String TABLE = "line-items";

    private static void createTable(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "CREATE TABLE `" + TABLE + "` (`order` INT NOT NULL, `key` VARCHAR(16) NOT NULL, `desc` VARCHAR(64),"
                        + " `select` DECIMAL(8,2), `LineTotal` INT, PRIMARY KEY (`order`, `key`))",
                "INSERT INTO `" + TABLE + "` VALUES (1, 'a', 'first', 1.50, 3), (2, 'b', NULL, NULL, NULL)");
    }

    private static void change(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "UPDATE `" + TABLE + "` SET `desc` = 'changed', `LineTotal` = 4 WHERE `order` = 1",
                "INSERT INTO `" + TABLE + "` VALUES (3, 'c', 'third', 3.00, 9)",
                "DELETE FROM `" + TABLE + "` WHERE `order` = 2");
    }

    /** Iceberg, and Hudi where the build has it. */
    private static List<MirrorLake> lakes(Path warehouse, Path lake) {
        List<MirrorLake> lakes = new ArrayList<>(List.of(MirrorLake.iceberg(warehouse, WriteMode.AUTO)));
        MirrorLake.hudi(lake, 2).ifPresent(lakes::add);
        return lakes;
    }

    @Test
    void fromMySqlIntoEveryLake(MariaDbServer mysql, @TempDir Path warehouse, @TempDir Path lake) throws Exception {
        String db = mysql.createDatabase();
        createTable(mysql, db);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        List<MirrorLake> lakes = lakes(warehouse, lake);
        Pipeline.Builder builder = Pipeline.builder()
                .environment(env)
                .source(MySqlOptions.builder(mysql, db, TABLE).build())
                .transform(FilterTransform.builder()
                        .filter("`order` < 100 AND `LineTotal` IS NOT NULL OR `key` = 'b'")
                        .build());
        lakes.forEach(l -> builder.sink(l.sink()));
        run(builder.build(), mysql, db, lakes);
    }

    @Test
    void fromDebeziumOnKafkaIntoEveryLake(
            MariaDbServer mysql,
            KafkaBroker kafka,
            SchemaRegistry registry,
            @TempDir Path warehouse,
            @TempDir Path lake)
            throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        createTable(mysql, db);
        kafka.createTopics(1, server + "." + db + "." + TABLE);
        try (DebeziumProducer dbz = DebeziumProducer.start(mysql, db, server, kafka, registry)) {
            dbz.awaitProduced(2, Duration.ofSeconds(60));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(300);
            List<MirrorLake> lakes = lakes(warehouse, lake);
            Pipeline.Builder builder = Pipeline.builder()
                    .environment(env)
                    .source(KafkaSources.debezium(kafka, registry, server + "." + db + "." + TABLE)
                            .build());
            lakes.forEach(l -> builder.sink(l.sink()));
            run(builder.build(), mysql, db, lakes);
        }
    }

    private static void run(Pipeline pipeline, MariaDbServer mysql, String db, List<MirrorLake> lakes)
            throws Exception {
        TableDescriptor t = pipeline.sinkTables().get(0);
        JobClient job = pipeline.executeAsync();
        try (Connection c = mysql.connection(db)) {
            Callable<List<String>> expected = () -> Canonical.mysqlAs(c, db, TABLE, t.toRowType());
            for (MirrorLake lake : lakes) {
                lake.await(job, t, expected);
            }
            change(mysql, db);
            for (MirrorLake lake : lakes) {
                lake.await(job, t, expected);
            }
        } finally {
            Jobs.cancelAndAwait(job);
        }
    }
}
