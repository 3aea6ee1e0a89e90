package io.inlet.core;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Local Flink environments (an in-process MiniCluster) that listen on 127.0.0.1 only, for
 * quickstarts, demos and tests on a laptop: Flink's defaults would bind every interface.
 *
 * <pre>{@code
 * StreamExecutionEnvironment env = LocalEnvironments.create(2);
 * }</pre>
 */
@PublicEvolving
public final class LocalEnvironments {

    private LocalEnvironments() {}

    /** Sets every address a local cluster binds or advertises to 127.0.0.1; returns the same object. */
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

    /** A local environment on 127.0.0.1 with the given parallelism. */
    public static StreamExecutionEnvironment create(int parallelism) {
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, loopback(new Configuration()));
    }
}
