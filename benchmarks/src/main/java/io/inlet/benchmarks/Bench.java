package io.inlet.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs the benchmarks and prints one table: each pipeline as Inlet and as the Flink SQL job a user
 * writes by hand, on the same data in the same run, alternating, several times each, at each
 * parallelism, every trial in a fresh JVM with the same heap and checkpoint interval; then the
 * physical-limit proxies, the growth with rows, and the JMH micro benchmarks.
 *
 * <pre>
 * mvn -B -DskipTests -Pbench -pl benchmarks -am package
 * mvn -B -DskipTests -Pbench -pl benchmarks -am package -Dbench.args="--only snapshot-iceberg --rows 100000 --trials 1"
 * </pre>
 *
 * Options: {@code --only} (comma-separated: snapshot-iceberg, snapshot-hudi, binlog-iceberg,
 * kafka-iceberg, kafka-hudi, changelog-iceberg, changelog-upsert-iceberg, changelog-upsert-state-iceberg,
 * many-iceberg, proxies, scaling, jmh),
 * {@code --rows} (MySQL rows, and the changelog reads' initial rows, 1,000,000),
 * {@code --kafka-rows} (5,000,000: start-up hides the steady rate on fewer), {@code --changes} (binlog changes,
 * 200,000), {@code --trials} (3),
 * {@code --parallelism} (1,2), {@code --checkpoint-ms} (5000), {@code --heap} (2g), {@code --scaling}
 * (100000,1000000,3000000), {@code --scaling-heap} (1g, the heap of the growth runs), {@code --profile} (false; true
 * records each trial with Java Flight
 * Recorder next to its log), {@code --inlet-source} (k=v,k=v: options of Inlet's MySQL source on
 * top of its defaults, to explore settings), {@code --inlet-sink} (k=v,k=v: options of Inlet's Hudi sink), {@code
 * --systems} (inlet,sql: which side of each comparison runs), {@code --tables} (500) and {@code --rows-each}
 * (2000) for many-iceberg, {@code --many-systems} (inlet,flinksink: Inlet's sink, Iceberg's FlinkSink per table),
 * {@code --schema-changes} (0: ALTER TABLE ADD COLUMN statements spread over binlog-iceberg's changes, which Inlet
 * follows with schema-change.behavior=evolve; each trial reports how long they paused the table).
 */
public final class Bench {

    static final List<String> ALL = List.of(
            "snapshot-iceberg",
            "snapshot-hudi",
            "binlog-iceberg",
            "kafka-iceberg",
            "kafka-hudi",
            "changelog-iceberg",
            "changelog-upsert-iceberg",
            "changelog-upsert-state-iceberg",
            "many-iceberg",
            "proxies",
            "scaling",
            "jmh");

    private final Map<String, String> opts;
    private final Path out;
    private final List<Result> results = new ArrayList<>();
    private int trialNo;

    private Bench(Map<String, String> opts) throws IOException {
        this.opts = opts;
        this.out = Path.of(
                        "target",
                        "benchmarks",
                        LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")))
                .toAbsolutePath();
        Files.createDirectories(out);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        opts.put("only", String.join(",", ALL));
        opts.put("rows", "1000000");
        opts.put("kafka-rows", "5000000");
        opts.put("changes", "200000");
        opts.put("trials", "3");
        opts.put("parallelism", "1,2");
        opts.put("checkpoint-ms", "5000");
        opts.put("heap", "2g");
        opts.put("scaling-heap", "1g");
        opts.put("scaling", "100000,1000000,3000000");
        opts.put("profile", "false");
        opts.put("inlet-source", "");
        opts.put("inlet-sink", "");
        opts.put("systems", "inlet,sql");
        opts.put("tables", "500");
        opts.put("rows-each", "2000");
        opts.put("many-systems", "inlet,flinksink");
        opts.put("schema-changes", "0");
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "Options are --name value; got '" + args[i] + "'. See Bench's Javadoc.");
            }
            String key = args[i].substring(2);
            if (!opts.containsKey(key)) {
                throw new IllegalArgumentException("Unknown option --" + key + "; options are " + opts.keySet());
            }
            opts.put(key, args[++i]);
        }
        Bench bench = new Bench(opts);
        try (Services services = new Services()) {
            bench.run(services);
        }
        System.exit(0);
    }

    static void log(String message) {
        System.err.println(
                "[bench " + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + "] " + message);
    }

    private void run(Services services) throws Exception {
        Set<String> only = new LinkedHashSet<>(Arrays.asList(opts.get("only").split(",")));
        for (String s : only) {
            if (!ALL.contains(s)) {
                throw new IllegalArgumentException("Unknown benchmark '" + s + "'; they are " + ALL);
            }
        }
        log("Results and trial logs go to " + out);
        long rows = Long.parseLong(opts.get("rows"));
        long kafkaRows = Long.parseLong(opts.get("kafka-rows"));
        if (only.contains("snapshot-iceberg") && !only.contains("binlog-iceberg")) {
            compare(services, "snapshot-iceberg", rows, services.mysqlArgs(), services.ordersTable(rows), false);
        }
        if (only.contains("snapshot-hudi")) {
            compare(services, "snapshot-hudi", rows, services.mysqlArgs(), services.ordersTable(rows), false);
        }
        if (only.contains("binlog-iceberg")) {
            compare(services, "binlog-iceberg", rows, services.mysqlArgs(), services.ordersTable(rows), true);
        }
        if (only.contains("kafka-iceberg")) {
            compare(services, "kafka-iceberg", kafkaRows, services.kafkaArgs(kafkaRows), null, false);
        }
        if (only.contains("kafka-hudi")) {
            compare(services, "kafka-hudi", kafkaRows, services.kafkaArgs(kafkaRows), null, false);
        }
        if (only.contains("changelog-iceberg")
                || only.contains("changelog-upsert-iceberg")
                || only.contains("changelog-upsert-state-iceberg")) {
            long changes = Long.parseLong(opts.get("changes"));
            Path data = out.resolve("changelog-data");
            long t0 = System.nanoTime();
            long expected = ChangelogRead.prepare(data, rows, changes);
            log("Wrote " + rows + " rows and " + changes + " changes into both Iceberg tables in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms; the changelog read emits " + expected + " rows");
            Map<String, String> base = new LinkedHashMap<>();
            base.put("changelog-warehouse", data.toString());
            base.put("changelog-expected", String.valueOf(expected));
            for (String scenario :
                    List.of("changelog-iceberg", "changelog-upsert-iceberg", "changelog-upsert-state-iceberg")) {
                if (only.contains(scenario)) {
                    compare(services, scenario, rows + changes, base, null, false);
                }
            }
            deleteData(data);
        }
        if (only.contains("many-iceberg")) {
            many(services);
        }
        if (only.contains("proxies")) {
            proxies(services, rows, kafkaRows);
        }
        if (only.contains("scaling")) {
            for (String n : opts.get("scaling").split(",")) {
                long r = Long.parseLong(n.trim());
                Map<String, String> args = new LinkedHashMap<>(services.mysqlArgs());
                args.put("mysql-table", services.ordersTable(r));
                // A smaller heap than the comparisons: the growth runs also show the snapshot fits in it.
                Result res = trial("snapshot-iceberg", "inlet", r, 1, args, opts.get("scaling-heap"));
                res.put("scaling", true);
                results.add(res);
            }
        }
        String table = Report.render(results, opts);
        if (only.contains("jmh")) {
            table += "\n" + Micro.run(services, out);
        }
        Files.writeString(out.resolve("results.md"), table, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(table);
        log("Written to " + out.resolve("results.md"));
    }

    /** Inlet and SQL alternating, {@code trials} times each, at each parallelism. */
    private void compare(
            Services services, String scenario, long rows, Map<String, String> base, String table, boolean copyPerTrial)
            throws Exception {
        int trials = Integer.parseInt(opts.get("trials"));
        for (String p : opts.get("parallelism").split(",")) {
            int parallelism = Integer.parseInt(p.trim());
            for (int i = 0; i < trials; i++) {
                // Alternate who goes first, so that neither always runs on a warmer machine.
                List<String> order = i % 2 == 0 ? List.of("inlet", "sql") : List.of("sql", "inlet");
                for (String system : order) {
                    if (!Arrays.asList(opts.get("systems").split(",")).contains(system)) {
                        continue; // exploring one side only; the table then has no ratio
                    }
                    Map<String, String> args = new LinkedHashMap<>(base);
                    String copy = null;
                    if (table != null) {
                        args.put(
                                "mysql-table",
                                copyPerTrial ? (copy = services.copyOf(table, "binlog_" + (trialNo + 1))) : table);
                    }
                    args.put("changes", opts.get("changes"));
                    if (!"0".equals(opts.get("schema-changes"))) {
                        args.put("schema-changes", opts.get("schema-changes"));
                        if ("inlet".equals(system)) {
                            // Followed by Inlet; the SQL job reads its declared columns and ignores new ones.
                            args.put("inlet-source.schema-change.behavior", "evolve");
                        }
                    }
                    Result r = trial(scenario, system, rows, parallelism, args);
                    results.add(r);
                    if ("binlog-iceberg".equals(scenario) && !r.values.containsKey("error")) {
                        results.add(snapshotPhase(r));
                    }
                    if (copy != null) {
                        services.drop(copy);
                    }
                }
            }
        }
    }

    /**
     * The snapshot benchmark's result from a binlog trial's first phase: the same snapshot of a
     * fresh copy of the same table into the same Iceberg table, clock stopped at the same commit.
     */
    static Result snapshotPhase(Result binlog) {
        Result r = new Result();
        binlog.values.forEach((k, v) -> {
            if (!k.startsWith("binlog")
                    && !k.startsWith("latency")
                    && !k.startsWith("snapshot")
                    && !k.equals("changes")
                    && !k.equals("peakHeapMb")
                    && !k.equals("gcMs")
                    && !k.equals("cpuMs")
                    && !k.equals("verified")) {
                r.put(k, v);
            }
        });
        return r.put("scenario", "snapshot-iceberg")
                .put("peakHeapMb", binlog.values.get("snapshotPeakHeapMb"))
                .put("gcMs", binlog.values.get("snapshotGcMs"))
                .put("cpuMs", binlog.values.get("snapshotCpuMs"))
                .put("verified", binlog.values.get("snapshotVerified"))
                .put("fromBinlogTrial", true);
    }

    /** Inlet's sink and the per-table FlinkSink path over the same many tables, a fresh load each trial. */
    private void many(Services services) throws Exception {
        int tables = Integer.parseInt(opts.get("tables"));
        int rowsEach = Integer.parseInt(opts.get("rows-each"));
        for (String p : opts.get("parallelism").split(",")) {
            int parallelism = Integer.parseInt(p.trim());
            for (String system : opts.get("many-systems").split(",")) {
                Map<String, String> args = new LinkedHashMap<>(services.mysqlArgs());
                String db = "many_" + (trialNo + 1);
                long t0 = System.nanoTime();
                ManyTables.load(args, db, tables, rowsEach);
                log("Loaded " + tables + " tables of " + rowsEach + " rows into MySQL " + db + " in "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms");
                args.put("many-db", db);
                args.put("tables", String.valueOf(tables));
                args.put("rows-each", String.valueOf(rowsEach));
                Result r = trial("many-iceberg", system.trim(), (long) tables * rowsEach, parallelism, args);
                r.put("tables", tables);
                results.add(r);
                services.dropDatabase(db);
            }
        }
    }

    private void proxies(Services services, long rows, long kafkaRows) throws Exception {
        int trials = Integer.parseInt(opts.get("trials"));
        for (int i = 0; i < trials; i++) {
            results.add(trial("proxy-appender", "proxy", rows, 1, Map.of()));
            Map<String, String> jdbc = new LinkedHashMap<>(services.mysqlArgs());
            jdbc.put("mysql-table", services.ordersTable(rows));
            results.add(trial("proxy-jdbc", "proxy", rows, 1, jdbc));
            results.add(trial("proxy-kafka", "proxy", kafkaRows, 1, services.kafkaArgs(kafkaRows)));
        }
    }

    /** One trial in a fresh JVM with the benchmark's heap. */
    private Result trial(String scenario, String system, long rows, int parallelism, Map<String, String> extra)
            throws Exception {
        return trial(scenario, system, rows, parallelism, extra, opts.get("heap"));
    }

    private Result trial(
            String scenario, String system, long rows, int parallelism, Map<String, String> extra, String heap)
            throws Exception {
        trialNo++;
        String name = String.format(Locale.ROOT, "%03d-%s-%s-p%d", trialNo, scenario, system, parallelism);
        Path work = out.resolve(name);
        Files.createDirectories(work);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("-Xms" + heap);
        cmd.add("-XX:+UseParallelGC");
        cmd.add("-Djava.net.preferIPv4Stack=true");
        if (Boolean.parseBoolean(opts.get("profile"))) {
            // Java Flight Recorder's sampling profile of the whole trial, next to its log.
            cmd.add("-XX:StartFlightRecording=settings=profile,filename=" + out.resolve(name + ".jfr"));
        }
        cmd.add("-Dlog4j.configurationFile=bench-log4j2.properties");
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                cmd.add(arg);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Trial.class.getName());
        Map<String, String> args = new LinkedHashMap<>(extra);
        args.put("scenario", scenario);
        args.put("system", system);
        args.put("rows", String.valueOf(rows));
        args.put("parallelism", String.valueOf(parallelism));
        args.put("checkpoint-ms", opts.get("checkpoint-ms"));
        args.put("work", work.toString());
        for (String side : new String[] {"inlet-source", "inlet-sink"}) {
            if ("inlet".equals(system) && !opts.get(side).isEmpty()) {
                // Options on top of the defaults, for exploring settings; the table's heading lists them.
                for (String kv : opts.get(side).split(",")) {
                    args.put(side + "." + kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
            }
        }
        args.forEach((k, v) -> cmd.add(k + "=" + v));
        Path logFile = out.resolve(name + ".log");
        log("Trial " + name + " ...");
        Process proc = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        if (!proc.waitFor(45, TimeUnit.MINUTES)) {
            proc.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
        Result r = Result.last(lines);
        if (r != null) {
            schemaChangePauses(lines, r);
        }
        if (r == null) {
            String tail = lines.subList(Math.max(0, lines.size() - 15), lines.size()).stream()
                    .collect(Collectors.joining("\n"));
            log("Trial " + name + " failed (exit " + (proc.isAlive() ? "timeout" : proc.exitValue()) + "):\n" + tail);
            r = new Result()
                    .put("scenario", scenario)
                    .put("system", system)
                    .put("rows", rows)
                    .put("parallelism", parallelism)
                    .put("error", "see " + logFile);
        } else {
            log(String.format(
                    Locale.ROOT,
                    "Trial %s: %.0f rows/s%s, peak heap %s MB, verified %s",
                    name,
                    r.number("rowsPerSec"),
                    Double.isNaN(r.number("binlogRowsPerSec"))
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    ", binlog %.0f rows/s, latency p50 %.0f ms p99 %.0f ms",
                                    r.number("binlogRowsPerSec"),
                                    r.number("latencyP50Ms"),
                                    r.number("latencyP99Ms")),
                    r.text("peakHeapMb"),
                    r.text("verified")));
            if (r.values.containsKey("schemaChangePauses")) {
                log(String.format(
                        Locale.ROOT,
                        "Trial %s: %s schema changes paused the table %s times, p50 %s ms, max %s ms; the batch"
                                + " after each readable within %s ms",
                        name,
                        r.text("schemaChanges"),
                        r.text("schemaChangePauses"),
                        r.text("schemaChangePauseP50Ms"),
                        r.text("schemaChangePauseMaxMs"),
                        r.text("latencyAfterSchemaChangeMaxMs")));
            }
            deleteData(work);
        }
        writePartial(r);
        return r;
    }

    private static final java.util.regex.Pattern PAUSE =
            java.util.regex.Pattern.compile("paused the table's writes on this subtask for (\\d+) ms");

    /**
     * How long each schema change paused a table's writer subtask (the Iceberg writer logs it per change
     * and subtask): their number, median and maximum.
     */
    static void schemaChangePauses(List<String> lines, Result r) {
        List<Long> pauses = new ArrayList<>();
        for (String line : lines) {
            java.util.regex.Matcher m = PAUSE.matcher(line);
            if (m.find()) {
                pauses.add(Long.parseLong(m.group(1)));
            }
        }
        if (!pauses.isEmpty()) {
            Collections.sort(pauses);
            r.put("schemaChangePauses", pauses.size())
                    .put("schemaChangePauseP50Ms", pauses.get(pauses.size() / 2))
                    .put("schemaChangePauseMaxMs", pauses.get(pauses.size() - 1));
        }
    }

    /** The table so far, after every trial: a long run stopped early still leaves its results. */
    private void writePartial(Result last) throws IOException {
        List<Result> soFar = new ArrayList<>(results);
        soFar.add(last);
        Files.writeString(out.resolve("results-partial.md"), Report.render(soFar, opts), StandardCharsets.UTF_8);
    }

    /** Tables of a finished trial are not kept: 1M-row runs would fill the disk. */
    private static void deleteData(Path work) throws IOException {
        if (!Files.exists(work)) {
            return;
        }
        try (var walk = Files.walk(work)) {
            walk.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }
}
