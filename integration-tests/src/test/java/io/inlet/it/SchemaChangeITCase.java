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
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A schema change in the source stops the job once, with a message naming the table, the column and
 * the change, before any row of the new shape reaches the lake: no column read as NULL and written
 * over the lake's values, no restart loop (the jobs here may restart a thousand times). With
 * 'schema-change.behavior' = 'ignore-added-columns' an added nullable column is left out and the job
 * goes on, but any other change still stops it.
 */
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class SchemaChangeITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static void createTable(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, note VARCHAR(32))",
                "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two')");
    }

    @Test
    void aDroppedColumnStopsTheJobOnceAndNothingIsOverwrittenWithNull(MariaDbServer mysql, @TempDir Path warehouse)
            throws Exception {
        String db = mysql.createDatabase();
        createTable(mysql, db);
        Pipeline pipeline = MySqlOptions.tableToIceberg(mysql, db, warehouse, Map.of());
        TableDescriptor t = pipeline.sinkTables().get(0);
        JobClient job = pipeline.executeAsync();
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            TableIdentifier id = TableIdentifier.of(db, "t");
            List<String> before = Canonical.mysqlAs(c, db, "t", t.toRowType());
            Lakes.awaitIceberg(job, catalog, id, () -> before);
            mysql.execute(db, "ALTER TABLE t DROP COLUMN note", "UPDATE t SET v = 11 WHERE id = 1");
            Throwable failure = Jobs.awaitFailure(job, Duration.ofSeconds(60));
            assertThat(Jobs.messages(failure))
                    .contains("Table " + db + ".t changed in the source")
                    .contains("column 'note' was dropped")
                    .contains("schema-change.behavior");
            assertThat(Canonical.iceberg(catalog.loadTable(id)))
                    .as("the lake keeps the rows of the old shape")
                    .isEqualTo(before);
        } finally {
            Jobs.cancelIfRunning(job);
        }
    }

    @Test
    void addedColumnsCanBeLeftOutButARetypedColumnStillStops(MariaDbServer mysql, @TempDir Path warehouse)
            throws Exception {
        String db = mysql.createDatabase();
        createTable(mysql, db);
        Pipeline pipeline = MySqlOptions.tableToIceberg(
                mysql, db, warehouse, Map.of("schema-change.behavior", "ignore-added-columns"));
        TableDescriptor t = pipeline.sinkTables().get(0);
        JobClient job = pipeline.executeAsync();
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            TableIdentifier id = TableIdentifier.of(db, "t");
            Lakes.awaitIceberg(job, catalog, id, () -> Canonical.mysqlAs(c, db, "t", t.toRowType()));
            mysql.execute(
                    db,
                    "ALTER TABLE t ADD COLUMN extra INT NULL",
                    "UPDATE t SET v = 12, extra = 7 WHERE id = 1",
                    "INSERT INTO t VALUES (3, 30, 'three', 3)");
            // the table as the pipeline was built: the added column left out
            Lakes.awaitIceberg(job, catalog, id, () -> Canonical.mysqlAs(c, db, "t", t.toRowType()));
            List<String> before = Canonical.iceberg(catalog.loadTable(id));
            mysql.execute(
                    db, "ALTER TABLE t MODIFY COLUMN v BIGINT NOT NULL", "UPDATE t SET v = 3000000000 WHERE id = 2");
            Throwable failure = Jobs.awaitFailure(job, Duration.ofSeconds(60));
            assertThat(Jobs.messages(failure))
                    .contains("Table " + db + ".t changed in the source")
                    .contains("column 'v'")
                    .contains("INT")
                    .contains("BIGINT");
            assertThat(Canonical.iceberg(catalog.loadTable(id))).isEqualTo(before);
        } finally {
            Jobs.cancelIfRunning(job);
        }
    }

    @Test
    void aNewWriterSchemaOnKafkaStopsTheJobOnce(
            MariaDbServer mysql, KafkaBroker kafka, SchemaRegistry registry, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        String topic = server + "." + db + ".t";
        createTable(mysql, db);
        kafka.createTopics(1, topic);
        try (DebeziumProducer dbz = DebeziumProducer.start(mysql, db, server, kafka, registry)) {
            dbz.awaitProduced(2, Duration.ofSeconds(60));
            Pipeline pipeline = Pipeline.builder()
                    .environment(Jobs.restartingEnvironment())
                    .source(KafkaSources.debezium(kafka, registry, topic).build())
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .build();
            TableDescriptor t = pipeline.sinkTables().get(0);
            JobClient job = pipeline.executeAsync();
            try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                    Connection c = mysql.connection(db)) {
                TableIdentifier id = TableIdentifier.of(db, "t");
                List<String> before = Canonical.mysqlAs(c, db, "t", t.toRowType());
                Lakes.awaitIceberg(job, catalog, id, () -> before);
                mysql.execute(
                        db, "ALTER TABLE t ADD COLUMN extra INT NULL", "UPDATE t SET v = 11, extra = 1 WHERE id = 1");
                Throwable failure = Jobs.awaitFailure(job, Duration.ofSeconds(60));
                assertThat(Jobs.messages(failure))
                        .contains("Table " + db + ".t changed in the source")
                        .contains("column 'extra' was added")
                        .contains("schema id");
                assertThat(Canonical.iceberg(catalog.loadTable(id))).isEqualTo(before);
            } finally {
                Jobs.cancelIfRunning(job);
            }
        }
    }
}
