package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.iceberg.IcebergChangelogSource;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.FlinkSource;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scenario users report: a MySQL table mirrored into Iceberg by Inlet's job while a streaming
 * read of the Iceberg table runs. Inlet's changelog source, through its builder and through a
 * streaming SQL query on the inlet-iceberg catalog, sees the insert, the update with its old and new
 * values, and the delete; Iceberg's own streaming source (1.6.1) sees none of them, because
 * it skips every snapshot that is not an append and the mirror commits row deltas.
 */
@ExtendWith(MariaDbExtension.class)
class IcebergChangelogReadITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    static final LinkedBlockingQueue<String> INLET = new LinkedBlockingQueue<>();
    static final LinkedBlockingQueue<String> ICEBERG = new LinkedBlockingQueue<>();
    static final LinkedBlockingQueue<String> SQL = new LinkedBlockingQueue<>();

    /** A products row as "+I(1,scooter,small)". */
    static String describe(RowData r) {
        return r.getRowKind().shortString() + "(" + r.getInt(0) + "," + r.getString(1) + ","
                + (r.isNullAt(2) ? "null" : r.getString(2).toString()) + ")";
    }

    static final class ToQueue implements SinkFunction<RowData> {
        private final boolean inlet;

        ToQueue(boolean inlet) {
            this.inlet = inlet;
        }

        @Override
        public void invoke(RowData row, Context context) {
            (inlet ? INLET : ICEBERG).add(describe(row));
        }
    }

    /** The streaming SQL query's rows, described as {@link #describe} does. */
    static final class SqlToQueue implements SinkFunction<Row> {
        @Override
        public void invoke(Row row, Context context) {
            SQL.add(row.getKind().shortString() + "(" + row.getField(0) + "," + row.getField(1) + "," + row.getField(2)
                    + ")");
        }
    }

    private static List<String> take(LinkedBlockingQueue<String> queue, int n) throws InterruptedException {
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            String s = queue.poll(120, TimeUnit.SECONDS);
            assertThat(s)
                    .as("change %s of %s within two minutes; got %s", out.size() + 1, n, out)
                    .isNotNull();
            out.add(s);
        }
        return out;
    }

    /** The mirror: Inlet's MySQL-to-Iceberg job, or the plain Flink SQL job with Iceberg's upsert writer. */
    private static JobClient mirror(boolean inlet, MariaDbServer mysql, String db, Path warehouse) throws Exception {
        StreamExecutionEnvironment env = Jobs.restartingEnvironment();
        if (inlet) {
            return Pipeline.builder()
                    .environment(env)
                    .source(MySqlOptions.builder(mysql, db, "products").build())
                    .sink(IcebergSink.builder()
                            .warehouse(warehouse.toUri().toString())
                            .build())
                    .jobName("products into iceberg")
                    .build()
                    .executeAsync();
        }
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.executeSql("CREATE TABLE src (id INT NOT NULL, name STRING NOT NULL, description STRING,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'mysql-cdc', 'hostname' = '" + mysql.host()
                + "', 'port' = '" + mysql.port() + "', 'username' = '" + mysql.rootUser() + "', 'password' = '"
                + mysql.rootPassword() + "', 'database-name' = '" + db + "', 'table-name' = 'products',"
                + " 'server-time-zone' = 'UTC')");
        t.executeSql("CREATE CATALOG ice WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse.toUri() + "')");
        t.executeSql("CREATE DATABASE ice." + db);
        t.executeSql("CREATE TABLE ice." + db + ".products (id INT NOT NULL, name STRING NOT NULL, description"
                + " STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('format-version' = '2', 'write.upsert.enabled' ="
                + " 'true')");
        return t.executeSql("INSERT INTO ice." + db + ".products SELECT * FROM src")
                .getJobClient()
                .orElseThrow();
    }

    @ParameterizedTest(name = "mirrored by {0}")
    @ValueSource(strings = {"Inlet's job", "Flink SQL with Iceberg's upsert writer"})
    void insertsUpdatesAndDeletesOfTheMirrorReachAStreamingRead(
            String producer, MariaDbServer mysql, @TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE products (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL,"
                        + " description VARCHAR(512))",
                "INSERT INTO products (name, description) VALUES ('scooter', 'small 2-wheel scooter')");
        JobClient ingest = mirror(producer.startsWith("Inlet"), mysql, db, warehouse);
        TableIdentifier id = TableIdentifier.of(db, "products");
        JobClient read = null;
        try (HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(false), warehouse.toUri().toString())) {
            Lakes.awaitIceberg(
                    ingest, catalog, id, () -> List.of("id=1, name=scooter, description=small 2-wheel scooter"));

            StreamExecutionEnvironment env = Jobs.restartingEnvironment();
            IcebergChangelogSource inlet = IcebergChangelogSource.builder()
                    .catalogLoader(CatalogLoader.hadoop(
                            "lake",
                            new Configuration(false),
                            Map.of("warehouse", warehouse.toUri().toString())))
                    .table(db + ".products")
                    .monitorInterval(Duration.ofMillis(200))
                    .build();
            inlet.createStream(env).addSink(new ToQueue(true)).setParallelism(1);
            // The query users write: a streaming SELECT through the inlet-iceberg catalog, in the same job.
            StreamTableEnvironment sql = StreamTableEnvironment.create(env);
            sql.executeSql("CREATE CATALOG lake WITH ('type' = 'inlet-iceberg', 'catalog-type' = 'hadoop',"
                    + " 'warehouse' = '" + warehouse.toUri() + "')");
            sql.toChangelogStream(sql.sqlQuery("SELECT * FROM lake." + db + ".products"
                            + " /*+ OPTIONS('streaming' = 'true', 'monitor-interval' = '200ms') */"))
                    .addSink(new SqlToQueue())
                    .setParallelism(1);
            FlinkSource.forRowData()
                    .env(env)
                    .tableLoader(
                            TableLoader.fromHadoopTable(catalog.loadTable(id).location(), new Configuration(false)))
                    .streaming(true)
                    .monitorInterval(Duration.ofMillis(200))
                    .build()
                    .addSink(new ToQueue(false));
            INLET.clear();
            ICEBERG.clear();
            SQL.clear();
            read = env.executeAsync("streaming reads of the mirror");

            for (LinkedBlockingQueue<String> q : List.of(INLET, SQL, ICEBERG)) {
                assertThat(take(q, 1)).containsExactly("+I(1,scooter,small 2-wheel scooter)");
            }

            mysql.execute(db, "INSERT INTO products (name, description) VALUES ('car battery', '12V')");
            for (LinkedBlockingQueue<String> q : List.of(INLET, SQL)) {
                assertThat(take(q, 1)).containsExactly("+I(2,car battery,12V)");
            }
            mysql.execute(db, "UPDATE products SET name = 'scooter pro' WHERE id = 1");
            for (LinkedBlockingQueue<String> q : List.of(INLET, SQL)) {
                assertThat(take(q, 2))
                        .containsExactly(
                                "-U(1,scooter,small 2-wheel scooter)", "+U(1,scooter pro,small 2-wheel scooter)");
            }
            mysql.execute(db, "DELETE FROM products WHERE id = 2");
            for (LinkedBlockingQueue<String> q : List.of(INLET, SQL)) {
                assertThat(take(q, 1)).containsExactly("-D(2,car battery,12V)");
            }

            // An append after all of them: once Iceberg's own source shows it, it has passed the snapshots
            // of the insert, the update and the delete, and shown none of them.
            Table table = catalog.loadTable(id);
            table.newAppend().appendFile(marker(table)).commit();
            assertThat(take(INLET, 1)).containsExactly("+I(99,marker,appended)");
            assertThat(take(SQL, 1)).containsExactly("+I(99,marker,appended)");
            assertThat(take(ICEBERG, 1))
                    .as("Iceberg's streaming source skips the mirror's row-delta snapshots")
                    .containsExactly("+I(99,marker,appended)");
            assertThat(INLET).isEmpty();
            assertThat(SQL).isEmpty();
        } finally {
            if (read != null) {
                Jobs.cancelIfRunning(read);
            }
            Jobs.cancelIfRunning(ingest);
        }
    }

    /** A data file of one row (99, marker, appended), outside MySQL. */
    private static DataFile marker(Table table) throws Exception {
        GenericAppenderFactory files = new GenericAppenderFactory(table.schema(), PartitionSpec.unpartitioned());
        EncryptedOutputFile out = table.encryption()
                .encrypt(table.io()
                        .newOutputFile(
                                table.locationProvider().newDataLocation("marker-" + UUID.randomUUID() + ".avro")));
        DataWriter<Record> writer = files.newDataWriter(out, FileFormat.AVRO, null);
        try (DataWriter<Record> w = writer) {
            GenericRecord r = GenericRecord.create(table.schema());
            r.setField("id", 99);
            r.setField("name", "marker");
            r.setField("description", "appended");
            w.write(r);
        }
        return writer.toDataFile();
    }
}
