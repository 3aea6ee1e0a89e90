package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An S3-compatible server (s3proxy) in its own JVM on 127.0.0.1 and a free port, keeping objects in
 * memory under their keys (jclouds' transient store) and checking every request's AWS Signature V4
 * against its own access key and secret. Clients address it path-style. A key prefix is no object, as
 * on S3: a store that keeps objects as files in directories (s3proxy's file system backends) answers a
 * HEAD of a directory's key as an empty object, and Hadoop's S3A then takes a table's directory for a
 * file ("Can't make directory ... since it is a file"). Use {@link S3Extension} to share one per
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

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private S3Server(Path workDir, int port) {
        super("s3proxy", workDir);
        this.port = port;
    }

    public static S3Server start() {
        return FreePorts.startRetryingTakenPorts(() -> {
            Path dir = newWorkDir("inlet-s3-", "the S3 server");
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
            Properties p = new Properties();
            p.setProperty("s3proxy.endpoint", endpoint());
            p.setProperty("s3proxy.authorization", "aws-v4");
            p.setProperty("s3proxy.identity", accessKey);
            p.setProperty("s3proxy.credential", secretKey);
            p.setProperty("jclouds.provider", "transient");
            // The store in memory takes no credentials, but s3proxy asks for some.
            p.setProperty("jclouds.identity", "local");
            p.setProperty("jclouds.credential", "local");
            Path conf = workDir().resolve("s3proxy.conf");
            try (OutputStream out = Files.newOutputStream(conf)) {
                p.store(out, "written by the Inlet test harness");
            }
            launch(List.of(
                    javaBinary(),
                    "-Xms32m",
                    // The objects of every test of the JVM (small tables, checkpoints) are kept in this heap.
                    "-Xmx768m",
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

    /** A new, empty bucket named {@code <prefix>-<random>} (S3's rules: lower case, digits and dashes). */
    public String newBucket(String prefix) {
        String name = (prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-") + "-"
                        + UUID.randomUUID().toString().substring(0, 12))
                .replaceAll("-+", "-");
        HttpResponse<String> r = request("PUT", "/" + name, Map.of());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("Cannot make the bucket " + name + ": " + r.statusCode() + " " + r.body());
        }
        return name;
    }

    /**
     * The keys of the objects in a bucket, sorted, without S3A's directory markers (keys ending in {@code
     * /}). Listed through the S3 API (ListObjectsV2), page by page.
     */
    public List<String> keys(String bucket) {
        List<String> keys = new ArrayList<>();
        String token = null;
        do {
            Map<String, String> query = new TreeMap<>();
            query.put("list-type", "2");
            if (token != null) {
                query.put("continuation-token", token);
            }
            HttpResponse<String> r = request("GET", "/" + bucket, query);
            if (r.statusCode() != 200) {
                throw new IllegalStateException(
                        "Cannot list the bucket " + bucket + ": " + r.statusCode() + " " + r.body());
            }
            Matcher key = Pattern.compile("<Key>(.*?)</Key>").matcher(r.body());
            while (key.find()) {
                keys.add(unescapeXml(key.group(1)));
            }
            Matcher next = Pattern.compile("<NextContinuationToken>(.*?)</NextContinuationToken>")
                    .matcher(r.body());
            token = r.body().contains("<IsTruncated>true</IsTruncated>") && next.find()
                    ? unescapeXml(next.group(1))
                    : null;
        } while (token != null);
        return keys.stream().filter(k -> !k.endsWith("/")).sorted().collect(Collectors.toList());
    }

    /** A request signed with AWS Signature V4 (empty payload), as every client of the server signs its own. */
    private HttpResponse<String> request(String method, String path, Map<String, String> query) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(now);
        String day = amzDate.substring(0, 8);
        String payloadHash = hex(sha256(new byte[0]));
        String canonicalQuery = new TreeMap<>(query)
                .entrySet().stream()
                        .map(e -> uriEncode(e.getKey()) + "=" + uriEncode(e.getValue()))
                        .collect(Collectors.joining("&"));
        String signedHeaders = "host;x-amz-content-sha256;x-amz-date";
        String canonicalRequest = method + "\n" + path + "\n" + canonicalQuery + "\n" + "host:127.0.0.1:" + port
                + "\n" + "x-amz-content-sha256:" + payloadHash + "\n" + "x-amz-date:" + amzDate + "\n\n"
                + signedHeaders + "\n" + payloadHash;
        String scope = day + "/" + REGION + "/s3/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n"
                + hex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8)));
        byte[] signingKey = hmac(
                hmac(hmac(hmac(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), day), REGION), "s3"),
                "aws4_request");
        String authorization = "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope + ", SignedHeaders="
                + signedHeaders + ", Signature=" + hex(hmac(signingKey, toSign));
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(endpoint() + path + (canonicalQuery.isEmpty() ? "" : "?" + canonicalQuery)))
                .timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("x-amz-date", amzDate)
                .header("x-amz-content-sha256", payloadHash)
                .header("Authorization", authorization)
                .build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " on the S3 server failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private static String uriEncode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8)
                .replace("+", "%20")
                .replace("*", "%2A")
                .replace("%7E", "~");
    }

    private static String unescapeXml(String s) {
        return s.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&");
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            sb.append(String.format("%02x", b));
        }
        return sb.toString();
    }

    /** Hadoop's S3A settings for this server ({@code fs.s3a.*}). */
    public Map<String, String> s3aProperties() {
        Map<String, String> conf = new java.util.LinkedHashMap<>();
        conf.put("fs.s3a.endpoint", endpoint());
        conf.put("fs.s3a.endpoint.region", REGION);
        conf.put("fs.s3a.path.style.access", "true");
        conf.put("fs.s3a.connection.ssl.enabled", "false");
        conf.put("fs.s3a.access.key", accessKey);
        conf.put("fs.s3a.secret.key", secretKey);
        return conf;
    }

    /**
     * The same with a prefix on every key, e.g. {@code "hadoop."} for options that pass Hadoop settings on
     * (Hudi's, the Iceberg catalogs').
     */
    public Map<String, String> s3aProperties(String prefix) {
        Map<String, String> conf = new java.util.LinkedHashMap<>();
        s3aProperties().forEach((k, v) -> conf.put(prefix + k, v));
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
