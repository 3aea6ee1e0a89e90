package io.inlet.source.iceberg;

import io.inlet.core.testing.MiniClusters;
import io.inlet.source.iceberg.IcebergSourceOptions.BeforeImages;
import io.inlet.source.iceberg.internal.TestTables;

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
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.CatalogLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
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

    /** One cluster for the class's jobs: starting one per job cost seconds each. */
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @TempDir
    Path warehouse;

    private CatalogLoader loader() {
        return CatalogLoader.hadoop(
                "lake", new org.apache.hadoop.conf.Configuration(false), TestTables.catalogProperties(warehouse));
    }

    /** The table's changelog, looked for every 100 ms. */
    private IcebergChangelogSource changelog(String table) {
        return changelog(table, BeforeImages.FILES);
    }

    private IcebergChangelogSource changelog(String table, BeforeImages beforeImages) {
        return IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table(table)
                .monitorInterval(Duration.ofMillis(100))
                .beforeImages(beforeImages)
                .build();
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

    @ParameterizedTest(name = "before-images {0}")
    @EnumSource(BeforeImages.class)
    @Timeout(240)
    void followsUpdatesAndDeletesSnapshotBySnapshotExactlyOnceAcrossAFailure(BeforeImages beforeImages)
            throws Exception {
        Table table = TestTables.create(warehouse, "orders_" + beforeImages, false);
        TestTables.Churn churn = new TestTables.Churn(table, true, new Random(11), 20, 1);
        churn.commit(0, 10);

        IcebergChangelogSource changelog = changelog("db.orders_" + beforeImages, beforeImages);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(3, 200));
        FailOnce.FAILED.set(false);
        TestTables.Materialized materialized = new TestTables.Materialized();
        try (CloseableIterator<RowData> out = changelog
                .createStream(env)
                .map(new FailOnce(25))
                .returns(InternalTypeInfo.of(changelog.rowType()))
                .executeAndCollect("iceberg changelog")) {
            for (int snapshot = 1; snapshot <= 12; snapshot++) {
                Map<String, String> expected = TestTables.current(table);
                while (!materialized.rows.equals(expected)) {
                    materialized.apply(out.next());
                }
                churn.commit(snapshot, 15);
            }
            Map<String, String> last = TestTables.current(table);
            while (!materialized.rows.equals(last)) {
                materialized.apply(out.next());
            }
        }
        assertThat(FailOnce.FAILED)
                .as("the reading job failed once and restored")
                .isTrue();
        assertThat(materialized.rows).isEqualTo(churn.rows);
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
        Map<String, String> expected = TestTables.current(table);
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
        env.setParallelism(2);
        env.enableCheckpointing(200);
        changelog.createStream(env).addSink(new Collect()).setParallelism(1).uid("collect");
        return env.executeAsync("iceberg changelog");
    }

    @ParameterizedTest(name = "before-images {0}")
    @EnumSource(BeforeImages.class)
    @Timeout(240)
    void aStopWithSavepointAndARestoreIntoANewJobGoOnFromTheLastSnapshotRead(BeforeImages beforeImages)
            throws Exception {
        Table table = TestTables.create(warehouse, "restored_" + beforeImages, false);
        TestTables.Churn churn = new TestTables.Churn(table, true, new Random(13), 20, 1);
        churn.commit(0, 10);
        IcebergChangelogSource changelog = changelog("db.restored_" + beforeImages, beforeImages);
        Collect.ROWS.clear();
        TestTables.Materialized materialized = new TestTables.Materialized();
        JobClient first = start(changelog, null);
        follow(materialized, table);
        churn.commit(1, 15);
        follow(materialized, table);
        String savepoint = first.stopWithSavepoint(
                        false, warehouse.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        // Changes while no job reads: the new job reads them, and nothing it read before.
        churn.commit(2, 15);
        churn.commit(3, 15);
        JobClient second = start(changelog, savepoint);
        try {
            follow(materialized, table);
            churn.commit(4, 15);
            follow(materialized, table);
        } finally {
            second.cancel().get(60, TimeUnit.SECONDS);
        }
        assertThat(materialized.rows).isEqualTo(churn.rows);
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

    @ParameterizedTest(name = "before-images {0}")
    @EnumSource(BeforeImages.class)
    @Timeout(240)
    void aGroupByCountOverTheStreamEqualsTheBatchCountAfterEverySnapshot(BeforeImages beforeImages) throws Exception {
        Table table = TestTables.create(warehouse, "counted_" + beforeImages, true);
        TestTables.Churn churn = new TestTables.Churn(table, false, new Random(17), 15, 3);
        churn.commit(0, 20);
        IcebergChangelogSource changelog = changelog("db.counted_" + beforeImages, beforeImages);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        DataStream<Row> rows = changelog
                .createStream(env)
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
                churn.commit(snapshot, 20);
            }
        }
        assertThat(counts).isNotEmpty();
    }

    private static Map<Integer, Long> batchCounts(Table table) throws Exception {
        Map<Integer, Long> counts = new TreeMap<>();
        TestTables.current(table)
                .keySet()
                .forEach(key -> counts.merge(Integer.parseInt(key.substring(key.indexOf('/') + 1)), 1L, Long::sum));
        return counts;
    }

    @Test
    void theSourceShipsAsJavaSerializedAndKeepsItsType() throws Exception {
        TestTables.create(warehouse, "shipped", false);
        IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table("db.shipped")
                .build();
        IcebergChangelogSource copy = InstantiationUtil.clone(changelog);
        assertThat(copy.rowType()).isEqualTo(changelog.rowType());
        assertThat(copy.rowType().getFieldNames()).containsExactly("id", "region", "v");
        assertThat(copy.primaryKey()).isEqualTo(changelog.primaryKey()).isNotEmpty();
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
        assertThatThrownBy(() -> IcebergChangelogSource.builder()
                        .catalogLoader(loader())
                        .table("db.items")
                        .startingStrategy(IcebergSourceOptions.StartingStrategy.INCREMENTAL_FROM_LATEST_SNAPSHOT)
                        .beforeImages(BeforeImages.STATE)
                        .build())
                .hasMessageContaining("'before-images' STATE")
                .hasMessageContaining("use TABLE_SCAN_THEN_INCREMENTAL or INCREMENTAL_FROM_EARLIEST_SNAPSHOT");
    }

    @Test
    @Timeout(120)
    void beforeImagesFromStateRefuseAnEarliestSnapshotWhoseParentExpired() throws Exception {
        Table table = TestTables.create(warehouse, "expired", false);
        TestTables.Churn churn = new TestTables.Churn(table, true, new Random(19), 10, 1);
        churn.commit(0, 10);
        long first = table.currentSnapshot().snapshotId();
        churn.commit(1, 10);
        churn.commit(2, 10);
        table.expireSnapshots().expireSnapshotId(first).commit();
        IcebergChangelogSource changelog = IcebergChangelogSource.builder()
                .catalogLoader(loader())
                .table("db.expired")
                .startingStrategy(IcebergSourceOptions.StartingStrategy.INCREMENTAL_FROM_EARLIEST_SNAPSHOT)
                .beforeImages(BeforeImages.STATE)
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        assertThatThrownBy(() -> {
                    try (CloseableIterator<RowData> out =
                            changelog.createStream(env).executeAndCollect("expired history")) {
                        out.hasNext();
                    }
                })
                .rootCause()
                .hasMessageContaining("before-images STATE needs every live row read")
                .hasMessageContaining("has an expired parent")
                .hasMessageContaining("TABLE_SCAN_THEN_INCREMENTAL");
    }
}
