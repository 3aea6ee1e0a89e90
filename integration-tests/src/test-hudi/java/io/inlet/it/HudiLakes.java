package io.inlet.it;

import io.inlet.core.spi.ChangeSink;
import io.inlet.core.table.TableDescriptor;
import io.inlet.sink.hudi.HudiSink;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

import java.io.File;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * Hudi lakes of the tests, read back with Hudi's own reader. In the build for Flink 1.17 only (the
 * only Hudi Flink bundle is for 1.17): {@link MirrorLake#hudi} finds this class where it is.
 */
final class HudiLakes {

    private HudiLakes() {}

    /**
     * A Hudi sink into the directory for a test: one writer task, compaction after this many delta
     * commits, no embedded timeline server.
     */
    static HudiSink hudiSink(Path lake, int deltaCommitsPerCompaction) {
        return HudiSink.builder()
                .path(lake.toUri().toString())
                .option("write.tasks", "1")
                .option("compaction.delta_commits", String.valueOf(deltaCommitsPerCompaction))
                .option("hoodie.embed.timeline.server", "false")
                .build();
    }

    /**
     * Waits until the Hudi table, read with Hudi's Flink reader, equals the expected rows; the columns
     * named in {@code skip} (the sink's ordering column) are left out of the comparison.
     */
    static void awaitHudi(
            JobClient job,
            Path table,
            RowType type,
            List<String> primaryKey,
            Callable<List<String>> expected,
            String... skip)
            throws Exception {
        try {
            Lakes.awaitRows(job, "Hudi table " + table, expected, () -> {
                if (!table.resolve(".hoodie").toFile().exists()) {
                    return List.of();
                }
                List<Row> rows = HudiReads.read(table, type, primaryKey);
                return Canonical.flink(rows, type.getFieldNames(), skip);
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + writerState(table), e);
        }
    }

    /**
     * Waits until each of the sink's tables at {@code <lake>/<db>/<table>} equals its MySQL table as the
     * pipeline types it.
     */
    static void awaitEqualToMySql(
            JobClient job, Connection c, String db, Path lake, HudiSink sink, List<TableDescriptor> tables)
            throws Exception {
        for (TableDescriptor t : tables) {
            awaitHudi(
                    job,
                    lake.resolve(db).resolve(t.tableId().table()),
                    sink.writeRowType(t),
                    t.primaryKey(),
                    () -> Canonical.mysqlAs(c, db, t.tableId().table(), t.toRowType()),
                    HudiOrdering.COLUMNS);
        }
    }

    /**
     * What a wait that timed out needs to be explained: the table's timeline, and where Hudi's write
     * tasks are (a writer that waits for an instant in {@code instantToWrite} or {@code TimeWait}
     * holds its checkpoint, and with it every commit of the job).
     */
    static String writerState(Path table) {
        StringBuilder b = new StringBuilder("Timeline of ").append(table).append(":");
        File[] files = table.resolve(".hoodie").toFile().listFiles(File::isFile);
        if (files != null) {
            // The latest instants tell where the writer stopped; the whole history drowns it.
            List<String> names = Arrays.stream(files)
                    .map(File::getName)
                    .filter(n -> !n.startsWith("."))
                    .sorted()
                    .collect(Collectors.toList());
            if (names.size() > 15) {
                b.append(" (").append(names.size() - 15).append(" earlier files) ...");
            }
            names.subList(Math.max(0, names.size() - 15), names.size())
                    .forEach(n -> b.append(' ').append(n));
        }
        for (Map.Entry<Thread, StackTraceElement[]> t :
                Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] stack = t.getValue();
            if (Arrays.stream(stack).anyMatch(f -> f.getClassName().startsWith("org.apache.hudi.sink"))) {
                b.append("\nThread ").append(t.getKey().getName()).append(':');
                Arrays.stream(stack)
                        .limit(25)
                        .forEach(f -> b.append("\n    at ").append(f));
            }
        }
        return b.toString();
    }

    /** A {@link MirrorLake} of the Hudi sink {@link #hudiSink} makes; called by {@link MirrorLake#hudi}. */
    static MirrorLake mirror(Path lake, int deltaCommitsPerCompaction) {
        HudiSink sink = hudiSink(lake, deltaCommitsPerCompaction);
        return new MirrorLake() {
            @Override
            String name() {
                return "Hudi at " + lake;
            }

            @Override
            ChangeSink sink() {
                return sink;
            }

            @Override
            void await(JobClient job, TableDescriptor table, Callable<List<String>> expected) throws Exception {
                awaitHudi(
                        job,
                        lake.resolve(table.tableId().database())
                                .resolve(table.tableId().table()),
                        sink.writeRowType(table),
                        table.primaryKey(),
                        expected,
                        HudiOrdering.COLUMNS);
            }
        };
    }
}
