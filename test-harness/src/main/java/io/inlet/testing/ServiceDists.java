package io.inlet.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Where the build put what the harness runs in other processes: the Kafka broker's classpath, the
 * Apicurio Registry archive and s3proxy's jar (module inlet-integration-tests-service-dists), the Iceberg
 * REST catalog server's classpath (inlet-integration-tests-rest-catalog-dist), the Hive Metastore's
 * (inlet-integration-tests-hive-metastore-dist), and a Flink distribution
 * without Hadoop (module inlet-integration-tests-flink-dist). Each module carries a properties file.
 */
final class ServiceDists {

    private static final Properties SERVICES =
            load("service-dists.properties", "inlet-integration-tests-service-dists");
    private static final Properties FLINK = load("flink-dist.properties", "inlet-integration-tests-flink-dist");
    private static final Properties REST =
            load("rest-catalog-dist.properties", "inlet-integration-tests-rest-catalog-dist");
    private static final Properties HMS =
            load("hive-metastore-dist.properties", "inlet-integration-tests-hive-metastore-dist");

    private ServiceDists() {}

    private static Properties load(String file, String module) {
        Properties p = new Properties();
        String resource = "/io/inlet/testing/" + file;
        try (InputStream in = ServiceDists.class.getResourceAsStream(resource)) {
            if (in != null) {
                p.load(in);
            } else {
                p.setProperty(
                        "missing",
                        resource.substring(1) + " is not on the classpath; depend on io.inlet:" + module
                                + " and build it with Maven.");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** A setting of service-dists.properties. */
    static String get(String key) {
        return get(SERVICES, key, "inlet-integration-tests-service-dists");
    }

    /** A setting of rest-catalog-dist.properties. */
    static String rest(String key) {
        return get(REST, key, "inlet-integration-tests-rest-catalog-dist");
    }

    /** A setting of hive-metastore-dist.properties. */
    static String hms(String key) {
        return get(HMS, key, "inlet-integration-tests-hive-metastore-dist");
    }

    /** A setting of flink-dist.properties. */
    static String flink(String key) {
        return get(FLINK, key, "inlet-integration-tests-flink-dist");
    }

    private static String get(Properties p, String key, String module) {
        if (p.containsKey("missing")) {
            throw new IllegalStateException(p.getProperty("missing"));
        }
        String v = p.getProperty(key);
        if (v == null || v.isEmpty() || v.startsWith("${")) {
            throw new IllegalStateException(key + " is not set (" + v + "); rebuild " + module + ".");
        }
        return v;
    }
}
