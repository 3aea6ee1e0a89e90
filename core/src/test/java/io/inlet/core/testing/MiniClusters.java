package io.inlet.core.testing;

import io.inlet.core.LocalEnvironments;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** MiniClusters for tests, bound to 127.0.0.1 only. */
public final class MiniClusters {

    private MiniClusters() {}

    /** A JUnit 5 extension running one MiniCluster for a test class. */
    public static MiniClusterExtension extension(int slots) {
        return extension(slots, new Configuration());
    }

    public static MiniClusterExtension extension(int slots, Configuration config) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .setConfiguration(LocalEnvironments.loopback(config))
                .build());
    }
}
