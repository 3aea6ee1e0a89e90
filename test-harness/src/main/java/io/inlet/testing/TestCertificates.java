package io.inlet.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed TLS certificate for {@code 127.0.0.1}, made with the JDK's keytool for a test: the
 * server's certificate and key as PEM files (what MariaDB's {@code ssl_cert}, {@code ssl_key} and
 * {@code ssl_ca} take) and a PKCS12 trust store holding the certificate (what clients verify with).
 */
public final class TestCertificates {

    /** The trust store's password. */
    public static final String PASSWORD = "changeit-" + TestNames.unique("pw");

    public final Path certificatePem;
    public final Path keyPem;
    public final Path trustStore;

    private TestCertificates(Path certificatePem, Path keyPem, Path trustStore) {
        this.certificatePem = certificatePem;
        this.keyPem = keyPem;
        this.trustStore = trustStore;
    }

    /** Makes a certificate whose subject and IP address name 127.0.0.1, into a fresh directory. */
    public static TestCertificates forLoopback(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path keyStore = dir.resolve("server.p12");
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        List<String> cmd = new ArrayList<>(List.of(
                keytool,
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=ip:127.0.0.1",
                "-validity",
                "3",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool could not make a test certificate: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        Key key = ks.getKey("server", PASSWORD.toCharArray());
        Certificate cert = ks.getCertificate("server");
        Path certPem = dir.resolve("server-cert.pem");
        Path keyPem = dir.resolve("server-key.pem");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server-ca", cert);
        Path trustStore = dir.resolve("truststore.p12");
        try (OutputStream o = Files.newOutputStream(trustStore)) {
            trust.store(o, PASSWORD.toCharArray());
        }
        return new TestCertificates(certPem, keyPem, trustStore);
    }

    /** The MariaDB settings that turn TLS on with this certificate and refuse plain connections. */
    public Map<String, String> mariaDbSettings() {
        return Map.of(
                "ssl_cert", certificatePem.toString(),
                "ssl_key", keyPem.toString(),
                "ssl_ca", certificatePem.toString(),
                "require_secure_transport", "ON");
    }

    private static String pem(String type, byte[] der) throws IOException {
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
    }
}
