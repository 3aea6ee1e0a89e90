package io.inlet.benchmarks;

import io.inlet.core.Pipeline;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.mysql.MySqlCdcSource;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Hundreds of MySQL tables of mixed shapes in one job: the snapshot of all, then binlog changes to
 * every one (updates, deletes, inserts), every table verified against MySQL by key and version.
 * Inlet's sink (two operators for all tables) beside the path a user builds by hand on Iceberg's
 * {@code FlinkSink}: one writer and one committer per table, split by a filter per table. Reports
 * tasks, peak heap, checkpoint durations and sizes, and commits per checkpoint.
 */
final class ManyTables {

    /** The key of the last row each table gets in the binlog phase: when a table has it, it has them all. */
    static final long MARKER = 1_000_000_005L;

    /** Four shapes, in turn: narrow, orders, wide, composite key. */
    static final String[] DDL = {
        "(id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, version INT NOT NULL)",
        "(id BIGINT NOT NULL PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL,"
                + " status VARCHAR(20) NOT NULL, note VARCHAR(100), updated_at DATETIME(3) NOT NULL,"
                + " version INT NOT NULL)",
        "(id BIGINT NOT NULL PRIMARY KEY, c1 INT, c2 BIGINT, c3 DOUBLE, c4 DECIMAL(18,4), c5 VARCHAR(50),"
                + " c6 VARCHAR(200), c7 DATE, c8 DATETIME(6), c9 FLOAT, c10 INT, c11 BIGINT, c12 DOUBLE,"
                + " c13 DECIMAL(18,4), c14 VARCHAR(50), c15 TEXT, c16 DATETIME(3), version INT NOT NULL)",
        "(id BIGINT NOT NULL, k VARCHAR(20) NOT NULL, v TEXT, amount DECIMAL(12,2), version INT NOT NULL,"
                + " PRIMARY KEY (id, k))"
    };

    static final String[] LOAD = {
        "SELECT seq, CONCAT('name ', seq), 0 FROM seq_1_to_%d",
        "SELECT seq, seq %% 1000, seq + 0.99, ELT(1 + seq %% 3, 'new', 'paid', 'shipped'), CONCAT('note ', seq),"
                + " TIMESTAMP('2025-01-01 00:00:00.000') + INTERVAL seq SECOND, 0 FROM seq_1_to_%d",
        "SELECT seq, seq, seq * 7, seq / 3, seq / 7, CONCAT('c5 ', seq), REPEAT('x', 1 + seq %% 150),"
                + " DATE('2025-01-01') + INTERVAL seq %% 365 DAY,"
                + " TIMESTAMP('2025-01-01 00:00:00.000000') + INTERVAL seq MICROSECOND, seq / 11, seq %% 17,"
                + " seq * 13, seq / 19, seq / 23, CONCAT('c14 ', seq), CONCAT('text ', seq),"
                + " TIMESTAMP('2025-01-01 00:00:00.000') + INTERVAL seq SECOND, 0 FROM seq_1_to_%d",
        "SELECT seq, CONCAT('k', seq %% 3), CONCAT('v ', seq), seq + 0.5, 0 FROM seq_1_to_%d"
    };

    private ManyTables() {}

