package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * A Hive Metastore (Hive 3.1.3's standalone metastore on an embedded Derby database) in its own JVM on
 * 127.0.0.1 and a free port, with its warehouse on an {@link S3Server}: it makes the directories of
 * databases and tables in a bucket of its own through Hadoop's S3A. Use {@link HiveMetastoreExtension}
 * to share one per test JVM; each test makes its own databases.
 *
 * <pre>{@code
 * String uri = hms.uri();             // thrift://127.0.0.1:<port>, Iceberg's HiveCatalog 'uri'
 * String warehouse = hms.warehouse(); // s3a://<its bucket>/warehouse
 * }</pre>
 */
public final class HiveMetastoreServer extends ServiceProcess implements ExtensionContext.Store.CloseableResource {

    private final int port;
    private final S3Server s3;
    private final String bucket;

    private HiveMetastoreServer(Path workDir, int port, S3Server s3, String bucket) {
        super("hive-metastore", workDir);
        this.port = port;
        this.s3 = s3;
        this.bucket = bucket;
    }

    public static HiveMetastoreServer start(S3Server s3) {
        String bucket = s3.newBucket("hive-warehouse");
        return FreePorts.startRetryingTakenPorts(() -> {
            Path dir = newWorkDir("inlet-hms-", "the Hive Metastore");
            HiveMetastoreServer server = new HiveMetastoreServer(dir, FreePorts.next(), s3, bucket);
            server.startServer();
            return server;
        });
    }

    private void startServer() {
        try {
            Properties p = new Properties();
            p.setProperty(
                    "javax.jdo.option.ConnectionURL",
                    "jdbc:derby:;databaseName=" + workDir().resolve("metastore_db") + ";create=true");
            // A fresh database: the schema is made on first use, with nothing to verify it against.
            p.setProperty("datanucleus.schema.autoCreateAll", "true");
            p.setProperty("metastore.schema.verification", "false");
            // DataNucleus makes the tables on first use, after the direct-SQL self-test would have failed.
            p.setProperty("metastore.try.direct.sql", "false");
            p.setProperty("metastore.warehouse.dir", warehouse());
            // The standalone metastore's defaults name classes of hive-exec, which it runs without.
            p.setProperty(
                    "metastore.expression.proxy", "org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy");
            p.setProperty("metastore.task.threads.always", "org.apache.hadoop.hive.metastore.events.EventCleanerTask");
            s3.s3aProperties().forEach(p::setProperty);
            Path conf = workDir().resolve("metastore.properties");
            try (OutputStream out = Files.newOutputStream(conf)) {
                p.store(out, "written by the Inlet test harness");
            }
            launch(List.of(
                    javaBinary(),
                    "-Xms64m",
                    "-Xmx384m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Djava.net.preferIPv4Stack=true",
                    // Log4j 2 without a configuration file logs errors only; warnings help a failed start.
                    "-Dorg.apache.logging.log4j.level=WARN",
                    "-Dderby.stream.error.file=" + workDir().resolve("derby.log"),
                    "-Daws.disableEc2Metadata=true",
                    "-cp",
                    ServiceDists.hms("hms.classpath"),
                    ServiceDists.hms("hms.main"),
                    String.valueOf(port),
                    conf.toString()));
        } catch (IOException e) {
            throw startFailure(e.toString(), e);
        }
        awaitReady(uri(), 120, () -> {
            // The launcher opens the port once the handler has made its database.
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                return null;
            } catch (IOException e) {
                return "port " + port + ": " + e.getMessage();
            }
        });
    }

    /** {@code thrift://127.0.0.1:<port>}, the {@code uri} of Iceberg's HiveCatalog and Hudi's Hive sync. */
    public String uri() {
        return "thrift://127.0.0.1:" + port;
    }

    /** The metastore's warehouse: {@code s3a://<its bucket>/warehouse}. */
    public String warehouse() {
        return "s3a://" + bucket + "/warehouse";
    }

    /** The bucket of its warehouse. */
    public String bucket() {
        return bucket;
    }

    public S3Server s3() {
        return s3;
    }
}
