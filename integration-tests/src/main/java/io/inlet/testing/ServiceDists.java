package io.inlet.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Where the build put the servers' distributions (see the inlet-integration-tests-service-dists
 * module): the Kafka broker's classpath and the Apicurio Registry archive.
 */
final class ServiceDists {

    private static final Properties PROPS = load();

    private ServiceDists() {}

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = ServiceDists.class.getResourceAsStream("/io/inlet/testing/service-dists.properties")) {
            if (in == null) {
                throw new IllegalStateException(
                        "io/inlet/testing/service-dists.properties is not on the classpath; depend on"
                                + " io.inlet:inlet-integration-tests-service-dists and build it with Maven.");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    static String get(String key) {
        String v = PROPS.getProperty(key);
        if (v == null || v.isEmpty() || v.startsWith("${")) {
            throw new IllegalStateException(
                    key + " is not set in service-dists.properties (" + v + "); rebuild inlet-integration-tests-service-dists.");
        }
        return v;
    }
}
