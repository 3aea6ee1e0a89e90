package io.inlet.shim;

import io.inlet.core.testing.MiniClusters;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Streaming SQL over an upserted Iceberg table through the inlet-iceberg catalog: the query sees the
 * table's changelog, updates and deletes included; Iceberg's own streaming read stays one hint away.
 */
class StreamingChangelogSqlITCase {

    // One cluster for every write, read and count of the class (each used to start its own, about 1 s each).
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    @TempDir
    Path warehouse;

    private String catalog(String name) {
        return "CREATE CATALOG " + name + " WITH ('type' = 'inlet-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse.toUri() + "', 'cache-enabled' = 'false')";
    }

    private void createTable(String table) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql(catalog("lake"));
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.shop");
        tEnv.executeSql("CREATE TABLE lake.shop." + table + " (id BIGINT, region INT, customer STRING,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
    }

    /**
     * One snapshot: the changes, written by Iceberg's own upsert sink from a bounded changelog. Without
     * {@code table.exec.sink.upsert-materialize = NONE} Flink puts a SinkUpsertMaterializer before the
     * sink (the changelog has no upsert key), which drops a -D for a row it never saw in this job: the
     * delete would never reach the table.
     */
    private void write(String table, Row... changes) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        tEnv.executeSql(catalog("lake"));
        tEnv.fromChangelogStream(env.fromElements(changes)
                        .returns(Types.ROW_NAMED(
                                new String[] {"id", "region", "customer"}, Types.LONG, Types.INT, Types.STRING)))
                .executeInsert("lake.shop." + table)
                .await();
    }

    private TableEnvironment reader(int parallelism) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("execution.checkpointing.interval", "200 ms");
        tEnv.getConfig().set("parallelism.default", String.valueOf(parallelism));
        tEnv.executeSql(catalog("lake"));
        return tEnv;
    }

    private static List<String> take(CloseableIterator<Row> rows, int n) {
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            out.add(rows.next().toString());
        }
        return out;
    }

    @ParameterizedTest(name = "before-images {0}")
    @ValueSource(strings = {"files", "state"})
    @Timeout(240)
    void aStreamingSelectReturnsInsertsUpdatesAndDeletes(String beforeImages) throws Exception {
        String orders = "orders_" + beforeImages;
        createTable(orders);
        write(orders, Row.of(1L, 1, "anna"), Row.of(2L, 1, "bob"), Row.of(3L, 2, "cleo"));
        TableEnvironment tEnv = reader(2);
        String query = "SELECT * FROM lake.shop." + orders + " /*+ OPTIONS('streaming' = 'true', 'monitor-interval'"
                + " = '100ms', 'before-images' = '" + beforeImages + "') */";
        // The planner knows the source emits updates (explain's own sink needs no -U, so it drops them
        // there); with Iceberg's own source, on request, it sees inserts only.
        assertThat(tEnv.explainSql(query)).contains("DropUpdateBefore");
        assertThat(tEnv.explainSql(query.replace(
                        "'streaming' = 'true'", "'streaming' = 'true', 'streaming-read-mode' = 'append-only'")))
                .doesNotContain("DropUpdateBefore");

        try (CloseableIterator<Row> rows = tEnv.executeSql(query).collect()) {
            assertThat(take(rows, 3)).containsExactlyInAnyOrder("+I[1, 1, anna]", "+I[2, 1, bob]", "+I[3, 2, cleo]");
            write(orders, Row.of(2L, 1, "bea"));
            assertThat(take(rows, 2)).containsExactly("-U[2, 1, bob]", "+U[2, 1, bea]");
            write(orders, Row.of(4L, 2, "dan"), Row.of(4L, 3, "dan"));
            assertThat(take(rows, 1)).as("the net change of the snapshot").containsExactly("+I[4, 3, dan]");
            write(orders, Row.ofKind(RowKind.DELETE, 3L, 2, "cleo"));
            assertThat(take(rows, 1))
                    .as("an upsert delete carries only the key")
                    .containsExactly("-D[3, 2, cleo]");
            write(orders, Row.of(5L, 1, "eve"), Row.ofKind(RowKind.DELETE, 5L, 1, "eve"));
            write(orders, Row.of(1L, 4, "anna"));
            assertThat(take(rows, 2))
                    .as("a key inserted and deleted in one snapshot emits nothing")
                    .containsExactly("-U[1, 1, anna]", "+U[1, 4, anna]");
        }
    }

    @Test
    @Timeout(300)
    void aStreamingGroupByEqualsTheBatchGroupByAfterEveryWrite() throws Exception {
        createTable("counted");
        Random random = new Random(23);
        Map<Long, Row> model = new HashMap<>();
        write("counted", churn(random, model, 30));
        TableEnvironment tEnv = reader(2);
        Map<Integer, Long> counts = new ConcurrentHashMap<>();
        TableResult result = tEnv.executeSql("SELECT region, COUNT(*) AS n FROM lake.shop.counted"
                + " /*+ OPTIONS('streaming' = 'true', 'monitor-interval' = '100ms') */ GROUP BY region");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (CloseableIterator<Row> rows = result.collect()) {
            Thread drain = new Thread(() -> {
                try {
                    while (rows.hasNext()) {
                        Row r = rows.next();
                        int region = (Integer) r.getField(0);
                        if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                            counts.put(region, (Long) r.getField(1));
                        } else {
                            counts.remove(region);
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            drain.setDaemon(true);
            drain.start();
            for (int round = 1; round <= 8; round++) {
                Map<Integer, Long> expected = expectedCounts(model);
                assertThat(batchCounts("counted"))
                        .as("Iceberg's batch read, round %s", round)
                        .isEqualTo(expected);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!counts.equals(expected) && System.nanoTime() < deadline && failure.get() == null) {
                    Thread.sleep(50);
                }
                assertThat(failure.get()).isNull();
                assertThat(new TreeMap<>(counts))
                        .as("streaming count, round %s", round)
                        .isEqualTo(expected);
                write("counted", churn(random, model, 12));
            }
        }
    }

    /** Random upserts and deletes of keys 1..40 (a key may change twice in one write); the model follows. */
    private static Row[] churn(Random random, Map<Long, Row> model, int n) {
        List<Row> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long id = 1 + random.nextInt(40);
            if (model.containsKey(id) && random.nextInt(3) == 0) {
                Row old = model.remove(id);
                out.add(Row.ofKind(RowKind.DELETE, id, old.getField(1), old.getField(2)));
            } else {
                Row row = Row.of(id, 1 + random.nextInt(4), "c" + random.nextInt(1000));
                model.put(id, row);
                out.add(row);
            }
        }
        return out.toArray(new Row[0]);
    }

    private static Map<Integer, Long> expectedCounts(Map<Long, Row> model) {
        Map<Integer, Long> counts = new TreeMap<>();
        model.values().forEach(r -> counts.merge((Integer) r.getField(1), 1L, Long::sum));
        return counts;
    }

    private Map<Integer, Long> batchCounts(String table) throws Exception {
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.getConfig().set("table.exec.resource.default-parallelism", "1"); // beside the reader and the writer
        batch.executeSql(catalog("lake"));
        Map<Integer, Long> counts = new TreeMap<>();
        try (CloseableIterator<Row> rows = batch.executeSql(
                        "SELECT region, COUNT(*) FROM lake.shop." + table + " GROUP BY region")
                .collect()) {
            rows.forEachRemaining(r -> counts.put((Integer) r.getField(0), (Long) r.getField(1)));
        }
        return counts;
    }
}
