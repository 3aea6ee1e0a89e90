package io.inlet.benchmarks;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job's checkpoint statistics as Flink's JobManager reports them ({@code lastCheckpointDuration},
 * {@code lastCheckpointSize}, {@code numberOfCompletedCheckpoints}, {@code numberOfFailedCheckpoints}),
 * sampled while a trial runs: a metric reporter in the trial's own JVM.
 */
final class CheckpointStats implements MetricReporter {

    private static final Map<String, Gauge<?>> GAUGES = new ConcurrentHashMap<>();

    private final List<long[]> seen = new ArrayList<>(); // {checkpoint number, duration ms, size bytes}
    private long failed;
    private volatile boolean running = true;
    private Thread sampler;

    /** Registers the reporter in a MiniCluster's configuration. */
    static Configuration addTo(Configuration conf) {
        conf.setString("metrics.reporter.bench.factory.class", Factory.class.getName());
        conf.setString("metrics.reporter.bench.interval", "1 s");
        return conf;
    }

    /** Starts sampling the job's gauges every 100 ms. */
    static CheckpointStats start() {
        CheckpointStats s = new CheckpointStats();
        s.sampler = new Thread(
                () -> {
                    while (s.running) {
                        s.sample();
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "checkpoint-stats");
        s.sampler.setDaemon(true);
        s.sampler.start();
        return s;
    }

    private static long value(String name) {
        Gauge<?> g = GAUGES.get(name);
        Object v = g == null ? null : g.getValue();
        return v instanceof Number ? ((Number) v).longValue() : -1;
    }

    private synchronized void sample() {
        long n = value("numberOfCompletedCheckpoints");
        failed = Math.max(failed, value("numberOfFailedCheckpoints"));
        if (n > 0 && (seen.isEmpty() || seen.get(seen.size() - 1)[0] < n)) {
            seen.add(new long[] {n, value("lastCheckpointDuration"), value("lastCheckpointSize")});
        }
    }

    synchronized long completed() {
        return seen.isEmpty() ? 0 : seen.get(seen.size() - 1)[0];
    }

    synchronized long failed() {
        return failed;
    }

    /** The longest checkpoint seen, ms. */
    synchronized long maxDurationMs() {
        return seen.stream().mapToLong(s -> s[1]).max().orElse(-1);
    }

    /** The median checkpoint seen, ms. */
    synchronized long medianDurationMs() {
        long[] d = seen.stream().mapToLong(s -> s[1]).sorted().toArray();
        return d.length == 0 ? -1 : d[d.length / 2];
    }

    /** The largest checkpoint seen, bytes. */
    synchronized long maxSizeBytes() {
        return seen.stream().mapToLong(s -> s[2]).max().orElse(-1);
    }

    /** Every checkpoint seen, in order: "number:duration ms", for the trial's log. */
    synchronized String durations() {
        StringBuilder b = new StringBuilder();
        for (long[] c : seen) {
            b.append(b.length() == 0 ? "" : " ").append(c[0]).append(':').append(c[1]);
        }
        return b.toString();
    }

    void stop() {
        running = false;
        sampler.interrupt();
    }

    // ---------------------------------------------------------------- the reporter

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Gauge
                && (name.equals("lastCheckpointDuration")
                        || name.equals("lastCheckpointSize")
                        || name.equals("numberOfCompletedCheckpoints")
                        || name.equals("numberOfFailedCheckpoints"))) {
            GAUGES.put(name, (Gauge<?>) metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    /** Flink finds the reporter through this factory (listed in META-INF/services). */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new CheckpointStats();
        }
    }
}
