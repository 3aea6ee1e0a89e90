package io.inlet.benchmarks;

import io.inlet.core.LocalEnvironments;
import io.inlet.core.Pipeline;
import io.inlet.core.util.MiniJson;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.source.kafka.DebeziumKafkaSource;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.File;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One measured run in its own JVM: Inlet's pipeline or the hand-written Flink SQL job (or a physical
 * proxy) on data the runner prepared, on a local MiniCluster with the runner's heap and checkpoint
 * interval. Prints one {@link Result} line. Arguments are {@code key=value}: scenario, system, rows,
 * parallelism, checkpoint-ms, work, and the services' addresses.
 */
public final class Trial {

    private final Map<String, String> a;
    private final Path work;
    private final int parallelism;
    private final long rows;
    private final long checkpointMs;

    private Trial(Map<String, String> args) {
        this.a = args;
        this.work = Path.of(args.get("work"));
        this.parallelism = Integer.parseInt(args.get("parallelism"));
        this.rows = Long.parseLong(args.get("rows"));
        this.checkpointMs = Long.parseLong(args.getOrDefault("checkpoint-ms", "5000"));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> map = new HashMap<>();
        for (String arg : args) {
            map.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        Trial t = new Trial(map);
        Result r = t.run();
        System.out.println(r.toLine());
        System.out.flush();
        System.exit(0); // the MiniCluster leaves non-daemon threads behind
    }

    private Result run() throws Exception {
        Files.createDirectories(work);
        String scenario = a.get("scenario");
        String system = a.get("system");
        Result r = new Result()
                .put("scenario", scenario)
                .put("system", system)
                .put("rows", rows)
                .put("parallelism", parallelism);
        switch (scenario) {
            case "snapshot-iceberg":
                return snapshotIceberg(system, r, false);
            case "binlog-iceberg":
                return snapshotIceberg(system, r, true);
            case "snapshot-hudi":
                return snapshotHudi(system, r);
            case "kafka-iceberg":
                return kafkaIceberg(system, r);
            case "kafka-hudi":
                return kafkaHudi(system, r);
            case "many-iceberg":
                return ManyTables.run(a, system, parallelism, checkpointMs, work, r);
            case "changelog-iceberg":
            case "changelog-upsert-iceberg":
            case "changelog-upsert-state-iceberg":
                return ChangelogRead.run(a, system, parallelism, checkpointMs, work, r);
            case "proxy-appender":
                return proxyAppender(r);
            case "proxy-jdbc":
                return proxyJdbc(r);
            case "proxy-kafka":
                return proxyKafka(r);
            default:
                throw new IllegalArgumentException("Unknown scenario " + scenario);
        }
    }

    // ---------------------------------------------------------------- MySQL into Iceberg

    private static final String ORDERS_SQL_COLUMNS =
            "id BIGINT NOT NULL, customer_id INT, quantity INT, amount DECIMAL(10, 2),"
                    + " status STRING, note STRING, updated_at TIMESTAMP(3), version INT";

    private String mysqlSourceDdl(String table) {
        return "CREATE TABLE src (" + ORDERS_SQL_COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + "'connector' = 'mysql-cdc', 'hostname' = '" + a.get("mysql-host") + "', 'port' = '"
                + a.get("mysql-port") + "',"
                + " 'username' = '" + a.get("mysql-user") + "', 'password' = '" + a.get("mysql-password") + "',"
                + " 'database-name' = '" + a.get("mysql-db") + "', 'table-name' = '" + table + "',"
                + " 'server-id' = '" + serverIds() + "', 'server-time-zone' = 'UTC')";
    }

    private String serverIds() {
        return "5400-" + (5400 + Math.max(parallelism, 2) - 1);
    }

    /**
     * Inlet's source through its SPI factory, with the defaults users get, unless the runner passes inlet-source.*
     * options.
     */
    private io.inlet.core.spi.ChangeSource inletMySql(String table) {
        Map<String, String> options = new HashMap<>();
        options.put("hostname", a.get("mysql-host"));
        options.put("port", a.get("mysql-port"));
        options.put("username", a.get("mysql-user"));
        options.put("password", a.get("mysql-password"));
        options.put("database-name", a.get("mysql-db"));
        options.put("table-name", table);
        options.put("server-id", serverIds());
        options.put("server-time-zone", "UTC");
        a.forEach((k, v) -> {
            if (k.startsWith("inlet-source.")) {
                options.put(k.substring("inlet-source.".length()), v);
            }
        });
        return io.inlet.core.spi.FactoryDiscovery.createSource("mysql-cdc", options);
    }

    /** Inlet's Hudi sink with the defaults users get, plus inlet-sink.* options when the runner passes them. */
    private HudiSink hudiSink(Path base) {
        HudiSink.Builder b =
                HudiSink.builder().path(base.toUri().toString()).option("hoodie.embed.timeline.server", "false");
        a.forEach((k, v) -> {
            if (k.startsWith("inlet-sink.")) {
                b.option(k.substring("inlet-sink.".length()), v);
            }
        });
        return b.build();
    }

    private StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = LocalEnvironments.create(parallelism);
        env.enableCheckpointing(checkpointMs);
        // As on a cluster with state.checkpoints.dir: the JobManager's in-memory default takes at most
        // 5 MB per state, which Hudi's key index passes near 1M keys (checkpoints then fail forever).
        env.getCheckpointConfig()
                .setCheckpointStorage(work.resolve("checkpoints").toUri().toString());
        return env;
    }

