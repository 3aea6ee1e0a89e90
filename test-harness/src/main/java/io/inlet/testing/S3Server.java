package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An S3-compatible server (s3proxy) in its own JVM on 127.0.0.1 and a free port, keeping buckets as
 * directories under its working directory and checking every request's AWS Signature V4 against its
 * own access key and secret. Clients address it path-style. Use {@link S3Extension} to share one per
 * test JVM; each test makes its own bucket with {@link #newBucket(String)}.
 *
 * <pre>{@code
 * String bucket = s3.newBucket("lake");
 * Map<String, String> io = s3.icebergProperties(); // S3FileIO's endpoint, path style, credentials, region
 * }</pre>
 */
public final class S3Server extends ServiceProcess implements ExtensionContext.Store.CloseableResource {

    /** The region clients name; the server takes any. */
    public static final String REGION = "us-east-1";

    private final int port;
    private final String accessKey = "inlet-" + UUID.randomUUID().toString().substring(0, 8);
    private final String secretKey = UUID.randomUUID().toString();

    private S3Server(Path workDir, int port) {
        super("s3proxy", workDir);
        this.port = port;
    }

    public static S3Server start() {
        return FreePorts.startRetryingTakenPorts(() -> {
            Path dir;
            try {
                dir = Files.createTempDirectory("inlet-s3-");
            } catch (IOException e) {
                throw new IllegalStateException("Cannot create a directory for the S3 server", e);
            }
            S3Server server = new S3Server(dir, FreePorts.next());
            server.startServer();
            return server;
        });
    }

    private void startServer() {
        Path jar = Path.of(ServiceDists.get("s3proxy.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("s3proxy's jar " + jar + " is missing; build"
                    + " inlet-integration-tests-service-dists (mvn install) to download it.");
        }
        try {
            Files.createDirectories(buckets());
            Properties p = new Properties();
            p.setProperty("s3proxy.endpoint", endpoint());
            p.setProperty("s3proxy.authorization", "aws-v4");
            p.setProperty("s3proxy.identity", accessKey);
            p.setProperty("s3proxy.credential", secretKey);
            p.setProperty("jclouds.provider", "filesystem-nio2");
            p.setProperty("jclouds.filesystem.basedir", buckets().toString());
            // The local directory takes no credentials, but s3proxy asks for some.
            p.setProperty("jclouds.identity", "local");
            p.setProperty("jclouds.credential", "local");
            Path conf = workDir().resolve("s3proxy.conf");
            try (OutputStream out = Files.newOutputStream(conf)) {
                p.store(out, "written by the Inlet test harness");
            }
            launch(List.of(
                    javaBinary(),
                    "-Xms32m",
                    "-Xmx256m",
                    "-XX:+UseSerialGC",
                    // Few requests per test: C2's compiler threads would take the CPU the jobs under test need.
                    "-XX:TieredStopAtLevel=1",
                    "-Djava.net.preferIPv4Stack=true",
                    "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
                    "-jar",
                    jar.toString(),
                    "--properties",
                    conf.toString()));
        } catch (IOException e) {
            throw startFailure(e.toString(), e);
        }
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        awaitReady(endpoint(), 60, () -> {
            // Unsigned, so refused (403); any S3 answer means the server is up.
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(endpoint() + "/"))
                            .timeout(Duration.ofSeconds(5))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.body().contains("<Error>") || r.statusCode() == 200
                    ? null
                    : "GET / answered " + r.statusCode() + ": " + r.body();
        });
    }

    private Path buckets() {
        return workDir().resolve("buckets");
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /**
     * A new, empty bucket named {@code <prefix>-<random>} (S3's rules: lower case, digits and dashes). The
     * server keeps a bucket as a directory, so it is made as one: no S3 client is needed to make it.
     */
    public String newBucket(String prefix) {
        String name = (prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-") + "-"
                        + UUID.randomUUID().toString().substring(0, 12))
                .replaceAll("-+", "-");
        try {
            Files.createDirectory(buckets().resolve(name));
        } catch (IOException e) {
            throw new IllegalStateException("Cannot make the bucket " + name, e);
        }
        return name;
    }

    /** The keys of the objects in a bucket, as paths under it, sorted (read from the server's directory). */
    public List<String> keys(String bucket) throws IOException {
        Path root = buckets().resolve(bucket);
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> walk = Files.walk(root)) {
                return walk.filter(Files::isRegularFile)
                        .map(p -> root.relativize(p).toString())
                        // s3proxy's uploads in progress (.mpus-<id>-<key>) are no objects yet
                        .filter(k -> !k.startsWith(".mpus-"))
                        .sorted()
                        .collect(Collectors.toList());
            } catch (UncheckedIOException e) {
                // A file the server removed while the walk passed it (an upload completing): walk again.
                if (attempt == 5 || !(e.getCause() instanceof NoSuchFileException)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Hadoop's S3A settings for this server ({@code fs.s3a.*}), with {@code s3://} served by S3A too. Directory
     * markers are kept: S3A removes a file's parent markers after each write, which on this server (objects
     * are files in directories) is the deletion of a non-empty directory, refused and retried for minutes.
     */
    public Map<String, String> s3aProperties() {
        Map<String, String> conf = new java.util.LinkedHashMap<>();
        conf.put("fs.s3a.endpoint", endpoint());
        conf.put("fs.s3a.endpoint.region", REGION);
        conf.put("fs.s3a.path.style.access", "true");
        conf.put("fs.s3a.connection.ssl.enabled", "false");
        conf.put("fs.s3a.access.key", accessKey);
        conf.put("fs.s3a.secret.key", secretKey);
        conf.put("fs.s3a.directory.marker.retention", "keep");
        conf.put("fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
        return conf;
    }

    /** Iceberg's {@code S3FileIO} settings for this server, as catalog properties. */
    public Map<String, String> icebergProperties() {
        return Map.of(
                "io-impl",
                "org.apache.iceberg.aws.s3.S3FileIO",
                "s3.endpoint",
                endpoint(),
                "s3.path-style-access",
                "true",
                "s3.access-key-id",
                accessKey,
                "s3.secret-access-key",
                secretKey,
                "client.region",
                REGION);
    }
}
