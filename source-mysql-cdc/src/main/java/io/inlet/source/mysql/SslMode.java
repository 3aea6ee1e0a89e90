package io.inlet.source.mysql;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.util.OptionValues;

import java.util.Locale;

/**
 * TLS for every connection the MySQL source opens (option {@code ssl.mode}, values as Debezium's
 * {@code database.ssl.mode} and MySQL's {@code --ssl-mode}): the preflight check, the schema reads,
 * the snapshot chunks' JDBC connections and the binlog client.
 */
@PublicEvolving
public enum SslMode {
    /** No TLS. */
    DISABLED,
    /** TLS when the server offers it, else plain; the certificate is not checked. */
    PREFERRED,
    /** TLS or no connection; the certificate is not checked. */
    REQUIRED,
    /** TLS, and the server's certificate must be signed by a CA in 'ssl.truststore'. */
    VERIFY_CA,
    /** As {@link #VERIFY_CA}, and the certificate must name the host connected to. */
    VERIFY_IDENTITY;

    /** The option's value, as MySQL's {@code --ssl-mode} spells it: {@code verify-ca}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The value of Debezium's {@code database.ssl.mode}: {@code verify_ca}. */
    public String debeziumValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The value of MySQL Connector/J's {@code sslMode}: {@code VERIFY_CA}. */
    public String jdbcValue() {
        return name();
    }

    /** Whether the connection must be encrypted (the password never goes over a plain one). */
    public boolean encrypts() {
        return this != DISABLED && this != PREFERRED;
    }

    /** Whether the server's certificate is checked against a trust store. */
    public boolean verifies() {
        return this == VERIFY_CA || this == VERIFY_IDENTITY;
    }

    /**
     * Either spelling, {@code verify-ca} or Debezium's {@code verify_ca}.
     *
     * @throws InletValidationException naming the option and its values
     */
    public static SslMode of(String value) {
        String v = value.trim().replace('_', '-');
        for (SslMode m : values()) {
            if (m.key().equalsIgnoreCase(v)) {
                return m;
            }
        }
        throw OptionValues.unknown("ssl.mode", value, values(), SslMode::key);
    }
}