    /** The snapshot into Iceberg; with {@code binlog}, then the binlog phase, measured on its own. */
    private Result snapshotIceberg(String system, Result r, boolean binlog) throws Exception {
        String db = a.get("mysql-db");
        String table = a.getOrDefault("mysql-table", "orders");
        Path warehouse = work.resolve("warehouse");
        TableIdentifier id = TableIdentifier.of(db, table);
        JobClient job;
        try (Measure m = Measure.start();
                HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString())) {
            if ("inlet".equals(system)) {
                job = Pipeline.builder()
                        .environment(env())
                        .jobName("inlet snapshot into iceberg")
                        .source(inletMySql(table))
                        .sink(IcebergSink.builder()
                                .warehouse(warehouse.toUri().toString())
                                .build())
                        .build()
                        .executeAsync();
            } else {
                StreamTableEnvironment t = StreamTableEnvironment.create(env());
                t.executeSql(mysqlSourceDdl(table));
                t.executeSql("CREATE CATALOG ice WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                        + warehouse.toUri() + "')");
                t.executeSql("CREATE DATABASE ice.`" + db + "`");
                t.executeSql("CREATE TABLE ice.`" + db + "`.`" + table + "` (" + ORDERS_SQL_COLUMNS
                        + ", PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
                job = t.executeSql("INSERT INTO ice.`" + db + "`.`" + table + "` SELECT * FROM src")
                        .getJobClient()
                        .orElseThrow();
            }
            long done = awaitIcebergRecords(catalog, id, rows, job);
            Table ice = catalog.loadTable(id);
            r.put("seconds", (done - m.wallStartMs()) / 1000.0)
                    .put("rowsPerSec", rows * 1000.0 / (done - m.wallStartMs()));
            r.put("steadyRowsPerSec", steadyRate(ice, rows));
            r.put("commits", count(ice.snapshots()));
            if (!binlog) {
                r.put("peakHeapMb", m.peakHeapBytes() >> 20)
                        .put("gcMs", m.gcMs())
                        .put("cpuMs", m.cpuMs());
                job.cancel().get();
                r.put("verified", icebergCount(ice) == rows);
                return r;
            }
            // The snapshot phase on its own, as the snapshot benchmark reports it (the runner derives
            // that benchmark's rows from these trials instead of loading the same table twice).
            r.put("snapshotPeakHeapMb", m.peakHeapBytes() >> 20)
                    .put("snapshotGcMs", m.gcMs())
                    .put("snapshotCpuMs", m.cpuMs())
                    .put(
                            "snapshotVerified",
                            Long.parseLong(ice.currentSnapshot().summary().get("total-records")) == rows);
            // The binlog phase: updates and deletes after the snapshot, each batch its own transaction.
            binlogPhase(job, catalog, id, r, m);
            job.cancel().get();
            return r;
        }
    }

    /** Waits until the table's current snapshot holds {@code expected} data records; returns its commit time. */
    private static long awaitIcebergRecords(HadoopCatalog catalog, TableIdentifier id, long expected, JobClient job)
            throws Exception {
        long deadline = System.currentTimeMillis() + Duration.ofMinutes(20).toMillis();
        while (System.currentTimeMillis() < deadline) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new IllegalStateException("The job ended before the table held " + expected + " rows");
            }
            if (catalog.tableExists(id)) {
                Snapshot s = catalog.loadTable(id).currentSnapshot();
                if (s != null && Long.parseLong(s.summary().getOrDefault("total-records", "0")) >= expected) {
                    return s.timestampMillis();
                }
            }
            Thread.sleep(100); // polling the table's metadata; the commit time comes from the snapshot itself
        }
        throw new IllegalStateException("The table did not hold " + expected + " rows within 20 minutes");
    }

    /** Rows/s between the first commit and the one that completed the load: start-up left out. */
    private static Double steadyRate(Table table, long expected) {
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        snapshots.sort((x, y) -> Long.compare(x.timestampMillis(), y.timestampMillis()));
        Snapshot first = null;
        Snapshot last = null;
        for (Snapshot s : snapshots) {
            long records = Long.parseLong(s.summary().getOrDefault("total-records", "0"));
            if (first == null && records > 0) {
                first = s;
            }
            if (records >= expected) {
                last = s;
                break;
            }
        }
        if (first == null || last == null || last == first) {
            return null;
        }
        long added = Long.parseLong(last.summary().get("total-records"))
                - Long.parseLong(first.summary().get("total-records"));
        return added * 1000.0 / (last.timestampMillis() - first.timestampMillis());
    }

    private static long icebergCount(Table table) throws Exception {
        table.refresh();
        long n = 0;
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).select("id").build()) {
            for (Record ignored : records) {
                n++;
            }
        }
        return n;
    }

    private static int count(Iterable<?> it) {
        int n = 0;
        for (Object ignored : it) {
            n++;
        }
        return n;
    }

    private static final int BATCH = 1000;

    /**
     * Applies {@code changes} updates and deletes in batches of 1,000 (three quarters updates setting
     * version = batch number, a quarter deletes), each its own transaction, as fast as MySQL takes
     * them; then measures when each batch became readable in Iceberg (the first snapshot whose added
     * data files hold its version) and the rate over all changes.
     */
    private void binlogPhase(JobClient job, HadoopCatalog catalog, TableIdentifier id, Result r, Measure m)
            throws Exception {
        long changes = Long.parseLong(a.getOrDefault("changes", "200000"));
        int batches = (int) (changes / BATCH);
        String url = "jdbc:mysql://" + a.get("mysql-host") + ":" + a.get("mysql-port") + "/" + a.get("mysql-db")
                + "?useSSL=false&allowPublicKeyRetrieval=true";
        String table = a.getOrDefault("mysql-table", "orders");
        long[] committed = new long[batches + 1];
        long firstSnapshot = catalog.loadTable(id).currentSnapshot().snapshotId();
        // ALTER TABLE ... ADD COLUMN spread evenly over the changes (Inlet follows them with 'evolve'):
        // the batch after each shows what the change costs the table.
        int alters = Integer.parseInt(a.getOrDefault("schema-changes", "0"));
        java.util.Set<Integer> alterBefore = new java.util.TreeSet<>();
        for (int j = 1; j <= alters; j++) {
            alterBefore.add((int) ((long) j * batches / (alters + 1)) + 1);
        }
        try (Connection c = DriverManager.getConnection(url, a.get("mysql-user"), a.get("mysql-password"));
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (int k = 1; k <= batches; k++) {
                if (alterBefore.contains(k)) {
                    s.execute("ALTER TABLE `" + table + "` ADD COLUMN extra_" + k + " INT NULL");
                }
                long lo = (long) (k - 1) * BATCH + 1;
                long updatesTo = lo + BATCH * 3 / 4 - 1;
                s.executeUpdate("UPDATE `" + table + "` SET version = " + k
                        + ", amount = amount + 1, status = 'changed' WHERE id BETWEEN " + lo + " AND " + updatesTo);
                s.executeUpdate(
                        "DELETE FROM `" + table + "` WHERE id BETWEEN " + (updatesTo + 1) + " AND " + (lo + BATCH - 1));
                c.commit();
                committed[k] = System.currentTimeMillis();
            }
        }
        // Follow the commits until the last batch is visible.
        long[] visible = new long[batches + 1];
        java.util.Set<Long> seen = new java.util.HashSet<>();
        int maxVisible = 0;
        long deadline = System.currentTimeMillis() + Duration.ofMinutes(20).toMillis();
        while (maxVisible < batches && System.currentTimeMillis() < deadline) {
            Table t = catalog.loadTable(id);
            List<Snapshot> fresh = new ArrayList<>();
            for (Snapshot snap : t.snapshots()) {
                if (snap.snapshotId() != firstSnapshot
                        && snap.timestampMillis() >= committed[1] - 60_000
                        && seen.add(snap.snapshotId())) {
                    fresh.add(snap);
                }
            }
            fresh.sort((x, y) -> Long.compare(x.sequenceNumber(), y.sequenceNumber()));
            for (Snapshot snap : fresh) {
                int v = maxVersion(t, snap);
                for (int k = maxVisible + 1; k <= Math.min(v, batches); k++) {
                    visible[k] = snap.timestampMillis();
                }
                maxVisible = Math.max(maxVisible, Math.min(v, batches));
            }
            if (maxVisible < batches) {
                Thread.sleep(100); // polling for the next commit
            }
        }
        if (maxVisible < batches) {
            throw new IllegalStateException("Only " + maxVisible + " of " + batches + " binlog batches became visible");
        }
        List<Long> latencies = new ArrayList<>();
        for (int k = 1; k <= batches; k++) {
            latencies.add(visible[k] - committed[k]);
        }
        long afterAlterMax = 0;
        for (int k : alterBefore) {
            afterAlterMax = Math.max(afterAlterMax, visible[k] - committed[k]);
        }
        Collections.sort(latencies);
        long span = visible[batches] - (committed[1] - 1);
        if (alters > 0) {
            r.put("schemaChanges", alters).put("latencyAfterSchemaChangeMaxMs", afterAlterMax);
        }
        r.put("changes", changes)
                .put("binlogRowsPerSec", changes * 1000.0 / span)
                .put("latencyP50Ms", latencies.get(latencies.size() / 2))
                .put(
                        "latencyP99Ms",
                        latencies.get(Math.min(latencies.size() - 1, (int) Math.ceil(latencies.size() * 0.99) - 1)))
                .put("peakHeapMb", m.peakHeapBytes() >> 20)
                .put("gcMs", m.gcMs())
                .put("cpuMs", m.cpuMs());
        Table t = catalog.loadTable(id);
        long expectedRows = rows - changes / 4;
        r.put("verified", icebergCount(t) == expectedRows);
    }

    /** The largest {@code version} in the data files a snapshot added (0 when none). */
    private static int maxVersion(Table table, Snapshot snap) throws Exception {
        int max = 0;
        Schema projected = table.schema().select("version");
        for (DataFile f : snap.addedDataFiles(table.io())) {
            try (CloseableIterable<Record> it = Parquet.read(
                            table.io().newInputFile(f.path().toString()))
                    .project(projected)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projected, fileSchema))
                    .build()) {
                for (Record rec : it) {
                    Object v = rec.getField("version");
                    if (v != null) {
                        max = Math.max(max, (Integer) v);
                    }
                }
            }
        }
        return max;
    }

    // ---------------------------------------------------------------- MySQL into Hudi

    private Result snapshotHudi(String system, Result r) throws Exception {
        String db = a.get("mysql-db");
        String table = a.getOrDefault("mysql-table", "orders");
        Path base = work.resolve("hudi");
        Path tablePath = base.resolve(db).resolve(table);
        JobClient job;
        try (Measure m = Measure.start()) {
            if ("inlet".equals(system)) {
                job = Pipeline.builder()
                        .environment(env())
                        .jobName("inlet snapshot into hudi")
                        .source(inletMySql(table))
                        .sink(hudiSink(base))
                        .build()
                        .executeAsync();
            } else {
                StreamTableEnvironment t = StreamTableEnvironment.create(env());
                t.executeSql(mysqlSourceDdl(table));
                t.executeSql("CREATE TABLE h (" + ORDERS_SQL_COLUMNS
                        + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'hudi',"
                        + " 'path' = '" + tablePath.toUri()
                        + "', 'table.type' = 'MERGE_ON_READ', 'precombine.field' = 'updated_at',"
                        + " 'hoodie.embed.timeline.server' = 'false')");
                job = t.executeSql("INSERT INTO h SELECT * FROM src")
                        .getJobClient()
                        .orElseThrow();
            }
            long[] done = awaitHudiWrites(tablePath, rows, job);
            r.put("seconds", (done[0] - m.wallStartMs()) / 1000.0)
                    .put("rowsPerSec", rows * 1000.0 / (done[0] - m.wallStartMs()));
            r.put("steadyRowsPerSec", hudiSteadyRate(tablePath, rows));
            r.put("peakHeapMb", m.peakHeapBytes() >> 20).put("gcMs", m.gcMs()).put("cpuMs", m.cpuMs());
            job.cancel().get();
        }
        r.put(
                "verified",
                hudiCount(
                                tablePath,
                                "id BIGINT, customer_id INT, quantity INT, amount DECIMAL(10, 2), status" + " STRING,"
                                        + " note STRING,"
                                        + " updated_at TIMESTAMP(3), version INT"
                                        + ("inlet".equals(system) ? ", _source_position BIGINT" : ""))
                        == rows);
        return r;
    }

    /** Completed delta commits of a Hudi table: [completion time ms, records written], in order. */
    private static List<long[]> hudiCommits(Path table) throws Exception {
        Path timeline = table.resolve(".hoodie");
        if (!Files.isDirectory(timeline)) {
            return List.of();
        }
        List<long[]> out = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(timeline)) {
            files = s.filter(p -> p.getFileName().toString().matches("\\d+\\.deltacommit"))
                    .sorted()
                    .collect(Collectors.toList());
        }
        for (Path f : files) {
            long written = 0;
            String json = Files.readString(f, StandardCharsets.UTF_8);
            if (json.isBlank()) {
                continue;
            }
            Object parsed = MiniJson.parse(json);
            Object stats = ((Map<?, ?>) parsed).get("partitionToWriteStats");
            if (stats instanceof Map) {
                for (Object list : ((Map<?, ?>) stats).values()) {
                    for (Object stat : (List<?>) list) {
                        Object w = ((Map<?, ?>) stat).get("numWrites");
                        written += w instanceof Number ? ((Number) w).longValue() : 0;
                    }
                }
            }
            out.add(new long[] {Files.getLastModifiedTime(f).toMillis(), written});
        }
        return out;
    }

    /** Waits until the delta commits hold {@code expected} records; returns [completion time]. */
    private static long[] awaitHudiWrites(Path table, long expected, JobClient job) throws Exception {
        long deadline = System.currentTimeMillis() + Duration.ofMinutes(30).toMillis();
        while (System.currentTimeMillis() < deadline) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new IllegalStateException("The job ended before the Hudi table held " + expected + " rows");
            }
            long total = 0;
            for (long[] c : hudiCommits(table)) {
                total += c[1];
                if (total >= expected) {
                    return new long[] {c[0]};
                }
            }
            Thread.sleep(200); // polling the timeline; the completion time comes from the commit file
        }
        throw new IllegalStateException("The Hudi table did not hold " + expected + " rows within 30 minutes");
    }

    private static Double hudiSteadyRate(Path table, long expected) throws Exception {
        List<long[]> commits = hudiCommits(table);
        long total = 0;
        long firstTime = -1;
        long firstTotal = 0;
        for (long[] c : commits) {
            total += c[1];
            if (firstTime < 0 && c[1] > 0) {
                firstTime = c[0];
                firstTotal = total;
            } else if (firstTime >= 0 && total >= expected) {
                return (total - firstTotal) * 1000.0 / Math.max(1, c[0] - firstTime);
            }
        }
        return null;
    }

    /** Rows in the Hudi table, read with Hudi's own Flink reader (log files merged). */
    private static long hudiCount(Path table, String columns) throws Exception {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("table.exec.resource.default-parallelism", "1");
        t.executeSql("CREATE TABLE h (" + columns
                + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'hudi', 'path' = '" + table.toUri()
                + "', 'table.type' = 'MERGE_ON_READ', 'hoodie.embed.timeline.server' = 'false')");
        try (CloseableIterator<Row> it = t.executeSql("SELECT COUNT(*) FROM h").collect()) {
            return ((Number) it.next().getField(0)).longValue();
        }
    }

    // ---------------------------------------------------------------- Debezium on Kafka

    private static final String KAFKA_SQL_COLUMNS =
            "id BIGINT NOT NULL, customer STRING, amount DECIMAL(10, 2), status STRING, updated_at TIMESTAMP(3)";

    private String kafkaSourceDdl() {
        return "CREATE TABLE src (" + KAFKA_SQL_COLUMNS
                + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'kafka',"
                + " 'topic' = '" + a.get("topic") + "', 'properties.bootstrap.servers' = '" + a.get("kafka") + "',"
                + " 'properties.group.id' = 'bench-sql', 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset',"
                + " 'format' = 'debezium-avro-confluent', 'debezium-avro-confluent.url' = '" + a.get("registry") + "')";
    }

    private DebeziumKafkaSource inletKafka() {
        return DebeziumKafkaSource.builder()
                .bootstrapServers(a.get("kafka"))
                .topics(a.get("topic"))
                .registryUrl(a.get("registry"))
                .groupId("bench-inlet")
                .startupMode("earliest-offset")
                .boundedMode("latest-offset")
                .build();
    }

    private Result kafkaIceberg(String system, Result r) throws Exception {
        Path warehouse = work.resolve("warehouse");
        TableIdentifier id = TableIdentifier.of("shop", "orders");
        long finalRows = Long.parseLong(a.get("final-rows"));
        try (Measure m = Measure.start();
                HadoopCatalog catalog = new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(false),
                        warehouse.toUri().toString())) {
            if ("inlet".equals(system)) {
                Pipeline.builder()
                        .environment(env())
                        .jobName("inlet kafka into iceberg")
                        .source(inletKafka())
                        .sink(IcebergSink.builder()
                                .warehouse(warehouse.toUri().toString())
                                .build())
                        .build()
                        .execute();
            } else {
                StreamTableEnvironment t = StreamTableEnvironment.create(env());
                t.executeSql(kafkaSourceDdl());
                t.executeSql("CREATE CATALOG ice WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                        + warehouse.toUri() + "')");
                t.executeSql("CREATE DATABASE ice.shop");
                t.executeSql("CREATE TABLE ice.shop.orders (" + KAFKA_SQL_COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
                t.executeSql("INSERT INTO ice.shop.orders SELECT * FROM src").await();
            }
            long done = System.currentTimeMillis();
            Table ice = catalog.loadTable(id);
            r.put("seconds", (done - m.wallStartMs()) / 1000.0)
                    .put("rowsPerSec", rows * 1000.0 / (done - m.wallStartMs()));
            // The job ends after the final checkpoint Flink takes once its tasks finished (up to an interval
            // after the end of input); the last rows are readable from the commit at the end of input.
            long readable = ice.currentSnapshot().timestampMillis();
            r.put("readableSeconds", (readable - m.wallStartMs()) / 1000.0)
                    .put("readableRowsPerSec", rows * 1000.0 / (readable - m.wallStartMs()));
            r.put("steadyRowsPerSec", kafkaSteadyRate(ice));
            r.put("peakHeapMb", m.peakHeapBytes() >> 20).put("gcMs", m.gcMs()).put("cpuMs", m.cpuMs());
            r.put("verified", icebergCount(ice) == finalRows);
        }
        return r;
    }

    /**
     * Messages/s between commits: the messages a commit covers are not in its summary (updates and
     * deletes), so the rate spreads all messages over the time from the first to the last commit,
     * scaled by the share of commits in between.
     */
    private Double kafkaSteadyRate(Table table) {
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        snapshots.sort((x, y) -> Long.compare(x.timestampMillis(), y.timestampMillis()));
        if (snapshots.size() < 3) {
            return null;
        }
        // Records added per commit, as a proxy of the messages it covers (every message adds a row or a delete).
        long[] weight = new long[snapshots.size()];
        long total = 0;
        for (int i = 0; i < snapshots.size(); i++) {
            Map<String, String> s = snapshots.get(i).summary();
            weight[i] = Long.parseLong(s.getOrDefault("added-records", "0"))
                    + Long.parseLong(s.getOrDefault("added-equality-deletes", "0"))
                    + Long.parseLong(s.getOrDefault("added-position-deletes", "0"));
            total += weight[i];
        }
        long span = snapshots.get(snapshots.size() - 1).timestampMillis()
                - snapshots.get(0).timestampMillis();
        return ratePastFirstCommit(weight[0], total, span);
    }

    /**
     * Messages/s after the first commit: the messages of a bounded run spread over the commits by
     * their weights (records, deletes), the first commit's share left out with its start-up.
     */
    private Double ratePastFirstCommit(long firstWeight, long totalWeight, long spanMs) {
        return spanMs <= 0 || totalWeight == 0
                ? null
                : rows * ((double) (totalWeight - firstWeight) / totalWeight) * 1000.0 / spanMs;
    }

    private Result kafkaHudi(String system, Result r) throws Exception {
        Path base = work.resolve("hudi");
        Path tablePath = base.resolve("shop").resolve("orders");
        long finalRows = Long.parseLong(a.get("final-rows"));
        try (Measure m = Measure.start()) {
            if ("inlet".equals(system)) {
                Pipeline.builder()
                        .environment(env())
                        .jobName("inlet kafka into hudi")
                        .source(inletKafka())
                        .sink(hudiSink(base))
                        .build()
                        .execute();
            } else {
                StreamTableEnvironment t = StreamTableEnvironment.create(env());
                t.executeSql(kafkaSourceDdl());
                t.executeSql("CREATE TABLE h (" + KAFKA_SQL_COLUMNS
                        + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'hudi',"
                        + " 'path' = '" + tablePath.toUri()
                        + "', 'table.type' = 'MERGE_ON_READ', 'precombine.field' = 'updated_at',"
                        + " 'hoodie.embed.timeline.server' = 'false')");
                t.executeSql("INSERT INTO h SELECT * FROM src").await();
            }
            long done = System.currentTimeMillis();
            r.put("seconds", (done - m.wallStartMs()) / 1000.0)
                    .put("rowsPerSec", rows * 1000.0 / (done - m.wallStartMs()));
            List<long[]> commits = hudiCommits(tablePath);
            if (commits.size() >= 3) {
                long all = commits.stream().mapToLong(c -> c[1]).sum();
                r.put(
                        "steadyRowsPerSec",
                        ratePastFirstCommit(
                                commits.get(0)[1], all, commits.get(commits.size() - 1)[0] - commits.get(0)[0]));
            }
            r.put("peakHeapMb", m.peakHeapBytes() >> 20).put("gcMs", m.gcMs()).put("cpuMs", m.cpuMs());
        }
        r.put(
                "verified",
                hudiCount(
                                tablePath,
                                KAFKA_SQL_COLUMNS.replace(" NOT NULL", "")
                                        + ("inlet".equals(system) ? ", _source_position BIGINT" : ""))
                        == finalRows);
        return r;
    }

    // ---------------------------------------------------------------- physical proxies

    /** Iceberg's generic Parquet appender writing the orders rows to one file. */
    private Result proxyAppender(Result r) throws Exception {
        // The orders columns, without the key: a plain appender.
        Schema schema = new Schema(ChangelogRead.SCHEMA.columns());
        File out = work.resolve("appender.parquet").toFile();
        String[] statuses = {"new", "paid", "shipped", "cancelled"};
        LocalDateTime t0 = LocalDateTime.parse("2025-01-01T00:00:00");
        try (Measure m = Measure.start()) {
            long start = System.nanoTime();
            try (FileAppender<Record> appender = Parquet.write(org.apache.iceberg.Files.localOutput(out))
                    .schema(schema)
                    .createWriterFunc(GenericParquetWriter::buildWriter)
                    .overwrite()
                    .build()) {
                GenericRecord rec = GenericRecord.create(schema);
                for (long i = 1; i <= rows; i++) {
                    rec.setField("id", i);
                    rec.setField("customer_id", (int) (i % 100_000));
                    rec.setField("quantity", (int) (1 + i % 7));
                    rec.setField("amount", BigDecimal.valueOf(i % 100_000 * 100 + 99, 2));
                    rec.setField("status", statuses[(int) (i % 4)]);
                    rec.setField("note", "order note " + i);
                    rec.setField("updated_at", t0.plusSeconds(i));
                    rec.setField("version", 0);
                    appender.add(rec);
                }
            }
            double secs = (System.nanoTime() - start) / 1e9;
            r.put("seconds", secs)
                    .put("rowsPerSec", rows / secs)
                    .put("peakHeapMb", m.peakHeapBytes() >> 20)
                    .put("gcMs", m.gcMs())
                    .put("cpuMs", m.cpuMs())
                    .put("verified", out.length() > 0);
        }
        return r;
    }

    /** A plain JDBC streaming scan of the MySQL table, every column read. */
    private Result proxyJdbc(Result r) throws Exception {
        String url = "jdbc:mysql://" + a.get("mysql-host") + ":" + a.get("mysql-port") + "/" + a.get("mysql-db")
                + "?useSSL=false&allowPublicKeyRetrieval=true&useCursorFetch=false";
        long n = 0;
        try (Measure m = Measure.start();
                Connection c = DriverManager.getConnection(url, a.get("mysql-user"), a.get("mysql-password"));
                Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
            s.setFetchSize(Integer.MIN_VALUE); // MySQL Connector/J streams rows one by one
            long start = System.nanoTime();
            try (ResultSet rs = s.executeQuery("SELECT * FROM `" + a.getOrDefault("mysql-table", "orders") + "`")) {
                int cols = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= cols; i++) {
                        rs.getObject(i);
                    }
                    n++;
                }
            }
            double secs = (System.nanoTime() - start) / 1e9;
            r.put("seconds", secs)
                    .put("rowsPerSec", n / secs)
                    .put("peakHeapMb", m.peakHeapBytes() >> 20)
                    .put("gcMs", m.gcMs())
                    .put("cpuMs", m.cpuMs())
                    .put("verified", n == rows);
        }
        return r;
    }

    /** A plain KafkaConsumer reading the topic from the start to its end. */
    private Result proxyKafka(Result r) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("kafka"));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-proxy-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        long n = 0;
        try (Measure m = Measure.start();
                KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(a.get("topic")).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition()))
                    .collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = new TreeMap<>((x, y) -> Integer.compare(x.partition(), y.partition()));
            end.putAll(consumer.endOffsets(parts));
            long start = System.nanoTime();
            long bytes = 0;
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(500));
                for (var rec : recs) {
                    n++;
                    bytes += rec.value() == null ? 0 : rec.value().length;
                }
            }
            double secs = (System.nanoTime() - start) / 1e9;
            r.put("seconds", secs)
                    .put("rowsPerSec", n / secs)
                    .put("peakHeapMb", m.peakHeapBytes() >> 20)
                    .put("gcMs", m.gcMs())
                    .put("cpuMs", m.cpuMs())
                    .put("avgValueBytes", n == 0 ? 0 : bytes / n)
                    .put("verified", n == rows);
        }
        return r;
    }
}
