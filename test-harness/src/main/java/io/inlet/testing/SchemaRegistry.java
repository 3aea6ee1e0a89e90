package io.inlet.testing;

import io.inlet.core.util.MiniJson;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Apicurio Registry with its Confluent-compatible API ({@code /apis/ccompat/v7}), in its own JVM on
 * 127.0.0.1 and a free port, storing schemas in memory. The archive comes from the
 * inlet-integration-tests-service-dists build and is unpacked once per machine into the temp
 * directory. Use {@link SchemaRegistryExtension} to share one per test JVM; each test makes its own
 * subjects with {@link #newSubject(String)}.
 */
public final class SchemaRegistry extends ServiceProcess implements ExtensionContext.Store.CloseableResource {

    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");

    private final int port;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private SchemaRegistry(Path workDir, int port) {
        super("apicurio-registry", workDir);
        this.port = port;
    }

    public static SchemaRegistry start() {
        return FreePorts.startRetryingTakenPorts(() -> {
            Path dir = newWorkDir("inlet-registry-", "the registry");
            SchemaRegistry server = new SchemaRegistry(dir, FreePorts.next());
            server.startRegistry();
            return server;
        });
    }

    private void startRegistry() {
        try {
            Path home = unpacked();
            String version = ServiceDists.get("apicurio.version");
            launch(List.of(
                    javaBinary(),
                    "-Xms64m",
                    "-Xmx512m",
                    "-XX:+UseParallelGC",
                    // Lookups are few and cached by the clients: C2's compiler threads would only take the CPU
                    // the jobs under test need on a 2-core machine. (The broker keeps C2: benchmarks use it.)
                    "-XX:TieredStopAtLevel=1",
                    "-Dquarkus.http.host=127.0.0.1",
                    "-Dquarkus.http.port=" + port,
                    "-Dquarkus.management.enabled=false",
                    "-Dquarkus.log.console.color=false",
                    "-Djava.net.preferIPv4Stack=true",
                    "-jar",
                    home.resolve("apicurio-registry-app-" + version + "-runner.jar")
                            .toString()));
        } catch (IOException | InterruptedException e) {
            throw startFailure(e.toString(), e);
        }
        awaitReady(ccompatUrl(), 90, () -> {
            HttpResponse<String> r = get("/subjects");
            return r.statusCode() == 200 ? null : "GET /subjects answered " + r.statusCode() + ": " + r.body();
        });
    }

    /** The archive unpacked into a directory shared by test runs on this machine. */
    private Path unpacked() throws IOException, InterruptedException {
        Path archive = Path.of(ServiceDists.get("apicurio.archive"));
        if (!Files.isRegularFile(archive)) {
            throw new IllegalStateException("The Apicurio Registry archive " + archive + " is missing; build"
                    + " inlet-integration-tests-service-dists (mvn install) to download it.");
        }
        Path home =
                Path.of(System.getProperty("java.io.tmpdir"), "inlet-apicurio-" + ServiceDists.get("apicurio.version"));
        if (Files.exists(home.resolve(".unpacked"))) {
            return home;
        }
        Path staging = Files.createTempDirectory(home.getParent(), "inlet-apicurio-unpacking-");
        runToCompletion("unpack apicurio", List.of("tar", "-xzf", archive.toString(), "-C", staging.toString()), 300);
        Files.createFile(staging.resolve(".unpacked"));
        try {
            Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // Another JVM unpacked it first.
            deleteRecursively(staging);
            if (!Files.exists(home.resolve(".unpacked"))) {
                throw e;
            }
        }
        return home;
    }

    /** The registry's Confluent-compatible API, as Confluent clients and Flink's formats take it. */
    public String ccompatUrl() {
        return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
    }

    /** Apicurio's own v2 API, which Apicurio's Kafka Connect converter talks to. */
    public String v2Url() {
        return "http://127.0.0.1:" + port + "/apis/registry/v2";
    }

    public int port() {
        return port;
    }

    /** A fresh subject name ({@code prefix_<random>-value}). */
    public String newSubject(String prefix) {
        return TestNames.unique(prefix) + "-value";
    }

    /** Registers an Avro schema under the subject; returns its id. */
    public int register(String subject, String avroSchemaJson) throws IOException, InterruptedException {
        String body = "{\"schema\":" + MiniJson.quote(avroSchemaJson) + "}";
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(ccompatUrl() + "/subjects/" + subject + "/versions"))
                        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(
                    "Registering under " + subject + " answered " + r.statusCode() + ": " + r.body());
        }
        Matcher m = ID.matcher(r.body());
        if (!m.find()) {
            throw new IllegalStateException("No id in the registry's answer: " + r.body());
        }
        return Integer.parseInt(m.group(1));
    }

    /** GET on the Confluent-compatible API, e.g. {@code /schemas/ids/1}. */
    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(ccompatUrl() + path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
