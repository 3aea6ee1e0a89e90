package io.inlet.core;

import io.inlet.core.testing.CollectingChangeSink;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.ValuesChangeSource;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-table metrics: records by kind and the last source timestamp, in Flink's metric groups. */
class ChangeEventMetricsITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            MiniClusters.extension(2, REPORTER.addToConfiguration(new Configuration()));

    @Test
    void countsRecordsPerTableAndKindAndTracksTheSourceTimestamp() throws Exception {
        Object[] o1 = {1L, "anna", new BigDecimal("1.00"), "new", LocalDateTime.parse("2024-01-01T00:00:00")};
        Object[] o1paid = {1L, "anna", new BigDecimal("1.00"), "paid", LocalDateTime.parse("2024-01-01T00:00:00")};
        ValuesChangeSource source = ValuesChangeSource.builder()
                .insert(ShopTables.ORDERS, o1)
                .insert(ShopTables.CUSTOMERS, 1, "anna", null)
                .insert(ShopTables.CUSTOMERS, 2, "bob", null)
                .update(ShopTables.ORDERS, o1, o1paid)
                .delete(ShopTables.ORDERS, o1paid)
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(100);
        JobID job = Pipeline.builder()
                .environment(env)
                .source(source)
                .sink(CollectingChangeSink.builder().build())
                .build()
                .execute()
                .getJobID();

        Map<String, Metric> orders = REPORTER.findMetrics(job, "table.shop.orders");
        assertThat(counter(orders, "numRecordsInsert")).isEqualTo(1);
        assertThat(counter(orders, "numRecordsUpdateBefore")).isEqualTo(1);
        assertThat(counter(orders, "numRecordsUpdateAfter")).isEqualTo(1);
        assertThat(counter(orders, "numRecordsDelete")).isEqualTo(1);
        long lastOrderEvent = ValuesChangeSource.FIRST_TIMESTAMP + 5 * 1000L;
        assertThat(gauge(orders, "lastSourceTimestamp")).isEqualTo(lastOrderEvent);
        assertThat(gauge(orders, "changeLagMs")).isGreaterThan(0L);
        assertThat(gauge(orders, "changeIdleMs")).isGreaterThanOrEqualTo(0L);
        // Names of Inlet's own: Flink's source metrics of these names would shadow them in a reporter.
        assertThat(orders.keySet())
                .noneMatch(k -> k.endsWith("currentEmitEventTimeLag") || k.endsWith("sourceIdleTime"));

        Map<String, Metric> customers = REPORTER.findMetrics(job, "table.shop.customers");
        assertThat(counter(customers, "numRecordsInsert")).isEqualTo(2);
        assertThat(counter(customers, "numRecordsDelete")).isZero();
    }

    private static long counter(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + name))
                .mapToLong(e -> ((Counter) e.getValue()).getCount())
                .sum();
    }

    private static long gauge(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + name))
                .mapToLong(e -> (Long) ((Gauge<?>) e.getValue()).getValue())
                .max()
                .orElseThrow(() -> new AssertionError("No metric " + name + " among " + metrics.keySet()));
    }
}