    /** Creates {@code tables} tables of {@code rowsEach} rows in a fresh database; returns its name. */
    static String load(Map<String, String> a, String db, int tables, int rowsEach) throws Exception {
        try (Connection c = connect(a, "");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + db);
            s.execute("CREATE DATABASE " + db);
            s.execute("USE " + db);
            for (int i = 0; i < tables; i++) {
                s.execute("CREATE TABLE t" + i + " " + DDL[i % 4]);
                s.execute("INSERT INTO t" + i + " " + String.format(LOAD[i % 4], rowsEach));
            }
        }
        return db;
    }

    static Connection connect(Map<String, String> a, String db) throws Exception {
        return DriverManager.getConnection(
                "jdbc:mysql://" + a.get("mysql-host") + ":" + a.get("mysql-port") + "/" + db + "?useSSL=false",
                a.get("mysql-user"),
                a.get("mysql-password"));
    }

    /** One trial: system {@code inlet} or {@code flinksink}. */
    static Result run(Map<String, String> a, String system, int parallelism, long checkpointMs, Path work, Result r)
            throws Exception {
        int tables = Integer.parseInt(a.get("tables"));
        int rowsEach = Integer.parseInt(a.get("rows-each"));
        String db = a.get("many-db");
        Path warehouse = work.resolve("warehouse");
        Configuration conf = CheckpointStats.addTo(new Configuration());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(
                parallelism, io.inlet.core.LocalEnvironments.loopback(conf));
        env.enableCheckpointing(checkpointMs);
        env.getCheckpointConfig()
                .setCheckpointStorage(work.resolve("checkpoints").toUri().toString());
        ChangeSink sink = "inlet".equals(system)
                ? IcebergSink.builder().warehouse(warehouse.toUri().toString()).build()
                : new PerTableFlinkSinks(warehouse.toUri().toString());
        Pipeline.builder()
                .environment(env)
                .jobName(system + ": " + tables + " tables into iceberg")
                .source(MySqlCdcSource.builder()
                        .hostname(a.get("mysql-host"))
                        .port(Integer.parseInt(a.get("mysql-port")))
                        .username(a.get("mysql-user"))
                        .password(a.get("mysql-password"))
                        .databaseList(db)
                        .serverId("5400-" + (5400 + Math.max(parallelism, 2) - 1))
                        .serverTimeZone("UTC")
                        .build())
                .sink(sink)
                .build()
                .addToEnvironment();
        JobGraph graph = env.getStreamGraph(false).getJobGraph();
        int tasks = 0;
        for (JobVertex v : graph.getVertices()) {
            tasks += v.getParallelism();
        }
        r.put("tables", tables).put("tasks", tasks).put("operators", graph.getNumberOfVertices());
        Bench.log(system + ": " + graph.getNumberOfVertices() + " job vertices, " + tasks + " tasks");

        CheckpointStats stats = CheckpointStats.start();
        JobClient job;
        try (Measure m = Measure.start();
                HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString())) {
            job = env.executeAsync(system + " many tables");
            try {
                // Snapshot: every table holds its rows.
                long deadline =
                        System.currentTimeMillis() + Duration.ofMinutes(30).toMillis();
                for (int i = 0; i < tables; i++) {
                    TableIdentifier id = TableIdentifier.of(db, "t" + i);
                    while (records(catalog, id) < rowsEach) {
                        failIfOver(job, deadline, "the snapshot of " + id);
                        Thread.sleep(500);
                    }
                }
                long snapshotDone = System.currentTimeMillis();
                double snapshotSeconds = (snapshotDone - m.wallStartMs()) / 1000.0;
                long checkpointsAtSnapshot = stats.completed();
                int snapshotsAtSnapshot = snapshots(catalog, db, tables);
                r.put("seconds", snapshotSeconds)
                        .put("rowsPerSec", (double) tables * rowsEach / snapshotSeconds)
                        .put("snapshotPeakHeapMb", m.peakHeapBytes() >> 20);

                // Binlog: per table one transaction of 20 updates, 5 deletes and 5 inserts, the last the marker.
                try (Connection c = connect(a, db);
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < tables; i++) {
                        String t = "t" + i;
                        s.execute("UPDATE " + t + " SET version = version + 1 WHERE id BETWEEN 1 AND 20");
                        s.execute("DELETE FROM " + t + " WHERE id BETWEEN 21 AND 25");
                        for (long k = MARKER - 4; k <= MARKER; k++) {
                            s.execute("INSERT INTO " + t + " " + selectWithKey(i % 4, k) + " FROM " + t
                                    + " WHERE id = 30 LIMIT 1");
                        }
                        c.commit();
                    }
                }
                long changesSent = System.currentTimeMillis();
                for (int i = 0; i < tables; i++) {
                    TableIdentifier id = TableIdentifier.of(db, "t" + i);
                    while (!hasMarker(catalog, id)) {
                        failIfOver(job, deadline, "the binlog changes of " + id);
                        Thread.sleep(500);
                    }
                }
                long binlogDone = System.currentTimeMillis();
                long checkpoints = stats.completed() - checkpointsAtSnapshot;
                int commits = snapshots(catalog, db, tables) - snapshotsAtSnapshot;
                r.put("binlogSeconds", (binlogDone - changesSent) / 1000.0)
                        .put("binlogChanges", tables * 30L)
                        .put("binlogCheckpoints", checkpoints)
                        .put("binlogCommits", commits)
                        .put("commitsPerCheckpoint", checkpoints == 0 ? null : (double) commits / checkpoints)
                        .put("peakHeapMb", m.peakHeapBytes() >> 20)
                        .put("gcMs", m.gcMs())
                        .put("cpuMs", m.cpuMs());
                job.cancel().get();
            } catch (Exception e) {
                job.cancel();
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                Bench.log(system + " failed: " + e);
                e.printStackTrace();
                String message = String.valueOf(root.getMessage()).split("\n")[0];
                return r.put(
                        "error",
                        root.getClass().getSimpleName() + ": " + message.substring(0, Math.min(200, message.length())));
            }
            r.put("checkpoints", stats.completed())
                    .put("failedCheckpoints", stats.failed())
                    .put("checkpointMsMax", stats.maxDurationMs())
                    .put("checkpointMsMedian", stats.medianDurationMs())
                    .put("checkpointBytesMax", stats.maxSizeBytes());
            stats.stop();
            Bench.log(system + ": checkpoint number:duration ms " + stats.durations());
            int verified = 0;
            for (int i = 0; i < tables; i++) {
                if (verify(a, catalog, db, i)) {
                    verified++;
                }
            }
            r.put("verified", verified + "/" + tables);
            return r;
        }
    }

    /** The columns of a copy of row 30 of a table of the shape under key k, bumped to version 1. */
    private static String selectWithKey(int shape, long k) {
        switch (shape) {
            case 0:
                return "SELECT " + k + ", name, 1";
            case 1:
                return "SELECT " + k + ", customer_id, amount, status, note, updated_at, 1";
            case 2:
                return "SELECT " + k + ", c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, 1";
            default:
                return "SELECT " + k + ", k, v, amount, 1";
        }
    }

    private static void failIfOver(JobClient job, long deadline, String what) throws Exception {
        if (job.getJobStatus().get().isGloballyTerminalState()) {
            job.getJobExecutionResult().get();
            throw new IllegalStateException("The job ended before " + what);
        }
        if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException("Timed out waiting for " + what);
        }
    }

    private static long records(HadoopCatalog catalog, TableIdentifier id) {
        if (!catalog.tableExists(id)) {
            return 0;
        }
        Snapshot s = catalog.loadTable(id).currentSnapshot();
        return s == null ? 0 : Long.parseLong(s.summary().getOrDefault("total-records", "0"));
    }

    private static int snapshots(HadoopCatalog catalog, String db, int tables) {
        int n = 0;
        for (int i = 0; i < tables; i++) {
            for (Snapshot s : catalog.loadTable(TableIdentifier.of(db, "t" + i)).snapshots()) {
                n++;
            }
        }
        return n;
    }

    /** Whether a data file's bounds say the table holds the marker key. */
    private static boolean hasMarker(HadoopCatalog catalog, TableIdentifier id) throws Exception {
        Table t = catalog.loadTable(id);
        Types.NestedField key = t.schema().findField("id");
        try (CloseableIterable<FileScanTask> tasks =
                t.newScan().includeColumnStats().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile f = task.file();
                ByteBuffer upper =
                        f.upperBounds() == null ? null : f.upperBounds().get(key.fieldId());
                if (upper != null && (Long) Conversions.fromByteBuffer(key.type(), upper) >= MARKER) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The table's keys and versions equal MySQL's: nothing lost, nothing twice, every change applied. */
    private static boolean verify(Map<String, String> a, HadoopCatalog catalog, String db, int i) throws Exception {
        boolean composite = i % 4 == 3;
        List<String> mysql = new ArrayList<>();
        try (Connection c = connect(a, db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, " + (composite ? "k" : "''") + ", version FROM t" + i)) {
            while (rs.next()) {
                mysql.add(rs.getLong(1) + "/" + rs.getString(2) + "|" + rs.getInt(3));
            }
        }
        List<String> ice = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(
                        catalog.loadTable(TableIdentifier.of(db, "t" + i)))
                .select(composite ? List.of("id", "k", "version") : List.of("id", "version"))
                .build()) {
            for (Record rec : records) {
                ice.add(rec.getField("id") + "/" + (composite ? rec.getField("k") : "") + "|"
                        + rec.getField("version"));
            }
        }
        mysql.sort(String::compareTo);
        ice.sort(String::compareTo);
        if (!mysql.equals(ice)) {
            Set<String> only = new HashSet<>(ice);
            mysql.forEach(only::remove);
            Bench.log("t" + i + " differs: MySQL " + mysql.size() + " rows, Iceberg " + ice.size() + "; e.g. "
                    + only.stream().limit(3).collect(java.util.stream.Collectors.toList()));
            return false;
        }
        return true;
    }

    /**
     * The path a user builds on Iceberg's own sink: a filter per table and one {@code FlinkSink}
     * (writer and committer) per table, changelog mode keyed by the primary key.
     */
    static final class PerTableFlinkSinks implements ChangeSink {
        private final String warehouse;

        PerTableFlinkSinks(String warehouse) {
            this.warehouse = warehouse;
        }

        @Override
        public String name() {
            return "per-table FlinkSink";
        }

        @Override
        public List<String> targetTables(List<TableDescriptor> tables) {
            List<String> out = new ArrayList<>();
            tables.forEach(t -> out.add(t.tableId().identifier()));
            return out;
        }

        @Override
        public void addSink(DataStream<ChangeEvent> stream, SinkContext context) {
            org.apache.hadoop.conf.Configuration hadoop = new org.apache.hadoop.conf.Configuration(false);
            try (HadoopCatalog catalog = new HadoopCatalog(hadoop, warehouse)) {
                for (TableDescriptor t : context.tables()) {
                    TableIdentifier id = TableIdentifier.of(
                            t.tableId().database(), t.tableId().table());
                    RowType type = t.toRowType();
                    if (!catalog.namespaceExists(Namespace.of(id.namespace().levels()))) {
                        catalog.createNamespace(id.namespace());
                    }
                    Schema plain = FlinkSchemaUtil.convert(FlinkSchemaUtil.toSchema(type));
                    Set<Integer> keys = new HashSet<>();
                    t.primaryKey().forEach(k -> keys.add(plain.findField(k).fieldId()));
                    Schema schema = new Schema(plain.columns(), keys);
                    if (!catalog.tableExists(id)) {
                        catalog.buildTable(id, schema)
                                .withProperty("format-version", "2")
                                .create();
                    }
                    // Rows travel to the writer in the table's own Flink type (timestamps at precision 6), which
                    // Iceberg's writer reads them with.
                    RowType tableType = FlinkSchemaUtil.convert(schema);
                    DataStream<RowData> rows = stream.filter(new OfTable(t.tableId()))
                            .name("filter " + id)
                            .uid("filter-" + id)
                            .map(new RowOf(type), InternalTypeInfo.of(tableType))
                            .name("rows " + id)
                            .uid("rows-" + id);
                    FlinkSink.forRowData(rows)
                            .tableLoader(
                                    TableLoader.fromHadoopTable(warehouse + "/" + id.namespace() + "/" + id.name()))
                            .equalityFieldColumns(t.primaryKey())
                            .uidPrefix("iceberg-" + id)
                            .append();
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    private static final class OfTable implements FilterFunction<ChangeEvent> {
        private static final long serialVersionUID = 1L;
        private final TableId table;

        OfTable(TableId table) {
            this.table = table;
        }

        @Override
        public boolean filter(ChangeEvent e) {
            return e.tableId().equals(table);
        }
    }

    /** A copy of the event's row by field (the shapes have no TINYINT or SMALLINT to widen). */
    private static final class RowOf implements MapFunction<ChangeEvent, RowData> {
        private static final long serialVersionUID = 1L;
        private final RowType type;
        private transient RowData.FieldGetter[] getters;

        RowOf(RowType type) {
            this.type = type;
        }

        @Override
        public RowData map(ChangeEvent e) {
            if (getters == null) {
                getters = new RowData.FieldGetter[type.getFieldCount()];
                for (int i = 0; i < getters.length; i++) {
                    getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
                }
            }
            org.apache.flink.table.data.GenericRowData out =
                    new org.apache.flink.table.data.GenericRowData(e.row().getRowKind(), getters.length);
            for (int i = 0; i < getters.length; i++) {
                out.setField(i, getters[i].getFieldOrNull(e.row()));
            }
            return out;
        }
    }
}
