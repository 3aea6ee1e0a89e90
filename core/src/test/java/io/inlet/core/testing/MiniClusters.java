package io.inlet.core.testing;

import io.inlet.core.LocalEnvironments;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
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
        if (!config.contains(CoreOptions.CHECK_LEAKED_CLASSLOADER)) {
            // In a test JVM Iceberg and the AWS SDK are the application class loader's, shared by every job:
            // Iceberg's static worker threads keep the context class loader of the job that started them, and
            // the SDK's HTTP client (commons-logging) asks it for resources after that job ended. On a cluster
            // the job jar carries them and each job has its own. The check would fail the next job's S3 reads.
            config = new Configuration(config);
            config.set(CoreOptions.CHECK_LEAKED_CLASSLOADER, false);
        }
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .setConfiguration(LocalEnvironments.loopback(config))
                .build());
    }
}
