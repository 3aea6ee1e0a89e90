package io.inlet.it;

import io.inlet.testing.S3Server;

import org.apache.flink.core.execution.JobClient;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** Waits for lake tables, read with their own readers, to reach the rows a test expects. */
final class Lakes {

    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private Lakes() {}

    /** The Iceberg catalog of a warehouse directory (close it). */
    static HadoopCatalog hadoopCatalog(Path warehouse) {
        return new HadoopCatalog(
                new org.apache.hadoop.conf.Configuration(false),
                warehouse.toUri().toString());
    }

    /** Waits until the Iceberg table, read with Iceberg's generic reader, equals the expected rows. */
    static void awaitIceberg(JobClient job, Catalog catalog, TableIdentifier id, Callable<List<String>> expected)
            throws Exception {
        awaitRows(
                job,
                "Iceberg table " + id,
                expected,
                () -> catalog.tableExists(id) ? Canonical.iceberg(catalog.loadTable(id)) : List.of());
    }

    /** Waits until the bucket holds an object whose key matches (a checkpoint, a commit, a compaction). */
    static void awaitObject(JobClient job, S3Server s3, String bucket, Predicate<String> key) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        List<String> keys = s3.keys(bucket);
        while (keys.stream().noneMatch(key) && System.nanoTime() < deadline) {
            Jobs.assertRunning(job);
            Thread.sleep(200); // polling for the job's next object; the assertion below decides
            keys = s3.keys(bucket);
        }
        assertThat(keys).as("objects in bucket %s", bucket).anyMatch(key);
    }

    static void awaitRows(JobClient job, String what, Callable<List<String>> expected, Callable<List<String>> actual)
            throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        List<String> want = expected.call();
        List<String> have = List.of();
        Exception readFailure = null;
        while (System.nanoTime() < deadline) {
            if (job != null) {
                Jobs.assertRunning(job);
            }
            try {
                have = actual.call();
                readFailure = null;
            } catch (Exception e) {
                // A read that meets a file the writer is still writing: on a local filesystem Hudi writes
                // its compaction plan in place, and a reader can see it half-written. Read again; a read
                // that still fails at the deadline fails the test.
                readFailure = e;
            }
            if (readFailure == null && have.equals(want)) {
                return;
            }
            Thread.sleep(250); // polling for the next commit; the assertion below decides
        }
        if (readFailure != null) {
            throw new AssertionError(what + " could not be read until the deadline", readFailure);
        }
        assertThat(have).as(what).containsExactlyElementsOf(want);
    }
}
