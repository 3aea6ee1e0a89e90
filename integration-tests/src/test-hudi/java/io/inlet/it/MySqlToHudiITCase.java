package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

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
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SPIs compose: the MySQL source feeds the Hudi sink, the shop tables of every type end equal to
 * MySQL and compacted, and the tables Hudi wrote are checked before a new pipeline writes them again.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith(MariaDbExtension.class)
class MySqlToHudiITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

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
            HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
            mysql.execute(
                    db,
                    "START TRANSACTION",
                    "DELETE FROM orders WHERE id = 2",
                    "INSERT INTO orders (id, customer, amount, status, note, created) VALUES (2,"
                            + " 'bob again', 2.00, 'new', NULL, '2024-04-04 04:04:04.444')",
                    "COMMIT",
                    "UPDATE all_types SET c_int = -1, c_time6 = '01:02:03.004000' WHERE id = 1",
                    "INSERT INTO all_types VALUES " + ShopDatabase.allTypesRow(7));
            HudiLakes.awaitEqualToMySql(job, c, db, lake, sink, pipeline.sinkTables());
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
}
