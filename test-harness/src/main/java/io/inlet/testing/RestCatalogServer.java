package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * An Iceberg REST catalog server (Iceberg 1.7.1's REST adapter over a JDBC catalog on SQLite) in its
 * own JVM on 127.0.0.1 and a free port, keeping its tables on an {@link S3Server}: table metadata and
 * data files go to a bucket of its own through S3FileIO. Use {@link RestCatalogExtension} to share one
 * per test JVM; each test makes its own namespaces.
 *
 * <pre>{@code
 * Map<String, String> props = rest.clientProperties(); // uri, io-impl, s3.* for Iceberg's RESTCatalog
 * }</pre>
 */
public final class RestCatalogServer extends ServiceProcess implements ExtensionContext.Store.CloseableResource {

    private final int port;
    private final S3Server s3;
    private final String bucket;

    private RestCatalogServer(Path workDir, int port, S3Server s3, String bucket) {
        super("iceberg-rest", workDir);
        this.port = port;
        this.s3 = s3;
        this.bucket = bucket;
    }

    public static RestCatalogServer start(S3Server s3) {
        String bucket = s3.newBucket("rest-warehouse");
        return FreePorts.startRetryingTakenPorts(() -> {
            Path dir = newWorkDir("inlet-rest-", "the REST catalog");
            RestCatalogServer server = new RestCatalogServer(dir, FreePorts.next(), s3, bucket);
            server.startServer();
            return server;
        });
    }

    private void startServer() {
        try {
            Properties p = new Properties();
            p.setProperty("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
            // A file, not ':memory:': each pooled connection to an in-memory SQLite is a database of its own.
            p.setProperty("uri", "jdbc:sqlite:file:" + workDir().resolve("catalog.db"));
            p.setProperty("jdbc.schema-version", "V1");
            p.setProperty("warehouse", warehouse());
            s3.icebergProperties().forEach(p::setProperty);
            Path conf = workDir().resolve("catalog.properties");
            try (OutputStream out = Files.newOutputStream(conf)) {
                p.store(out, "written by the Inlet test harness");
            }
            launch(List.of(
                    javaBinary(),
                    "-Xms32m",
                    "-Xmx256m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Djava.net.preferIPv4Stack=true",
                    // The region and credentials are the catalog's; the SDK must not look for an EC2 instance.
                    "-Daws.disableEc2Metadata=true",
                    "-Daws.region=" + S3Server.REGION,
                    "-cp",
                    ServiceDists.rest("rest.classpath"),
                    ServiceDists.rest("rest.main"),
                    String.valueOf(port),
                    conf.toString()));
        } catch (IOException e) {
            throw startFailure(e.toString(), e);
        }
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        awaitReady(uri(), 90, () -> {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(uri() + "/v1/config"))
                            .timeout(Duration.ofSeconds(5))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? null : "GET /v1/config answered " + r.statusCode() + ": " + r.body();
        });
    }

    /** {@code http://127.0.0.1:<port>}, the catalog's {@code uri}. */
    public String uri() {
        return "http://127.0.0.1:" + port;
    }

    /** Where the catalog puts its tables: {@code s3://<its bucket>/warehouse}. */
    public String warehouse() {
        return "s3://" + bucket + "/warehouse";
    }

    /** The bucket of its tables. */
    public String bucket() {
        return bucket;
    }

    public S3Server s3() {
        return s3;
    }

    /**
     * What Iceberg's {@code RESTCatalog} needs to use it: the {@code uri}, and S3FileIO's settings for the
     * files (the server hands out no storage settings).
     */
    public Map<String, String> clientProperties() {
        Map<String, String> props = new HashMap<>(s3.icebergProperties());
        props.put("uri", uri());
        return props;
    }
}
