package io.inlet.source.mysql;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * TLS for every connection the MySQL source opens (option {@code ssl.mode}, values as Debezium's
 * {@code database.ssl.mode} and MySQL's {@code --ssl-mode}): the preflight check, the schema reads,
 * the snapshot chunks' JDBC connections and the binlog client.
 */
@PublicEvolving
public enum SslMode {
    /** No TLS. */
    DISABLED("disabled", "DISABLED"),
    /** TLS when the server offers it, else plain; the certificate is not checked. */
    PREFERRED("preferred", "PREFERRED"),
    /** TLS or no connection; the certificate is not checked. */
    REQUIRED("required", "REQUIRED"),
    /** TLS, and the server's certificate must be signed by a CA in 'ssl.truststore'. */
    VERIFY_CA("verify_ca", "VERIFY_CA"),
    /** As {@link #VERIFY_CA}, and the certificate must name the host connected to. */
    VERIFY_IDENTITY("verify_identity", "VERIFY_IDENTITY");

    private final String debezium;
    private final String jdbc;

    SslMode(String debezium, String jdbc) {
        this.debezium = debezium;
        this.jdbc = jdbc;
    }

    /** The value of Debezium's {@code database.ssl.mode}. */
    public String debeziumValue() {
        return debezium;
    }

    /** The value of MySQL Connector/J's {@code sslMode}. */
    public String jdbcValue() {
        return jdbc;
    }

    /** Whether the connection must be encrypted (the password never goes over a plain one). */
    public boolean encrypts() {
        return this != DISABLED && this != PREFERRED;
    }

    /** Whether the server's certificate is checked against a trust store. */
    public boolean verifies() {
        return this == VERIFY_CA || this == VERIFY_IDENTITY;
    }

    /** @throws InletValidationException naming the option and its values */
    public static SslMode of(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (SslMode m : values()) {
            if (m.debezium.equals(v)) {
                return m;
            }
        }
        throw new InletValidationException("'ssl.mode' = '" + value + "' is unknown; use one of "
                + Arrays.stream(values()).map(m -> m.debezium.replace('_', '-')).collect(Collectors.joining(", ")) + ".");
    }
}
