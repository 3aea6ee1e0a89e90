package io.inlet.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a job jar the way {@code flink run} does on a Flink runtime without Hadoop: a separate JVM
 * whose class path is a Flink distribution's {@code lib/} (of the build's Flink line) and nothing else (see the
 * inlet-integration-tests-flink-dist module), Flink's {@code CliFrontend} with {@code --target
 * local}, so the job's {@code main} and its tasks run in Flink's child-first user-code class loader
 * over the jar, with Flink's default parent-first patterns. The job executes in a MiniCluster in
 * that JVM, on 127.0.0.1 and free ports.
 *
 * <pre>{@code
 * try (FlinkDistribution.Run run = FlinkDistribution.run(jar, Map.of(), "--source.hostname", "127.0.0.1")) {
 *     assertThat(run.awaitExit(Duration.ofMinutes(2))).as(run.describe()).isZero();
 * }
 * }</pre>
 */
public final class FlinkDistribution {

    private FlinkDistribution() {}

    /** The distribution's class path entries. */
    public static List<String> classPath() {
        return List.of(ServiceDists.flink("flink.dist.classpath").split(java.io.File.pathSeparator));
    }

    /**
     * Starts {@code flink run --target local <jar> <args>}; {@code flinkConf} entries are added to the
     * distribution's {@code flink-conf.yaml}.
     */
    public static Run run(Path jar, Map<String, String> flinkConf, String... args) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException(jar + " does not exist; build it with Maven (mvn package) first.");
        }
        try {
            Path work = Files.createTempDirectory("inlet-flink-run-");
            Run run = new Run(jar, work);
            run.start(flinkConf, List.of(args));
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One {@code flink run}: its process and its output. */
    public static final class Run extends ServiceProcess {

        private final Path jar;

        private Run(Path jar, Path work) {
            super("flink-run", work);
            this.jar = jar;
        }

        private void start(Map<String, String> extraConf, List<String> args) throws IOException {
            Path conf = Files.createDirectories(workDir().resolve("conf"));
            Map<String, String> flinkConf = new LinkedHashMap<>();
            flinkConf.put("jobmanager.rpc.address", "127.0.0.1");
            flinkConf.put("jobmanager.bind-host", "127.0.0.1");
            flinkConf.put("taskmanager.bind-host", "127.0.0.1");
            flinkConf.put("taskmanager.host", "127.0.0.1");
            flinkConf.put("rest.address", "127.0.0.1");
            flinkConf.put("rest.bind-address", "127.0.0.1");
            flinkConf.put("rest.bind-port", "0");
            flinkConf.put("taskmanager.numberOfTaskSlots", "4");
            flinkConf.put("parallelism.default", "1");
            flinkConf.put("restart-strategy.type", "none");
            flinkConf.putAll(extraConf);
            StringBuilder yaml = new StringBuilder();
            flinkConf.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
            Files.writeString(conf.resolve("flink-conf.yaml"), yaml.toString(), StandardCharsets.UTF_8);
            Files.writeString(
                    conf.resolve("log4j-cli.properties"),
                    String.join(
                            "\n",
                            // With --target local the MiniCluster runs inside the client, and the client
                            // exits (System.exit) while the MiniCluster still closes on its own threads.
                            // Log4j's shutdown hook would stop logging under them; their next log call
                            // then builds a new logging context through their context class loader: the
                            // job's, closed by then ("Trying to access closed classloader", "Could not
                            // register mbeans"). Without the hook, what they log still prints.
                            "shutdownHook = disable",
                            "rootLogger.level = WARN",
                            "rootLogger.appenderRef.console.ref = console",
                            "appender.console.name = console",
                            "appender.console.type = CONSOLE",
                            "appender.console.layout.type = PatternLayout",
                            "appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
                            "logger.inlet.name = io.inlet",
                            "logger.inlet.level = INFO",
                            "logger.shaded.name = io.inlet.shaded",
                            "logger.shaded.level = WARN",
                            "logger.client.name = org.apache.flink.client.cli",
                            "logger.client.level = INFO",
                            ""),
                    StandardCharsets.UTF_8);

            List<String> command = new ArrayList<>();
            command.add(javaBinary());
            command.add("-Xmx1g");
            command.add("-XX:+UseParallelGC");
            // C1 only, as for the test JVMs: a job of a minute on two cores does not earn back C2's work.
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-Djava.net.preferIPv4Stack=true");
            command.add("-Dlog4j.configurationFile="
                    + conf.resolve("log4j-cli.properties").toUri());
            // What JDK 17 needs opened for Flink: the same flags this JVM was started with.
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                    command.add(arg);
                }
            }
            command.add("-cp");
            command.add(String.join(java.io.File.pathSeparator, classPath()));
            command.add("org.apache.flink.client.cli.CliFrontend");
            command.add("run");
            command.add("--target");
            command.add("local");
            command.add(jar.toString());
            command.addAll(args);
            launch(command, Map.of("FLINK_CONF_DIR", conf.toString()));
        }

        /** Waits for {@code flink run} to end; returns its exit code (0: the job finished). */
        public int awaitExit(Duration timeout) throws InterruptedException {
            if (!process().waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "flink run " + jar.getFileName() + " did not end within " + timeout + ". " + describe());
            }
            return process().exitValue();
        }

        /** Whether the job (the client) still runs. */
        public boolean running() {
            return isAlive();
        }

        /** Everything {@code flink run} printed so far: the job's output and the client's log. */
        public String output() {
            try {
                return Files.exists(logFile()) ? Files.readString(logFile(), StandardCharsets.UTF_8) : "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** For assertion messages: the last lines of the output. */
        public String describe() {
            return "Last lines of flink run " + jar.getFileName() + ":\n" + tail(logFile(), 60);
        }
    }
}
