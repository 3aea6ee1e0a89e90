package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.util.MiniJson;

import org.apache.avro.Schema;

import javax.annotation.Nullable;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small client of the Confluent schema registry REST API, on the JDK's HTTP client: schemas by
 * id (cached: an id's schema never changes), the latest schema of a subject, the subjects. Failed
 * calls are retried with exponential back-off over every URL given; what is left is a clear error.
 */
@Internal
public final class SchemaRegistryClient {

    /** The registry answered that it has no such schema or subject. */
    public static final class NotFoundException extends IOException {
        private static final long serialVersionUID = 1L;

        NotFoundException(String message) {
            super(message);
        }
    }

    /** A schema registered under a subject. */
    public static final class Registered {
        public final int id;
        public final int version;
        public final Schema schema;

        Registered(int id, int version, Schema schema) {
            this.id = id;
            this.version = version;
            this.schema = schema;
        }
    }

    private final RegistrySettings settings;
    private final HttpClient http;
    private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

    public SchemaRegistryClient(RegistrySettings settings) {
        this.settings = settings;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(settings.timeoutMillis));
        if (settings.truststoreLocation != null || settings.keystoreLocation != null) {
            b.sslContext(sslContext(settings));
        }
        this.http = b.build();
    }

    /** The writer schema of an id; cached. */
    public Schema schemaById(int id) throws IOException {
        Schema cached = byId.get(id);
        if (cached != null) {
            return cached;
        }
        Map<?, ?> answer = (Map<?, ?>) get("/schemas/ids/" + id);
        Schema schema = parse(answer, "schema id " + id);
        byId.put(id, schema);
        return schema;
    }

    /** The latest schema of a subject, or empty when the registry has no such subject. */
    public Optional<Registered> latest(String subject) throws IOException {
        Map<?, ?> answer;
        try {
            answer = (Map<?, ?>)
                    get("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/latest");
        } catch (NotFoundException e) {
            return Optional.empty();
        }
        Schema schema = parse(answer, "subject " + subject);
        int id = ((Number) answer.get("id")).intValue();
        byId.putIfAbsent(id, schema);
        return Optional.of(new Registered(id, ((Number) answer.get("version")).intValue(), schema));
    }

    /** A subject's schemas, oldest version first; empty when the registry has no such subject. */
    public List<Registered> history(String subject) throws IOException {
        String base = "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions";
        List<Registered> out = new ArrayList<>();
        List<?> versions;
        try {
            versions = (List<?>) get(base);
        } catch (NotFoundException e) {
            return out;
        }
        for (Object v : versions) {
            Map<?, ?> answer = (Map<?, ?>) get(base + "/" + v);
            Schema schema = parse(answer, "subject " + subject + " version " + v);
            int id = ((Number) answer.get("id")).intValue();
            byId.putIfAbsent(id, schema);
            out.add(new Registered(id, ((Number) answer.get("version")).intValue(), schema));
        }
        out.sort(java.util.Comparator.comparingInt(r -> r.version));
        return out;
    }

    /**
     * Registers a schema under a subject (or finds it registered) and returns its id. Registration is
     * idempotent, so it is retried like a read.
     */
    public int register(String subject, Schema schema) throws IOException {
        String body = "{\"schema\": " + MiniJson.quote(schema.toString()) + "}";
        Map<?, ?> answer =
                (Map<?, ?>) call("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions", body);
        Object id = answer.get("id");
        if (!(id instanceof Number)) {
            throw new IOException("The schema registry's answer to registering " + subject + " has no id: " + answer);
        }
        byId.putIfAbsent(((Number) id).intValue(), schema);
        return ((Number) id).intValue();
    }

    /**
     * A hint when the registry's URL looks wrong: empty when it answers {@code GET /subjects}, else
     * words that say the path seems to lack the Confluent-compatible API's (Apicurio serves it under
     * {@code /apis/ccompat/v7}, Karapace and Redpanda at the root).
     */
    public String pathHint() {
        try {
            subjects();
            return "";
        } catch (NotFoundException e) {
            return " The registry at " + settings.describe()
                    + " answers 404 for /subjects too, so the URL's path looks wrong:"
                    + " 'debezium-avro-confluent.url' must point at the Confluent-compatible API, e.g."
                    + " http://registry:8080/apis/ccompat/v7 for Apicurio Registry.";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    public List<String> subjects() throws IOException {
        List<String> out = new ArrayList<>();
        for (Object s : (List<?>) get("/subjects")) {
            out.add(String.valueOf(s));
        }
        return out;
    }

    private static Schema parse(Map<?, ?> answer, String what) throws IOException {
        Object type = answer.get("schemaType");
        if (type != null && !"AVRO".equals(type)) {
            throw new IOException("The registry's " + what + " is a " + type + " schema, not Avro.");
        }
        Object text = answer.get("schema");
        if (!(text instanceof String)) {
            throw new IOException("The registry's answer for " + what + " has no schema: " + answer);
        }
        try {
            return new Schema.Parser().parse((String) text);
        } catch (RuntimeException e) {
            throw new IOException("The registry's " + what + " is not a valid Avro schema: " + e.getMessage(), e);
        }
    }

    private Object get(String path) throws IOException {
        return call(path, null);
    }

    /** GET (or POST of the body) on every URL in turn, retried with back-off; 404 is final. */
    private Object call(String path, @Nullable String body) throws IOException {
        IOException last = null;
        long backoff = 100;
        for (int attempt = 0; attempt <= settings.maxRetries; attempt++) {
            for (String base : settings.urls) {
                try {
                    return once(base, path, body);
                } catch (NotFoundException e) {
                    throw e;
                } catch (IOException e) {
                    last = e;
                }
            }
            if (attempt < settings.maxRetries) {
                try {
                    Thread.sleep(backoff); // back-off between retries of a failed registry call
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("Interrupted while retrying the schema registry", e);
                }
                backoff = Math.min(backoff * 2, 5_000);
            }
        }
        throw new IOException(
                "The schema registry at " + settings.describe() + " did not answer " + (body == null ? "GET " : "POST ")
                        + path + " after " + (settings.maxRetries + 1) + " attempts: " + describe(last),
                last);
    }

    /** The failure in words: the JDK's connect errors carry no message, only their type. */
    private static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null && sb.length() < 400; t = t.getCause()) {
            String m = t.getMessage();
            String part = m == null || m.isEmpty() ? t.getClass().getSimpleName() : m;
            if (sb.indexOf(part) < 0) {
                sb.append(sb.length() == 0 ? "" : ": ").append(part);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return sb.toString();
    }

    private Object once(String base, String path, @Nullable String body) throws IOException {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofMillis(settings.timeoutMillis))
                .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
        if (body == null) {
            req.GET();
        } else {
            req.header("Content-Type", "application/vnd.schemaregistry.v1+json")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        }
        String userInfo = settings.basicAuthUserInfo != null
                ? settings.basicAuthUserInfo
                : URI.create(base).getUserInfo();
        if (userInfo != null) {
            req.header(
                    "Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<String> r;
        try {
            r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while calling the schema registry", e);
        } catch (IllegalArgumentException e) {
            throw new IOException("Bad schema registry URL " + base + ": " + e.getMessage(), e);
        }
        if (r.statusCode() == 404) {
            throw new NotFoundException("The schema registry has no " + path + " (" + r.body() + ")");
        }
        if (r.statusCode() == 401 || r.statusCode() == 403) {
            throw new IOException("The schema registry refused the credentials (HTTP " + r.statusCode()
                    + "); check the basic-auth settings.");
        }
        if (r.statusCode() / 100 != 2) {
            throw new IOException("HTTP " + r.statusCode() + " from the schema registry: " + r.body());
        }
        try {
            return MiniJson.parse(r.body());
        } catch (IllegalArgumentException e) {
            throw new IOException("The schema registry sent no JSON for " + path + ": " + e.getMessage());
        }
    }

    private static SSLContext sslContext(RegistrySettings s) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            TrustManagerFactory tmf = null;
            if (s.truststoreLocation != null) {
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(load(s.truststoreLocation, s.truststorePassword));
            }
            KeyManagerFactory kmf = null;
            if (s.keystoreLocation != null) {
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                char[] pw = s.keystorePassword == null ? new char[0] : s.keystorePassword.toCharArray();
                kmf.init(load(s.keystoreLocation, s.keystorePassword), pw);
            }
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return ctx;
        } catch (Exception e) {
            throw new IllegalArgumentException("Cannot set up TLS for the schema registry: " + e.getMessage(), e);
        }
    }

    private static KeyStore load(String location, @Nullable String password) throws Exception {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            ks.load(in, password == null ? null : password.toCharArray());
        }
        return ks;
    }
}
