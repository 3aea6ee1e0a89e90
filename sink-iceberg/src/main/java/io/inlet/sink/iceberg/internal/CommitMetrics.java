package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.ContentFile;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The committer's metrics, per table, under the group and names of Iceberg's own committer ({@code
 * IcebergFilesCommitter}, {@code table} = the table's name), so that dashboards built for Iceberg's
 * {@code FlinkSink} keep working: {@code committedDataFilesCount}, {@code
 * committedDataFilesRecordCount}, {@code committedDataFilesByteCount}, the same three for delete
 * files, {@code lastCommitDurationMs} and {@code elapsedSecondsSinceLastSuccessfulCommit}. Inlet
 * adds {@code failedCommits}: commits that failed and are retried.
 */
@Internal
final class CommitMetrics {

    private final MetricGroup root;
    /** Used by the commit threads, one table each. */
    private final Map<String, Table> tables = new ConcurrentHashMap<>();

    CommitMetrics(MetricGroup operatorGroup) {
        this.root = operatorGroup.addGroup("IcebergFilesCommitter");
    }

    /** The table's metrics, registered on first use. */
    Table table(String name) {
        return tables.computeIfAbsent(name, n -> new Table(root.addGroup("table", n)));
    }

    /** One table's metrics. */
    static final class Table {
        private final Counter dataFiles;
        private final Counter dataRecords;
        private final Counter dataBytes;
        private final Counter deleteFiles;
        private final Counter deleteRecords;
        private final Counter deleteBytes;
        private final Counter failed;
        private final Counter backfilled;
        private volatile long lastCommitDurationMs;
        /** Since this run started, until the first commit. */
        private volatile long lastSuccessNanos = System.nanoTime();

        private Table(MetricGroup group) {
            dataFiles = group.counter("committedDataFilesCount");
            dataRecords = group.counter("committedDataFilesRecordCount");
            dataBytes = group.counter("committedDataFilesByteCount");
            deleteFiles = group.counter("committedDeleteFilesCount");
            deleteRecords = group.counter("committedDeleteFilesRecordCount");
            deleteBytes = group.counter("committedDeleteFilesByteCount");
            failed = group.counter("failedCommits");
            backfilled = group.counter("rowsGivenTheirDefault");
            group.gauge("lastCommitDurationMs", (Gauge<Long>) () -> lastCommitDurationMs);
            group.gauge("elapsedSecondsSinceLastSuccessfulCommit", (Gauge<Long>)
                    () -> (System.nanoTime() - lastSuccessNanos) / 1_000_000_000L);
        }

        void committed(List<? extends ContentFile<?>> data, List<? extends ContentFile<?>> deletes, long durationMs) {
            add(data, dataFiles, dataRecords, dataBytes);
            add(deletes, deleteFiles, deleteRecords, deleteBytes);
            lastCommitDurationMs = durationMs;
            lastSuccessNanos = System.nanoTime();
        }

        /** Rows written before a column was added with a default, rewritten with it ({@link IcebergDefaults}). */
        void backfilled(long rows) {
            backfilled.inc(rows);
        }

        void failed() {
            failed.inc();
        }

        private static void add(List<? extends ContentFile<?>> files, Counter count, Counter records, Counter bytes) {
            count.inc(files.size());
            for (ContentFile<?> f : files) {
                records.inc(f.recordCount());
                bytes.inc(f.fileSizeInBytes());
            }
        }
    }
}
