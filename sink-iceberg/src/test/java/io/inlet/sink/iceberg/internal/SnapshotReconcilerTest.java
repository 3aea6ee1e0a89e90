package io.inlet.sink.iceberg.internal;

import io.inlet.sink.iceberg.IcebergCatalogConfig;

import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What the reconciler drops and when it sees a checkpoint committed, on a real Hadoop-catalog table. */
class SnapshotReconcilerTest {

    private static final Schema SCHEMA = new Schema(List.of(Types.NestedField.required(1, "id", Types.LongType.get())), Set.of(1));

    private static HadoopCatalog catalog(Path warehouse) {
        return new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
    }

    private static DataFile file(String name) {
        return DataFiles.builder(PartitionSpec.unpartitioned()).withPath("/lake/" + name + ".parquet").withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100).withRecordCount(3).build();
    }

    private static void append(Table table, String name, Map<String, String> summary) {
        AppendFiles append = table.newAppend().appendFile(file(name));
        summary.forEach(append::set);
        append.commit();
    }

    private static List<String> files(Table table) throws Exception {
        table.refresh();
        List<String> out = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> out.add(t.file().path().toString()));
        }
        return out;
    }

    @Test
    void dropsTheFilesWrittenUpToTheBaseOnceAndKeepsTheRest(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            Table table = c.createTable(TableIdentifier.of("lake", "orders"), SCHEMA, PartitionSpec.unpartitioned(),
                    Map.of("format-version", "2"));
            append(table, "old-1", Map.of());
            append(table, "old-2", Map.of());
            long base = table.currentSnapshot().sequenceNumber();
            append(table, "new-1", Map.of());

            assertThat(SnapshotReconciler.dropOlderThan(table, base)).isEqualTo(2);
            assertThat(files(table)).containsExactly("/lake/new-1.parquet");
            assertThat(table.currentSnapshot().operation()).isEqualTo("delete");
            assertThat(table.currentSnapshot().summary()).containsEntry("inlet.snapshot-reconciled-base", String.valueOf(base));
            // A second run (a restore before the reconciler's state forgot the table) finds nothing.
            assertThat(SnapshotReconciler.dropOlderThan(table, base)).isZero();
            assertThat(files(table)).containsExactly("/lake/new-1.parquet");
        }
    }

    @Test
    void seesACheckpointCommittedOnlyByThisJobsCommitter(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            Table table = c.createTable(TableIdentifier.of("lake", "orders"), SCHEMA, PartitionSpec.unpartitioned(),
                    Map.of("format-version", "2"));
            assertThat(SnapshotReconciler.committedThrough(table, "job", 1)).isFalse();
            append(table, "a", Map.of("flink.job-id", "job", "flink.max-committed-checkpoint-id", "5"));
            append(table, "b", Map.of("flink.job-id", "other", "flink.max-committed-checkpoint-id", "9"));
            append(table, "c", Map.of());
            table.refresh();
            assertThat(SnapshotReconciler.committedThrough(table, "job", 5)).isTrue();
            assertThat(SnapshotReconciler.committedThrough(table, "job", 6)).isFalse();
            assertThat(SnapshotReconciler.committedThrough(table, "other", 9)).isTrue();
            assertThat(SnapshotReconciler.committedThrough(table, "third", 1)).isFalse();
        }
    }

    @Test
    void shipsToTaskManagers(@TempDir Path warehouse) throws Exception {
        SnapshotReconciler r = new SnapshotReconciler(
                IcebergCatalogConfig.of("c", "hadoop", null, Map.of("warehouse", warehouse.toUri().toString()), Map.of()).loader(),
                List.of("lake.orders"));
        assertThat(InstantiationUtil.clone(r)).isNotNull().isNotSameAs(r);
    }
}
