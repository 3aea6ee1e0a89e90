package io.inlet.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The benchmark table: medians, spreads and ratios per benchmark and parallelism, in Markdown. */
final class Report {

    private Report() {}

    static String render(List<Result> results, Map<String, String> opts) {
        StringBuilder sb = new StringBuilder();
        sb.append("## Inlet vs hand-written Flink SQL (")
                .append(opts.get("trials"))
                .append(" trials each, alternating; checkpoints every ")
                .append(opts.get("checkpoint-ms"))
                .append(" ms; heap ")
                .append(opts.get("heap"))
                .append(" per trial JVM)\n\n");
        for (String side : new String[] {"inlet-source", "inlet-sink"}) {
            if (!opts.get(side).isEmpty()) {
                sb.append("Inlet ran with --")
                        .append(side)
                        .append(' ')
                        .append(opts.get(side))
                        .append(" on top of its defaults.\n\n");
            }
        }
        sb.append("| benchmark | rows | p | Inlet rows/s (spread) | SQL rows/s (spread) | Inlet /"
                + " SQL | Inlet steady | SQL steady | steady ratio |"
                + " Inlet peak heap MB | SQL peak heap MB | Inlet GC ms | SQL GC ms | Inlet CPU s"
                + " | SQL CPU s | verified |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        Map<String, List<Result>> groups = new LinkedHashMap<>();
        for (Result r : results) {
            if (r.text("scenario").startsWith("proxy")
                    || r.text("scenario").startsWith("many")
                    || Boolean.TRUE.equals(r.values.get("scaling"))) {
                continue;
            }
            groups.computeIfAbsent(
                            r.text("scenario") + "|" + r.text("rows") + "|" + r.text("parallelism"),
                            k -> new ArrayList<>())
                    .add(r);
        }
        List<Map.Entry<String, List<Result>>> ordered = new ArrayList<>(groups.entrySet());
        ordered.sort(Comparator.comparingInt((Map.Entry<String, List<Result>> g) ->
                        Bench.ALL.indexOf(g.getKey().split("\\|")[0]))
                .thenComparingInt(g -> Integer.parseInt(g.getKey().split("\\|")[2])));
        for (Map.Entry<String, List<Result>> g : ordered) {
            String[] key = g.getKey().split("\\|");
            List<Result> inlet = of(g.getValue(), "inlet");
            List<Result> sql = of(g.getValue(), "sql");
            boolean binlog = key[0].startsWith("binlog");
            String metric = binlog ? "binlogRowsPerSec" : "rowsPerSec";
            double mi = median(inlet, metric);
            double ms = median(sql, metric);
            // A binlog trial's steady rate is its snapshot's (reported in the snapshot rows).
            double si = binlog ? Double.NaN : median(inlet, "steadyRowsPerSec");
            double ss = binlog ? Double.NaN : median(sql, "steadyRowsPerSec");
            sb.append("| ")
                    .append(key[0])
                    .append(" | ")
                    .append(fmt(Double.parseDouble(key[1])))
                    .append(" | ")
                    .append(key[2])
                    .append(" | ")
                    .append(fmt(mi))
                    .append(spread(inlet, metric))
                    .append(" | ")
                    .append(fmt(ms))
                    .append(spread(sql, metric))
                    .append(" | ")
                    .append(ratio(mi, ms))
                    .append(" | ")
                    .append(fmt(si))
                    .append(" | ")
                    .append(fmt(ss))
                    .append(" | ")
                    .append(ratio(si, ss))
                    .append(" | ")
                    .append(fmt(median(inlet, "peakHeapMb")))
                    .append(" | ")
                    .append(fmt(median(sql, "peakHeapMb")))
                    .append(" | ")
                    .append(fmt(median(inlet, "gcMs")))
                    .append(" | ")
                    .append(fmt(median(sql, "gcMs")))
                    .append(" | ")
                    .append(fmtSec(median(inlet, "cpuMs")))
                    .append(" | ")
                    .append(fmtSec(median(sql, "cpuMs")))
                    .append(" | ")
                    .append(verified(g.getValue()))
                    .append(" |\n");
        }
        List<Map.Entry<String, List<Result>>> readable = ordered.stream()
                .filter(g -> g.getValue().stream().allMatch(r -> r.values.get("readableRowsPerSec") != null))
                .collect(Collectors.toList());
        if (!readable.isEmpty()) {
            sb.append("\nBounded Kafka trials to the commit that makes the last row readable (the end of input),"
                    + " without the final checkpoint Flink waits for before the job ends (median rows/s):\n\n"
                    + "| benchmark | p | Inlet rows/s (spread) | SQL rows/s (spread) | Inlet / SQL |\n"
                    + "|---|---|---|---|---|\n");
            for (Map.Entry<String, List<Result>> g : readable) {
                String[] key = g.getKey().split("\\|");
                List<Result> inlet = of(g.getValue(), "inlet");
                List<Result> sql = of(g.getValue(), "sql");
                double mi = median(inlet, "readableRowsPerSec");
                double ms = median(sql, "readableRowsPerSec");
                sb.append("| ")
                        .append(key[0])
                        .append(" | ")
                        .append(key[2])
                        .append(" | ")
                        .append(fmt(mi))
                        .append(spread(inlet, "readableRowsPerSec"))
                        .append(" | ")
                        .append(fmt(ms))
                        .append(spread(sql, "readableRowsPerSec"))
                        .append(" | ")
                        .append(ratio(mi, ms))
                        .append(" |\n");
            }
        }
        if (results.stream().anyMatch(r -> Boolean.TRUE.equals(r.values.get("fromBinlogTrial")))) {
            sb.append("\nThe snapshot-iceberg rows are the first phase of the binlog-iceberg trials (a"
                    + " fresh copy of the table each).\n");
        }
        List<Result> binlog = results.stream()
                .filter(r -> r.text("scenario").startsWith("binlog"))
                .collect(Collectors.toList());
        if (!binlog.isEmpty()) {
            sb.append("\nBinlog phase latency, MySQL commit to readable in Iceberg (median over trials"
                    + " of each trial's p50 / p99):\n\n");
            sb.append("| p | Inlet p50 ms | Inlet p99 ms | SQL p50 ms | SQL p99 ms |\n|---|---|---|---|---|\n");
            Map<String, List<Result>> byP = binlog.stream()
                    .collect(
                            Collectors.groupingBy(r -> r.text("parallelism"), LinkedHashMap::new, Collectors.toList()));
            byP.forEach((p, rs) -> sb.append("| ")
                    .append(p)
                    .append(" | ")
                    .append(fmt(median(of(rs, "inlet"), "latencyP50Ms")))
                    .append(" | ")
                    .append(fmt(median(of(rs, "inlet"), "latencyP99Ms")))
                    .append(" | ")
                    .append(fmt(median(of(rs, "sql"), "latencyP50Ms")))
                    .append(" | ")
                    .append(fmt(median(of(rs, "sql"), "latencyP99Ms")))
                    .append(" |\n"));
        }
        List<Result> many = results.stream()
                .filter(r -> r.text("scenario").startsWith("many"))
                .collect(Collectors.toList());
        if (!many.isEmpty()) {
            sb.append("\nMany tables in one job (ManyTables: mixed shapes, the snapshot, then per table 20 updates,"
                    + " 5 deletes and 5 inserts; every table verified by key and version against MySQL):\n\n");
            sb.append("| system | tables | rows | p | job vertices | tasks | snapshot s | snapshot rows/s | binlog s"
                    + " | checkpoints (failed) | checkpoint ms median / max | checkpoint MB max | commits per"
                    + " checkpoint (binlog) | peak heap MB | GC ms | verified |\n");
            sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Result r : many) {
                if (r.values.containsKey("error")) {
                    sb.append("| ")
                            .append(r.text("system"))
                            .append(" | ")
                            .append(r.text("tables"))
                            .append(" | ")
                            .append(fmt(r.number("rows")))
                            .append(" | ")
                            .append(r.text("parallelism"))
                            .append(" | ")
                            .append(r.text("operators"))
                            .append(" | ")
                            .append(r.text("tasks"))
                            .append(" | failed: ")
                            .append(r.text("error"))
                            .append(" |||||||||\n");
                    continue;
                }
                sb.append("| ")
                        .append(r.text("system"))
                        .append(" | ")
                        .append(r.text("tables"))
                        .append(" | ")
                        .append(fmt(r.number("rows")))
                        .append(" | ")
                        .append(r.text("parallelism"))
                        .append(" | ")
                        .append(r.text("operators"))
                        .append(" | ")
                        .append(r.text("tasks"))
                        .append(" | ")
                        .append(String.format(java.util.Locale.ROOT, "%.1f", r.number("seconds")))
                        .append(" | ")
                        .append(fmt(r.number("rowsPerSec")))
                        .append(" | ")
                        .append(String.format(java.util.Locale.ROOT, "%.1f", r.number("binlogSeconds")))
                        .append(" | ")
                        .append(r.text("checkpoints"))
                        .append(" (")
                        .append(r.text("failedCheckpoints"))
                        .append(")")
                        .append(" | ")
                        .append(fmt(r.number("checkpointMsMedian")))
                        .append(" / ")
                        .append(fmt(r.number("checkpointMsMax")))
                        .append(" | ")
                        .append(String.format(
                                java.util.Locale.ROOT, "%.1f", r.number("checkpointBytesMax") / (1024.0 * 1024.0)))
                        .append(" | ")
                        .append(String.format(java.util.Locale.ROOT, "%.1f", r.number("commitsPerCheckpoint")))
                        .append(" | ")
                        .append(fmt(r.number("peakHeapMb")))
                        .append(" | ")
                        .append(fmt(r.number("gcMs")))
                        .append(" | ")
                        .append(r.text("verified"))
                        .append(" |\n");
            }
        }
        List<Result> proxies = results.stream()
                .filter(r -> r.text("scenario").startsWith("proxy"))
                .collect(Collectors.toList());
        if (!proxies.isEmpty()) {
            sb.append("\nPhysical-limit proxies (one thread each):\n\n| proxy | rows | rows/s (spread)"
                    + " | peak heap MB |\n|---|---|---|---|\n");
            Map<String, List<Result>> byName = proxies.stream()
                    .collect(Collectors.groupingBy(r -> r.text("scenario"), LinkedHashMap::new, Collectors.toList()));
            byName.forEach((name, rs) -> sb.append("| ")
                    .append(name)
                    .append(" | ")
                    .append(fmt(rs.get(0).number("rows")))
                    .append(" | ")
                    .append(fmt(median(rs, "rowsPerSec")))
                    .append(spread(rs, "rowsPerSec"))
                    .append(" | ")
                    .append(fmt(median(rs, "peakHeapMb")))
                    .append(" |\n"));
        }
        List<Result> scaling = results.stream()
                .filter(r -> Boolean.TRUE.equals(r.values.get("scaling")))
                .sorted(Comparator.comparingDouble(r -> r.number("rows")))
                .collect(Collectors.toList());
        if (!scaling.isEmpty()) {
            sb.append("\nGrowth with rows (Inlet, MySQL snapshot into Iceberg, p = 1, heap ")
                    .append(opts.get("scaling-heap"))
                    .append("):\n\n| rows | seconds | rows/s | peak heap MB | GC ms | s per 100k rows"
                            + " |\n|---|---|---|---|---|---|\n");
            for (Result r : scaling) {
                sb.append("| ")
                        .append(fmt(r.number("rows")))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%.1f", r.number("seconds")))
                        .append(" | ")
                        .append(fmt(r.number("rowsPerSec")))
                        .append(" | ")
                        .append(fmt(r.number("peakHeapMb")))
                        .append(" | ")
                        .append(fmt(r.number("gcMs")))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%.2f", r.number("seconds") / (r.number("rows") / 100_000)))
                        .append(" |\n");
            }
        }
        long failed =
                results.stream().filter(r -> r.values.containsKey("error")).count();
        if (failed > 0) {
            sb.append("\n")
                    .append(failed)
                    .append(" trial(s) failed: ")
                    .append(results.stream()
                            .filter(r -> r.values.containsKey("error"))
                            .map(r -> r.text("error"))
                            .collect(Collectors.joining(", ")))
                    .append("\n");
        }
        return sb.toString();
    }

