package io.inlet.it;

import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.TestCertificates;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS to MySQL with one setting: against a MariaDB that refuses plain connections
 * ({@code require_secure_transport=ON}) with a certificate the test makes, the pipeline's preflight,
 * snapshot and binlog all connect over TLS, verifying the certificate and the host; with TLS off it
 * fails saying the server requires it, and with the wrong trust store saying the certificate is not
 * trusted.
 */
class MySqlTlsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    private static Path dir;
    private static TestCertificates certs;
    private static MariaDbServer mysql;

    @BeforeAll
    static void startServer() throws Exception {
        dir = Files.createTempDirectory("inlet-tls-");
        certs = TestCertificates.forLoopback(dir.resolve("server"));
        mysql = MariaDbServer.startWith(certs.mariaDbSettings());
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (mysql != null) {
            mysql.close();
        }
    }

    private static Map<String, String> source(String db, String mode) {
        Map<String, String> o = MySqlOptions.of(mysql, db, "t");
        o.put("ssl.mode", mode);
        return o;
    }

    @Test
    void everyConnectionUsesTlsAndVerifiesTheServer(@TempDir Path warehouse) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v VARCHAR(16))",
                "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
        Map<String, String> o = source(db, "verify-identity");
        o.put("ssl.truststore", certs.trustStore.toString());
        o.put("ssl.truststore.password", TestCertificates.PASSWORD);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(300);
        JobClient job = Pipeline.builder()
                .environment(env)
                .source("mysql-cdc", o)
                .sink(IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .build())
                .build()
                .executeAsync();
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            // The server refuses every plain connection: the snapshot and then the binlog arriving proves TLS.
            Lakes.awaitIceberg(job, catalog, TableIdentifier.of(db, "t"), () -> Canonical.mysql(c, db, "t"));
            mysql.execute(db, "UPDATE t SET v = 'over tls' WHERE id = 1", "INSERT INTO t VALUES (3, 'c')");
            Lakes.awaitIceberg(job, catalog, TableIdentifier.of(db, "t"), () -> Canonical.mysql(c, db, "t"));
        } finally {
            Jobs.cancelAndAwait(job);
        }
    }

    @Test
    void withoutTlsTheBuildSaysTheServerRequiresIt() {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE t (id INT NOT NULL PRIMARY KEY)");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(300);
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env)
                        .source("mysql-cdc", source(db, "disabled"))
                        .sink(IcebergSink.builder().warehouse("file:///nowhere").build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining(
                        "requires encrypted connections (require_secure_transport), and 'ssl.mode' is 'disabled'")
                .hasMessageContaining("Set 'ssl.mode' = 'required'");
    }

    @Test
    void anUntrustedCertificateIsRefused(@TempDir Path other) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE t (id INT NOT NULL PRIMARY KEY)");
        TestCertificates stranger = TestCertificates.forLoopback(other);
        Map<String, String> o = source(db, "verify-ca");
        o.put("ssl.truststore", stranger.trustStore.toString());
        o.put("ssl.truststore.password", TestCertificates.PASSWORD);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(300);
        assertThatThrownBy(() -> Pipeline.builder()
                        .environment(env)
                        .source("mysql-cdc", o)
                        .sink(IcebergSink.builder().warehouse("file:///nowhere").build())
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Cannot open an encrypted connection")
                .hasMessageContaining("'ssl.truststore' holds the CA");
    }
}
