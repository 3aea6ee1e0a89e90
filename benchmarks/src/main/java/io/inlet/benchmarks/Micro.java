package io.inlet.benchmarks;

import io.inlet.benchmarks.jmh.DecoderBench;
import io.inlet.benchmarks.jmh.Samples;
import io.inlet.benchmarks.jmh.SerializerBench;
import io.inlet.examples.DebeziumOrders;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Runs the JMH benchmarks (decoder, serializer) and renders their table with the ratios. */
final class Micro {

    private Micro() {}

    static String run(Services services, Path out) throws Exception {
        String topic = "micro.shop.orders";
        int keyId = services.registry()
                .register(topic + "-key", DebeziumOrders.keySchema(topic).toString());
        int valueId = services.registry()
                .register(topic + "-value", DebeziumOrders.valueSchema(topic).toString());
        int smallId = services.registry()
                .register("micro-small-value", Samples.smallSchema().toString());
        ChainedOptionsBuilder opts = new OptionsBuilder()
                .include(DecoderBench.class.getName())
                .include(SerializerBench.class.getName())
                .resultFormat(ResultFormatType.JSON)
                .result(out.resolve("jmh.json").toString())
                // One call: jvmArgsAppend replaces what an earlier call appended.
                .jvmArgsAppend(jvmArgs(services, topic, keyId, valueId, smallId));
        Bench.log("JMH: decoder and serializer benchmarks ...");
        Collection<RunResult> results = new Runner(opts.build()).run();
        Map<String, double[]> scores = new LinkedHashMap<>();
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark().replaceAll(".*\\.", "")
                    + (r.getParams().getParam("shape") == null
                            ? ""
                            : "/" + r.getParams().getParam("shape"));
            scores.put(label, new double[] {
                r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()
            });
        }
        return table(scores);
    }

    /** The scores of a finished run, read back from its jmh.json, for {@link Report#main}. */
    static Map<String, double[]> scores(Path jmhJson) throws Exception {
        Map<String, double[]> scores = new LinkedHashMap<>();
        for (Object o : (List<?>) io.inlet.core.util.MiniJson.parse(java.nio.file.Files.readString(jmhJson))) {
            Map<?, ?> run = (Map<?, ?>) o;
            Map<?, ?> params = (Map<?, ?>) run.get("params");
            Map<?, ?> metric = (Map<?, ?>) run.get("primaryMetric");
            String label = String.valueOf(run.get("benchmark")).replaceAll(".*\\.", "")
                    + (params == null || params.get("shape") == null ? "" : "/" + params.get("shape"));
            scores.put(label, new double[] {
                ((Number) metric.get("score")).doubleValue(), ((Number) metric.get("scoreError")).doubleValue()
            });
        }
        return scores;
    }

    static String table(Map<String, double[]> scores) {
        StringBuilder sb = new StringBuilder(
                "\n## JMH (one JVM fork, 3 × 2 s warm-up, 5 × 2 s measured; ops/s ± 99.9% error)\n\n");
        sb.append("| benchmark | Inlet ops/s | other ops/s | Inlet / other |\n|---|---|---|---|\n");
        for (String shape : new String[] {"envelope", "small"}) {
            double[] i = scores.get("inlet/" + shape);
            double[] f = scores.get("flink/" + shape);
            if (i != null && f != null) {
                sb.append(row(
                        "decoder vs Flink's debezium-avro-confluent, "
                                + (shape.equals("envelope")
                                        ? "full Debezium envelopes (with the source block)"
                                        : "small envelopes (before, after, op: what Flink's format writes)"),
                        i,
                        f));
            }
        }
        double[] si = scores.get("inlet");
        double[] sk = scores.get("kryo");
        if (si != null && sk != null) {
            sb.append(row("change-event serializer round trip vs Kryo", si, sk));
        }
        return sb.toString();
    }

    private static String[] jvmArgs(Services services, String topic, int keyId, int valueId, int smallId) {
        List<String> args = new ArrayList<>(List.of(
                "-Xmx1g",
                "-Dlog4j.configurationFile=bench-log4j2.properties",
                "-D" + Samples.REGISTRY + "=" + services.registry().ccompatUrl(),
                "-D" + Samples.ENVELOPE_TOPIC + "=" + topic,
                "-D" + Samples.ENVELOPE_IDS + "=" + keyId + "," + valueId,
                "-D" + Samples.SMALL_ID + "=" + smallId));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                args.add(arg);
            }
        }
        return args.toArray(new String[0]);
    }

    private static String row(String name, double[] inlet, double[] other) {
        return String.format(
                Locale.ROOT,
                "| %s | %s ± %s | %s ± %s | %.2fx |%n",
                name,
                Report.fmt(inlet[0]),
                Report.fmt(inlet[1]),
                Report.fmt(other[0]),
                Report.fmt(other[1]),
                inlet[0] / other[0]);
    }
}