    /**
     * Renders the table again from a finished run's directory: the result line of every trial log,
     * the snapshot phases of the binlog trials, the growth runs (the stand-alone snapshot-iceberg
     * trials of a run that had binlog trials) and jmh.json. {@code Report <dir> [trials] [heap] [scaling-heap]}.
     */
    public static void main(String[] args) throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of(args[0]);
        List<java.nio.file.Path> logs;
        try (var s = java.nio.file.Files.list(dir)) {
            logs = s.filter(p -> p.getFileName().toString().matches("\\d{3}-.*\\.log"))
                    .sorted()
                    .collect(Collectors.toList());
        }
        boolean binlogRun =
                logs.stream().anyMatch(p -> p.getFileName().toString().contains("-binlog-iceberg-"));
        List<Result> results = new ArrayList<>();
        for (java.nio.file.Path log : logs) {
            String name = log.getFileName().toString();
            Result r = Result.last(java.nio.file.Files.readAllLines(log));
            if (r == null) {
                results.add(new Result()
                        .put("scenario", name.split("-", 2)[1].replaceAll("-(inlet|sql|proxy)-p\\d\\.log$", ""))
                        .put("error", "see " + log));
                continue;
            }
            if (binlogRun && name.contains("-snapshot-iceberg-")) {
                r.put("scaling", true);
            }
            results.add(r);
            if (name.contains("-binlog-iceberg-")) {
                results.add(Bench.snapshotPhase(r));
            }
        }
        Map<String, String> opts = new LinkedHashMap<>();
        opts.put("trials", args.length > 1 ? args[1] : "3");
        opts.put("checkpoint-ms", "5000");
        opts.put("heap", args.length > 2 ? args[2] : "2g");
        opts.put("scaling-heap", args.length > 3 ? args[3] : "1g");
        opts.put("inlet-source", "");
        opts.put("inlet-sink", "");
        String table = render(results, opts);
        java.nio.file.Path jmh = dir.resolve("jmh.json");
        if (java.nio.file.Files.exists(jmh)) {
            table += "\n" + Micro.table(Micro.scores(jmh));
        }
        System.out.println(table);
    }

    private static List<Result> of(List<Result> rs, String system) {
        return rs.stream()
                .filter(r -> system.equals(r.text("system")) && !r.values.containsKey("error"))
                .collect(Collectors.toList());
    }

    static double median(List<Result> rs, String metric) {
        List<Double> v = rs.stream()
                .map(r -> r.number(metric))
                .filter(d -> !Double.isNaN(d))
                .sorted()
                .collect(Collectors.toList());
        if (v.isEmpty()) {
            return Double.NaN;
        }
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    /** (max - min) / median, the trials' spread. */
    private static String spread(List<Result> rs, String metric) {
        List<Double> v = rs.stream()
                .map(r -> r.number(metric))
                .filter(d -> !Double.isNaN(d))
                .sorted()
                .collect(Collectors.toList());
        if (v.size() < 2) {
            return "";
        }
        double m = median(rs, metric);
        return String.format(Locale.ROOT, " (±%.0f%%)", 100 * (v.get(v.size() - 1) - v.get(0)) / m / 2);
    }

    private static String ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "–" : String.format(Locale.ROOT, "%.2fx", a / b);
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        if (v >= 10_000) {
            return String.format(Locale.ROOT, "%,.0f", v).replace(',', ' ');
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String fmtSec(double ms) {
        return Double.isNaN(ms) ? "–" : String.format(Locale.ROOT, "%.1f", ms / 1000);
    }

    private static String verified(List<Result> rs) {
        long ok = rs.stream()
                .filter(r -> Boolean.TRUE.equals(r.values.get("verified")))
                .count();
        return ok + "/" + rs.size();
    }
}
