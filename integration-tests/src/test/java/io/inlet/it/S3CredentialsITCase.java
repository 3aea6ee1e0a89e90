package io.inlet.it;

import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.FactoryDiscovery;
import io.inlet.core.testing.MiniClusters;
import io.inlet.testing.HiveMetastoreExtension;
import io.inlet.testing.HiveMetastoreServer;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.RestCatalogExtension;
import io.inlet.testing.RestCatalogServer;
import io.inlet.testing.S3Server;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The S3 secret key never shows, as the MySQL password does not ({@link MySqlPasswordITCase}): not in
 * any log line at INFO and above (Flink's, Iceberg's, the AWS SDK's, Inlet's), not in the sink's {@code toString} or
 * the pipeline's description, not in the job's configuration or plan as Flink's REST API shows them, and
 * not in the exception a refused secret brings. The secret is set the ways users set it: as an Iceberg
 * catalog property ({@code catalog.s3.secret-access-key}) of the sink's options, and as Flink's {@code
 * s3.secret-key} for checkpoints on S3.
 */
@ExtendWith({MariaDbExtension.class, RestCatalogExtension.class, HiveMetastoreExtension.class})
class S3CredentialsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(2);

    @AfterEach
    void fileSystemsAsBefore() {
        FileSystem.initialize(new Configuration(), null);
    }

    @Test
    void theSecretKeyNeverShows(MariaDbServer mysql, RestCatalogServer rest, HiveMetastoreServer hms) throws Exception {
        S3Server s3 = rest.s3();
        String secret = s3.secretKey();
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        String bucket = s3.newBucket("credentials");

        String captured;
        try (LogCapture logs = new LogCapture(Level.INFO)) {
            Configuration flinkS3 = new Configuration();
            flinkS3.setString("s3.endpoint", s3.endpoint());
            flinkS3.setString("s3.path.style.access", "true");
            flinkS3.setString("s3.access-key", s3.accessKey());
            flinkS3.setString("s3.secret-key", secret);
            FileSystem.initialize(flinkS3, null);
            Configuration conf = new Configuration();
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "s3://" + bucket + "/checkpoints");

            ChangeSink sink = FactoryDiscovery.createSink("iceberg", sinkOptions("rest", rest.uri(), null, s3, secret));
            assertThat(sink.toString()).contains(rest.uri()).doesNotContain(secret);
            Pipeline pipeline = Pipeline.builder()
                    .environment(Jobs.checkpointingEnvironment(conf, 2))
                    .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                    .sink(sink)
                    .build();
            assertThat(pipeline.describe()).doesNotContain(secret);
            JobClient job = pipeline.executeAsync();
            try (RESTCatalog catalog = new RESTCatalog();
                    Connection c = mysql.connection(db)) {
                catalog.initialize("rest", rest.clientProperties());
                TableIdentifier orders = TableIdentifier.of(db, "orders");
                Lakes.awaitIceberg(job, catalog, orders, () -> Canonical.mysql(c, db, "orders"));
                mysql.execute(db, "UPDATE orders SET note = 'binlog' WHERE customer = 'anna'");
                Lakes.awaitIceberg(job, catalog, orders, () -> Canonical.mysql(c, db, "orders"));
                assertThat(s3.keys(bucket)).anyMatch(k -> k.startsWith("checkpoints/") && k.endsWith("/_metadata"));
                assertThat(Shown.job(MINI_CLUSTER, job.getJobID())).doesNotContain(secret);
            } finally {
                Jobs.cancelIfRunning(job);
            }

            // A refused secret: the Hive catalog's client writes the new table's metadata itself, while the job
            // is built, and S3 answers 403. What the user sees names the problem, not the secret.
            String wrong = secret + "-wrong";
            assertThatThrownBy(() -> Pipeline.builder()
                            .environment(Jobs.checkpointingEnvironment(new Configuration(), 1))
                            .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                            .sink("iceberg", sinkOptions("hive", hms.uri(), hms.warehouse(), s3, wrong))
                            .build()
                            .executeAsync())
                    .isInstanceOf(InletValidationException.class)
                    .satisfies(
                            e -> assertThat(Shown.stackTrace(e)).contains("403").doesNotContain(secret));
            captured = logs.text();
        }
        assertThat(captured)
                .as("INFO and above logs of the run")
                .contains("org.apache.iceberg.aws.s3.S3FileIO")
                .contains("org.apache.flink.fs.s3");
        assertThat(captured).doesNotContain(secret);
    }

    /** The iceberg sink's options as a user writes them: the catalog's S3FileIO settings as catalog.* keys. */
    private static Map<String, String> sinkOptions(
            String type, String uri, String warehouse, S3Server s3, String secret) {
        Map<String, String> options = new HashMap<>();
        options.put("catalog-type", type);
        options.put("uri", uri);
        if (warehouse != null) {
            options.put("warehouse", warehouse);
        }
        s3.icebergProperties().forEach((k, v) -> options.put("catalog." + k, v));
        options.put("catalog.s3.secret-access-key", secret);
        return options;
    }
}
