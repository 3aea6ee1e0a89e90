package io.inlet.core.testing;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** MiniClusters for tests, bound to 127.0.0.1 only. */
public final class MiniClusters {

    private MiniClusters() {}

    /** Every address a MiniCluster binds or advertises, on the loopback interface. */
    public static Configuration loopback(Configuration config) {
        config.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        config.set(RestOptions.ADDRESS, "127.0.0.1");
        config.set(RestOptions.BIND_PORT, "0");
        config.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        config.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        config.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        config.set(TaskManagerOptions.HOST, "127.0.0.1");
        return config;
    }

    /** A JUnit 5 extension running one MiniCluster for a test class. */
    public static MiniClusterExtension extension(int slots) {
        return extension(slots, new Configuration());
    }

    public static MiniClusterExtension extension(int slots, Configuration config) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(slots)
                        .setConfiguration(loopback(config))
                        .build());
    }
}
