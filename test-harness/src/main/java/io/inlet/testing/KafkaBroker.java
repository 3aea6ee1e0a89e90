package io.inlet.testing;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real Kafka broker (KRaft, broker and controller in one) in its own JVM, on 127.0.0.1 and free
 * ports. Its jars come from the inlet-integration-tests-service-dists build and never touch the test
 * classpath. Use {@link KafkaExtension} to share one per test JVM; each test makes its own topics
 * with {@link #createTopic(String, int)}.
 */
public final class KafkaBroker extends ServiceProcess implements ExtensionContext.Store.CloseableResource {

    private final int port;
    private final int controllerPort;

    private KafkaBroker(Path workDir, int port, int controllerPort) {
        super("kafka", workDir);
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /** Starts a broker on free ports. */
    public static KafkaBroker start() {
        return FreePorts.startRetryingTakenPorts(() -> {
            Path dir = newWorkDir("inlet-kafka-", "Kafka");
            KafkaBroker server = new KafkaBroker(dir, FreePorts.next(), FreePorts.next());
            server.startBroker();
            return server;
        });
    }

    private void startBroker() {
        String classpath = ServiceDists.get("kafka.broker.classpath");
        Path props = workDir().resolve("server.properties");
        Path log4j = workDir().resolve("log4j.properties");
        try {
            Files.writeString(props, serverProperties(), StandardCharsets.UTF_8);
            Files.writeString(
                    log4j,
                    String.join(
                            "\n",
                            "log4j.rootLogger=INFO, file",
                            "log4j.appender.file=org.apache.log4j.FileAppender",
                            "log4j.appender.file.File=" + workDir().resolve("server.log"),
                            "log4j.appender.file.layout=org.apache.log4j.PatternLayout",
                            "log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n",
                            ""),
                    StandardCharsets.UTF_8);
            String log4jArg = "-Dlog4j.configuration=" + log4j.toUri();
            runToCompletion(
                    "kafka-storage-format",
                    List.of(
                            javaBinary(),
                            "-Xmx256m",
                            // A run of seconds: C2 compiler threads would only take the CPU of the 2-core CI machine.
                            "-XX:TieredStopAtLevel=1",
                            log4jArg,
                            "-cp",
                            classpath,
                            "kafka.tools.StorageTool",
                            "format",
                            "--cluster-id=" + clusterId(),
                            "-c",
                            props.toString()),
                    120);
            launch(List.of(
                    javaBinary(),
                    "-Xms128m",
                    "-Xmx512m",
                    "-XX:+UseParallelGC",
                    log4jArg,
                    "-Djava.net.preferIPv4Stack=true",
                    "-cp",
                    classpath,
                    "kafka.Kafka",
                    props.toString()));
        } catch (IOException | InterruptedException e) {
            throw startFailure(e.toString(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Exception lastError = null;
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                if (!isAlive()) {
                    throw startFailure("the broker's JVM exited", null);
                }
                try {
                    if (!admin.describeCluster()
                            .nodes()
                            .get(5, TimeUnit.SECONDS)
                            .isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    lastError = e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw startFailure("interrupted", e);
        }
        throw startFailure("no answer to describeCluster within 90 s: " + lastError, lastError);
    }

    @Override
    protected String extraLogs() {
        return "\n--- last lines of " + workDir().resolve("server.log") + " ---\n"
                + tail(workDir().resolve("server.log"), 40);
    }

    private String serverProperties() {
        return String.join(
                "\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + workDir().resolve("data"),
                "num.partitions=1",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=4",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=4",
                // Flink's exactly-once KafkaSink holds transactions open up to its checkpoint timeout.
                "transaction.max.timeout.ms=3600000",
                "group.initial.rebalance.delay.ms=0",
                "log.flush.interval.messages=1000000",
                "");
    }

    /**
     * A random cluster id in Kafka's form: 16 random bytes, URL-safe base64 without padding. One in 64
     * starts with '-', which the tool's parser takes for an option when given as a separate argument:
     * hence {@code --cluster-id=<id>}.
     */
    private static String clusterId() {
        UUID u = UUID.randomUUID();
        ByteBuffer b =
                ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /** {@code 127.0.0.1:<port>}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** An admin client for this broker; close it. */
    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return Admin.create(p);
    }

    /** Creates topics of the given names (for producers that choose their own, like Debezium). */
    public void createTopics(int partitions, String... names) {
        List<NewTopic> topics = new java.util.ArrayList<>();
        for (String n : names) {
            topics.add(new NewTopic(n, partitions, (short) 1));
        }
        try (Admin admin = admin()) {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create topics " + List.of(names) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Creates a fresh topic with a unique name starting with the prefix; returns its name. */
    public String createTopic(String prefix, int partitions) {
        String name = TestNames.unique(prefix);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create topic " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return name;
    }
}
