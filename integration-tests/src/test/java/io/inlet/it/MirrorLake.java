package io.inlet.it;

import io.inlet.core.spi.ChangeSink;
import io.inlet.core.table.TableDescriptor;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.sink.iceberg.WriteMode;

import org.apache.flink.core.execution.JobClient;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;

import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A lake a test pipeline mirrors into, with the wait for its tables to equal the source, each read
 * with the lake's own reader. Tests that mirror into every lake of the build take {@link #iceberg}
 * and {@link #hudi}: Hudi is in the Flink 1.17 build only (its test classes are under
 * {@code src/test-hudi}), so on other Flink lines the same test covers Iceberg alone.
 */
abstract class MirrorLake {

    abstract String name();

    abstract ChangeSink sink();

    /** Waits until the sink's table equals the expected rows (canonical, as {@link Canonical} writes them). */
    abstract void await(JobClient job, TableDescriptor table, Callable<List<String>> expected) throws Exception;

    /** An Iceberg warehouse in a Hadoop catalog, written in the given mode. */
    static MirrorLake iceberg(Path warehouse, WriteMode mode) {
        IcebergSink sink = IcebergSink.builder()
                .warehouse(warehouse.toUri().toString())
                .writeMode(mode)
                .build();
        return new MirrorLake() {
            @Override
            String name() {
                return "Iceberg (" + mode + ") at " + warehouse;
            }

            @Override
            ChangeSink sink() {
                return sink;
            }

            @Override
            void await(JobClient job, TableDescriptor table, Callable<List<String>> expected) throws Exception {
                try (HadoopCatalog catalog = Lakes.hadoopCatalog(warehouse)) {
                    Lakes.awaitIceberg(
                            job,
                            catalog,
                            TableIdentifier.of(
                                    table.tableId().database(), table.tableId().table()),
                            expected);
                }
            }
        };
    }

    /**
     * A Hudi lake (one writer task, compaction after this many delta commits) where this build has
     * Hudi, or empty on a Flink line without it.
     */
    static Optional<MirrorLake> hudi(Path lake, int deltaCommitsPerCompaction) {
        Class<?> lakes;
        try {
            lakes = Class.forName("io.inlet.it.HudiLakes");
        } catch (ClassNotFoundException e) {
            return Optional.empty(); // a build for a Flink line without Hudi
        }
        try {
            return Optional.of((MirrorLake) lakes.getDeclaredMethod("mirror", Path.class, int.class)
                    .invoke(null, lake, deltaCommitsPerCompaction));
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("The Hudi lake of the test could not be made", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("HudiLakes.mirror(Path, int) is missing", e);
        }
    }
}
