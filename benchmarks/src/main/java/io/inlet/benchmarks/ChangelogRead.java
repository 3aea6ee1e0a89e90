package io.inlet.benchmarks;

import io.inlet.core.LocalEnvironments;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The changelog-read benchmark: a streaming read of an Iceberg table that takes updates and deletes,
 * from its first snapshot, by Inlet (a streaming {@code SELECT *} through the {@code inlet-iceberg}
 * catalog) beside Iceberg's own streaming read of an append-only copy of the same rows (the same
 * query through Iceberg's {@code iceberg} catalog: it cannot read the changing table, whose
 * snapshots it skips).
 *
 * <p>The runner prepares both tables once ({@link #prepare}): {@code rows} rows in 10 appends, then
 * {@code changes} changes in 20 snapshots (60 % updates, 20 % deletes, 20 % inserts, distinct keys
 * per snapshot) written by Iceberg's Flink changelog writer (what Inlet's sink writes for binlog
 * changes: full-row equality deletes), and for {@code changelog-upsert-iceberg} the same changes by
 * its upsert writer (key-only equality deletes, as Iceberg's SQL upsert tables get); the copy
 * appends the same rows and one row per change; {@code changelog-upsert-state-iceberg} reads the upsert
 * table with {@code 'before-images' = 'state'}. The
 * clock runs from job submission to the last expected row at the sink; the rate counts source
 * changes ({@code rows + changes}) on both sides.
 */
final class ChangelogRead {

    static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "customer_id", Types.IntegerType.get()),
                    Types.NestedField.optional(3, "quantity", Types.IntegerType.get()),
                    Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
                    Types.NestedField.optional(5, "status", Types.StringType.get()),
                    Types.NestedField.optional(6, "note", Types.StringType.get()),
                    Types.NestedField.optional(7, "updated_at", Types.TimestampType.withoutZone()),
                    Types.NestedField.optional(8, "version", Types.IntegerType.get())),
            Set.of(1));

    private static final String[] STATUS = {"new", "paid", "shipped", "cancelled"};

    /** Rows that reached the sink of the trial's job (it runs in the trial's JVM). */
    static final AtomicLong SEEN = new AtomicLong();

    private ChangelogRead() {}

    /**
     * Writes db.changes (changes by Iceberg's changelog writer: whole-row equality deletes), db.upserts
     * (the same changes by its upsert writer: key-only equality deletes, also for inserts) and
     * db.appended under the warehouse; returns the row count the changelog reads emit.
     */
    static long prepare(Path warehouse, long rows, long changes) throws IOException {
        try (HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(false), warehouse.toUri().toString())) {
            catalog.createNamespace(Namespace.of("db"));
            Map<String, String> props = Map.of("format-version", "2");
            Table changing = catalog.createTable(
                    TableIdentifier.of("db", "changes"), SCHEMA, PartitionSpec.unpartitioned(), props);
            Table upserted = catalog.createTable(
                    TableIdentifier.of("db", "upserts"), SCHEMA, PartitionSpec.unpartitioned(), props);
            Table appended = catalog.createTable(
                    TableIdentifier.of("db", "appended"),
                    new Schema(SCHEMA.columns()),
                    PartitionSpec.unpartitioned(),
                    props);
            Random random = new Random(42);
            int[] versions = new int[(int) (rows + changes) + 1];
            Set<Long> live = new HashSet<>();
            long nextId = 1;
            long expected = 0;
            long perAppend = rows / 10;
            for (int a = 0; a < 10; a++) {
                TaskWriter<RowData> c = writer(changing, a, false);
                TaskWriter<RowData> u = writer(upserted, a, false);
                TaskWriter<RowData> p = writer(appended, a, false);
                long n = a == 9 ? rows - perAppend * 9 : perAppend;
                for (long i = 0; i < n; i++) {
                    long id = nextId++;
                    RowData r = row(RowKind.INSERT, id, 0, new Random(id * 31));
                    c.write(r);
                    u.write(r);
                    p.write(r);
                    live.add(id);
                    expected++;
                }
                commit(changing, c.complete());
                commit(upserted, u.complete());
                commit(appended, p.complete());
            }
            Long[] ids = live.toArray(new Long[0]);
            long perSnapshot = changes / 20;
            for (int s = 0; s < 20; s++) {
                TaskWriter<RowData> c = writer(changing, 100 + s, false);
                TaskWriter<RowData> u = writer(upserted, 100 + s, true);
                TaskWriter<RowData> p = writer(appended, 100 + s, false);
                Set<Long> touched = new HashSet<>();
                long n = s == 19 ? changes - perSnapshot * 19 : perSnapshot;
                for (long i = 0; i < n; i++) {
                    int dice = random.nextInt(10);
                    if (dice < 8) {
                        long id;
                        do {
                            id = ids[random.nextInt(ids.length)];
                        } while (!live.contains(id) || !touched.add(id));
                        int v = versions[(int) id];
                        RowData before = row(RowKind.UPDATE_BEFORE, id, v, new Random(id * 31 + v));
                        if (dice < 6) {
                            versions[(int) id] = v + 1;
                            c.write(before);
                            u.write(before);
                            RowData after = row(RowKind.UPDATE_AFTER, id, v + 1, new Random(id * 31 + v + 1));
                            c.write(after);
                            u.write(after);
                            p.write(insert(after));
                            expected += 2;
                        } else {
                            before.setRowKind(RowKind.DELETE);
                            c.write(before);
                            u.write(before);
                            live.remove(id);
                            p.write(insert(before));
                            expected++;
                        }
                    } else {
                        long id = nextId++;
                        RowData r = row(RowKind.INSERT, id, 0, new Random(id * 31));
                        touched.add(id);
                        live.add(id);
                        c.write(r);
                        u.write(r);
                        p.write(r);
                        expected++;
                    }
                }
                commit(changing, c.complete());
                commit(upserted, u.complete());
                commit(appended, p.complete());
            }
            return expected;
        }
    }

    private static TaskWriter<RowData> writer(Table table, int attempt, boolean upsert) {
        boolean keyed = !table.schema().identifierFieldIds().isEmpty();
        RowDataTaskWriterFactory f = new RowDataTaskWriterFactory(
                table,
                FlinkSchemaUtil.convert(table.schema()),
                128L << 20,
                FileFormat.PARQUET,
                table.properties(),
                keyed ? List.of(1) : null,
                upsert);
        f.initialize(0, attempt);
        return f.create();
    }

    private static void commit(Table table, WriteResult result) {
        RowDelta delta = table.newRowDelta();
        Arrays.stream(result.dataFiles()).forEach(delta::addRows);
        Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
        delta.commit();
    }

    private static RowData insert(RowData r) {
        r.setRowKind(RowKind.INSERT);
        return r;
    }

    /** An orders row; its values follow from id and version, so a before-image can be made again. */
    private static RowData row(RowKind kind, long id, int version, Random random) {
        GenericRowData r = GenericRowData.of(
                id,
                random.nextInt(100_000),
                1 + random.nextInt(20),
                DecimalData.fromBigDecimal(BigDecimal.valueOf(random.nextInt(1_000_000), 2), 10, 2),
                StringData.fromString(STATUS[random.nextInt(STATUS.length)]),
                StringData.fromString("order note " + random.nextInt(1000)),
                TimestampData.fromLocalDateTime(
                        LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(id + version)),
                version);
        r.setRowKind(kind);
        return r;
    }

    /** Counts what reaches it; the trial watches the count. */
    static final class Count implements SinkFunction<Row> {
        @Override
        public void invoke(Row row, Context context) {
            SEEN.incrementAndGet();
        }
    }

    /** One trial: the read from the first snapshot, clock stopped when the expected rows arrived. */
    static Result run(Map<String, String> a, String system, int parallelism, long checkpointMs, Path work, Result r)
            throws Exception {
        String warehouse = Path.of(a.get("changelog-warehouse")).toUri().toString();
        boolean inlet = "inlet".equals(system);
        String scenario = a.get("scenario");
        String changing = scenario.startsWith("changelog-upsert") ? "upserts" : "changes";
        // Inlet's read of the upsert table with each key's latest row kept in state, not read again.
        String beforeImages = "changelog-upsert-state-iceberg".equals(scenario) ? ", 'before-images' = 'state'" : "";
        long expected = Long.parseLong(inlet ? a.get("changelog-expected") : a.get("rows"));
        try (Measure m = Measure.start()) {
            StreamExecutionEnvironment env = LocalEnvironments.create(parallelism);
            env.enableCheckpointing(checkpointMs);
            env.getCheckpointConfig()
                    .setCheckpointStorage(work.resolve("checkpoints").toUri().toString());
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            t.executeSql("CREATE CATALOG lake WITH ('type' = '" + (inlet ? "inlet-iceberg" : "iceberg")
                    + "', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouse + "')");
            String query = "SELECT * FROM lake.db." + (inlet ? changing : "appended")
                    + " /*+ OPTIONS('streaming' = 'true', 'monitor-interval' = '1s',"
                    + " 'starting-strategy' = 'INCREMENTAL_FROM_EARLIEST_SNAPSHOT'" + (inlet ? beforeImages : "")
                    + ") */";
            t.toChangelogStream(t.sqlQuery(query)).addSink(new Count());
            SEEN.set(0);
            JobClient job = env.executeAsync("changelog read, " + system);
            long deadline = System.currentTimeMillis() + 30 * 60_000L;
            long done = 0;
            while (System.currentTimeMillis() < deadline) {
                if (SEEN.get() >= expected) {
                    done = System.currentTimeMillis();
                    break;
                }
                if (job.getJobStatus().get().isGloballyTerminalState()) {
                    job.getJobExecutionResult().get();
                    throw new IllegalStateException("The read ended after " + SEEN.get() + " of " + expected);
                }
                Thread.sleep(20); // polling a counter; the clock's resolution
            }
            if (done == 0) {
                throw new IllegalStateException("The read saw " + SEEN.get() + " of " + expected + " in 30 min");
            }
            Thread.sleep(2000); // no more than expected arrives
            long seen = SEEN.get();
            job.cancel().get();
            return r.put("seconds", (done - m.wallStartMs()) / 1000.0)
                    .put("rowsPerSec", Long.parseLong(a.get("rows")) * 1000.0 / (done - m.wallStartMs()))
                    .put("emitted", seen)
                    .put("peakHeapMb", m.peakHeapBytes() >> 20)
                    .put("gcMs", m.gcMs())
                    .put("cpuMs", m.cpuMs())
                    .put("verified", seen == expected);
        }
    }
}
