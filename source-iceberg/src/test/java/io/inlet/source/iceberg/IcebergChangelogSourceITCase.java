package io.inlet.source.iceberg;

import io.inlet.source.iceberg.internal.TestTables;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.TaskWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The changelog source in a MiniCluster over a table Iceberg's own upsert writer keeps changing: the
 * stream, materialized by key, follows the table snapshot after snapshot, also across a failure of
 * the reading job (no change lost or twice).
 */
class IcebergChangelogSourceITCase {

    @TempDir
    Path warehouse;

    private CatalogLoader loader() {
        return CatalogLoader.hadoop(
                "lake",
                new org.apache.hadoop.conf.Configuration(false),
                Map.of("warehouse", warehouse.toUri().toString()));
    }

    /** Fails the job once, at the given record of its first attempt. */
    static final class FailOnce extends RichMapFunction<RowData, RowData> {
        static final AtomicBoolean FAILED = new AtomicBoolean();
        private final int at;
        private int seen;

        FailOnce(int at) {
            this.at = at;
        }

        @Override
        public RowData map(RowData row) {
            if (++seen == at && getRuntimeContext().getAttemptNumber() == 0 && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("Injected failure of the reading job");
            }
            return row;
        }
    }

    @Test
    @Timeout(240)
    void followsUpdatesAndDeletesSnapshotBySnapshotExactlyOnceAcrossAFailure() throws Exception {
        Table table = TestTables.create(warehouse, "orders", false);
        Map<String, String> source = new HashMap<>();
        Random random = new Random(11);
        commitChurn(table, source, random, 0, 10);

        IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table("db.orders")
                .monitorInterval(Duration.ofMillis(100))
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(3, 200));
        FailOnce.FAILED.set(false);
        TestTables.Materialized materialized = new TestTables.Materialized();
        try (CloseableIterator<RowData> out = env.fromSource(changelog, WatermarkStrategy.noWatermarks(), "changelog")
                .setParallelism(1)
                .map(new FailOnce(25))
                .returns(changelog.getProducedType())
                .executeAndCollect("iceberg changelog")) {
            for (int snapshot = 1; snapshot <= 12; snapshot++) {
                table.refresh();
                Map<String, String> expected =
                        TestTables.batch(table, table.currentSnapshot().snapshotId());
                while (!materialized.rows.equals(expected)) {
                    materialized.apply(out.next());
                }
                commitChurn(table, source, random, snapshot, 15);
            }
            table.refresh();
            Map<String, String> last =
                    TestTables.batch(table, table.currentSnapshot().snapshotId());
            while (!materialized.rows.equals(last)) {
                materialized.apply(out.next());
            }
        }
        assertThat(FailOnce.FAILED)
                .as("the reading job failed once and restored")
                .isTrue();
        assertThat(materialized.rows).isEqualTo(new java.util.TreeMap<>(source));
    }

    /** Keeps what reaches it, for the test to read while the job runs. */
    static final class Collect implements SinkFunction<RowData> {
        static final LinkedBlockingQueue<RowData> ROWS = new LinkedBlockingQueue<>();

        @Override
        public void invoke(RowData row, Context context) {
            ROWS.add(row);
        }
    }

    private static void follow(TestTables.Materialized materialized, Table table) throws Exception {
        table.refresh();
        Map<String, String> expected =
                TestTables.batch(table, table.currentSnapshot().snapshotId());
        while (!materialized.rows.equals(expected)) {
            RowData row = Collect.ROWS.poll(60, TimeUnit.SECONDS);
            assertThat(row)
                    .as("a change within a minute; have %s, want %s", materialized.rows, expected)
                    .isNotNull();
            materialized.apply(row);
        }
    }

    private JobClient start(IcebergChangelogSource changelog, String savepoint) throws Exception {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(200);
        env.fromSource(changelog, WatermarkStrategy.noWatermarks(), "changelog")
                .uid("changelog")
                .setParallelism(1)
                .addSink(new Collect())
                .uid("collect");
        return env.executeAsync("iceberg changelog");
    }

    @Test
    @Timeout(240)
    void aStopWithSavepointAndARestoreIntoANewJobGoOnFromTheLastSnapshotRead() throws Exception {
        Table table = TestTables.create(warehouse, "restored", false);
        Map<String, String> source = new HashMap<>();
        Random random = new Random(13);
        commitChurn(table, source, random, 0, 10);
        IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table("db.restored")
                .monitorInterval(Duration.ofMillis(100))
                .build();
        Collect.ROWS.clear();
        TestTables.Materialized materialized = new TestTables.Materialized();
        JobClient first = start(changelog, null);
        follow(materialized, table);
        commitChurn(table, source, random, 1, 15);
        follow(materialized, table);
        String savepoint = first.stopWithSavepoint(
                        false, warehouse.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        // Changes while no job reads: the new job reads them, and nothing it read before.
        commitChurn(table, source, random, 2, 15);
        commitChurn(table, source, random, 3, 15);
        JobClient second = start(changelog, savepoint);
        try {
            follow(materialized, table);
            commitChurn(table, source, random, 4, 15);
            follow(materialized, table);
        } finally {
            second.cancel().get(60, TimeUnit.SECONDS);
        }
        assertThat(materialized.rows).isEqualTo(new java.util.TreeMap<>(source));
        assertThat(Collect.ROWS).as("nothing after the last change").isEmpty();
    }

    /** A change as a Row of its kind, for the Table API's changelog streams. */
    static final class ToRow implements MapFunction<RowData, Row> {
        @Override
        public Row map(RowData r) {
            return Row.ofKind(
                    r.getRowKind(),
                    r.getLong(0),
                    r.getInt(1),
                    r.isNullAt(2) ? null : r.getString(2).toString());
        }
    }

    @Test
    @Timeout(240)
    void aGroupByCountOverTheStreamEqualsTheBatchCountAfterEverySnapshot() throws Exception {
        Table table = TestTables.create(warehouse, "counted", true);
        Random random = new Random(17);
        Map<String, String> source = new HashMap<>();
        commitRegions(table, source, random, 0);
        IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table("db.counted")
                .monitorInterval(Duration.ofMillis(100))
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        DataStream<Row> rows = env.fromSource(changelog, WatermarkStrategy.noWatermarks(), "changelog")
                .setParallelism(1)
                .map(new ToRow())
                .returns(Types.ROW_NAMED(new String[] {"id", "region", "v"}, Types.LONG, Types.INT, Types.STRING));
        t.createTemporaryView("changes", t.fromChangelogStream(rows));
        Map<Integer, Long> counts = new TreeMap<>();
        try (CloseableIterator<Row> out = t.toChangelogStream(
                        t.sqlQuery("SELECT region, COUNT(*) AS n FROM changes GROUP BY region"))
                .executeAndCollect("count by region")) {
            for (int snapshot = 1; snapshot <= 8; snapshot++) {
                Map<Integer, Long> expected = batchCounts(table);
                while (!counts.equals(expected)) {
                    Row r = out.next();
                    int region = (Integer) r.getField(0);
                    if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                        counts.put(region, (Long) r.getField(1));
                    } else {
                        counts.remove(region);
                    }
                }
                commitRegions(table, source, random, snapshot);
            }
        }
        assertThat(counts).isNotEmpty();
    }

    private static Map<Integer, Long> batchCounts(Table table) throws Exception {
        table.refresh();
        Map<Integer, Long> counts = new TreeMap<>();
        TestTables.batch(table, table.currentSnapshot().snapshotId())
                .keySet()
                .forEach(key -> counts.merge(Integer.parseInt(key.substring(key.indexOf('/') + 1)), 1L, Long::sum));
        return counts;
    }

    /** One snapshot of random changes over three regions (the partitions), by Iceberg's changelog writer. */
    private static void commitRegions(Table table, Map<String, String> source, Random random, int n) throws Exception {
        TaskWriter<RowData> w = TestTables.writer(table, false, n);
        for (int i = 0; i < 20; i++) {
            long id = random.nextInt(15);
            int region = random.nextInt(3);
            String key = id + "/" + region;
            String old = source.get(key);
            String now = "r" + n + "-" + i;
            if (old == null) {
                w.write(TestTables.row(RowKind.INSERT, id, region, now));
                source.put(key, now);
            } else if (random.nextInt(2) == 0) {
                w.write(TestTables.row(RowKind.DELETE, id, region, old));
                source.remove(key);
            } else {
                w.write(TestTables.row(RowKind.UPDATE_BEFORE, id, region, old));
                w.write(TestTables.row(RowKind.UPDATE_AFTER, id, region, now));
                source.put(key, now);
            }
        }
        TestTables.commit(table, w.complete());
    }

    /** One snapshot of random inserts, updates and deletes by Iceberg's upsert writer. */
    private static void commitChurn(Table table, Map<String, String> source, Random random, int n, int changes)
            throws Exception {
        TaskWriter<RowData> w = TestTables.writer(table, true, n);
        for (int i = 0; i < changes; i++) {
            long id = random.nextInt(20);
            String key = id + "/0";
            String old = source.get(key);
            String now = "s" + n + "-" + i;
            if (old != null && random.nextInt(3) == 0) {
                w.write(TestTables.row(RowKind.DELETE, id, 0, old));
                source.remove(key);
            } else {
                w.write(TestTables.row(RowKind.INSERT, id, 0, now));
                source.put(key, now);
            }
        }
        TestTables.commit(table, w.complete());
    }

    @Test
    void theSourceShipsAsJavaSerializedAndKeepsItsType() throws Exception {
        TestTables.create(warehouse, "shipped", false);
        IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table("db.shipped")
                .build();
        IcebergChangelogSource copy = InstantiationUtil.clone(changelog);
        assertThat(copy.getProducedType()).isEqualTo(changelog.getProducedType());
        assertThat(copy.rowType().getFieldNames()).containsExactly("id", "region", "v");
    }

    @Test
    void theBuilderNamesWhatIsMissing() {
        Table table = TestTables.create(warehouse, "items", false);
        assertThat(table).isNotNull();
        assertThatThrownBy(
                        () -> IcebergChangelogSource.builder().table("db.items").build())
                .hasMessageContaining("catalogLoader");
        assertThatThrownBy(() -> IcebergChangelogSource.builder()
                        .catalogLoader(loader())
                        .table("db.items")
                        .startingStrategy(IcebergSourceOptions.StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID)
                        .build())
                .hasMessageContaining("start-snapshot-id");
    }
}
