package io.inlet.it;

import io.inlet.core.Pipeline;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.S3Extension;
import io.inlet.testing.S3Server;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's checkpoints and savepoints on S3 through Flink's own S3 file system ({@code
 * flink-s3-fs-hadoop}, configured with {@code s3.endpoint}, {@code s3.path.style.access}, {@code
 * s3.access-key} and {@code s3.secret-key} as on a cluster): a pipeline checkpoints into a bucket of
 * the test's own, stops with a savepoint there, and a new job restored from it goes on where it
 * stopped, the lake equal to MySQL with nothing lost or twice.
 */
@ExtendWith({MariaDbExtension.class, S3Extension.class})
class FlinkStateOnS3ITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    /** Flink's file systems are the JVM's: the S3 settings of the test go, the defaults come back. */
    @AfterEach
    void fileSystemsAsBefore() {
        FileSystem.initialize(new Configuration(), null);
    }

    @Test
    void checkpointsAndASavepointOnS3RestoreTheJob(MariaDbServer mysql, S3Server s3, @TempDir Path warehouse)
            throws Exception {
        Configuration s3Settings = new Configuration();
        s3Settings.setString("s3.endpoint", s3.endpoint());
        s3Settings.setString("s3.path.style.access", "true");
        s3Settings.setString("s3.access-key", s3.accessKey());
        s3Settings.setString("s3.secret-key", s3.secretKey());
        FileSystem.initialize(s3Settings, null);
        String bucket = s3.newBucket("flink-state");
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE orders (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO orders VALUES (1, 1), (2, 2), (3, 3)");
        TableIdentifier id = TableIdentifier.of(db, "orders");
        try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse);
                Connection c = mysql.connection(db)) {
            JobClient first = job(mysql, db, warehouse, new Configuration(), "s3://" + bucket + "/checkpoints");
            String savepoint;
            try {
                Lakes.awaitIceberg(first, catalog, id, () -> Canonical.mysql(c, db, "orders"));
                mysql.execute(db, "UPDATE orders SET v = 20 WHERE id = 2", "INSERT INTO orders VALUES (4, 4)");
                Lakes.awaitIceberg(first, catalog, id, () -> Canonical.mysql(c, db, "orders"));
                String completed = "checkpoints/" + first.getJobID().toHexString() + "/chk-";
                Lakes.awaitObject(first, s3, bucket, k -> k.startsWith(completed) && k.endsWith("/_metadata"));
                savepoint = Jobs.stopWithSavepoint(first, "s3://" + bucket + "/savepoints");
            } finally {
                Jobs.cancelIfRunning(first);
            }
            assertThat(savepoint).startsWith("s3://" + bucket + "/savepoints/");
            String savepointKey = savepoint.substring(("s3://" + bucket + "/").length());
            assertThat(s3.keys(bucket)).contains(savepointKey + "/_metadata");

            // Changed while no job runs: the restored job reads them from the savepoint's binlog position.
            mysql.execute(db, "DELETE FROM orders WHERE id = 1", "UPDATE orders SET v = 30 WHERE id = 3");
            Configuration restore = new Configuration();
            restore.set(SavepointConfigOptions.SAVEPOINT_PATH, savepoint);
            JobClient second = job(mysql, db, warehouse, restore, "s3://" + bucket + "/checkpoints");
            try {
                mysql.execute(db, "INSERT INTO orders VALUES (5, 5)");
                Lakes.awaitIceberg(second, catalog, id, () -> Canonical.mysql(c, db, "orders"));
                assertThat(Canonical.mysql(c, db, "orders")).hasSize(4);
            } finally {
                Jobs.cancelIfRunning(second);
            }
        }
    }

    private static JobClient job(MariaDbServer mysql, String db, Path warehouse, Configuration conf, String checkpoints)
            throws Exception {
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints);
        return Pipeline.builder()
                .environment(Jobs.checkpointingEnvironment(conf, 2))
                .source("mysql-cdc", MySqlOptions.of(mysql, db, "orders"))
                .sink(IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .build())
                .build()
                .executeAsync();
    }
}
