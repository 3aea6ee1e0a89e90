package io.inlet.source.iceberg.internal;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshots read as changes, against tables written by Iceberg's own Flink delta writer (equality
 * deletes, key-only in upsert mode and full rows in changelog mode, and position deletes for rows
 * replaced within a snapshot): the changes of every snapshot, applied in order, give the table's batch
 * read at that snapshot (Iceberg's generic reader), and each change is one a changelog may carry there.
 */
class SnapshotChangesTest {

    private static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.required(2, "region", Types.IntegerType.get()),
                    Types.NestedField.optional(3, "v", Types.StringType.get())),
            Set.of(1, 2));

    @TempDir
    Path warehouse;

    private Table table(String name, boolean partitioned) {
        HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
        PartitionSpec spec = partitioned
                ? PartitionSpec.builderFor(SCHEMA).identity("region").build()
                : PartitionSpec.unpartitioned();
        // Avro files: Iceberg's Parquet writer needs parquet-avro, which this module's tests leave out.
        return catalog.createTable(
                TableIdentifier.of("db", name),
                SCHEMA,
                spec,
                Map.of("format-version", "2", "write.format.default", "avro"));
    }

    private static TaskWriter<RowData> writer(Table table, boolean upsert, int attempt) {
        RowDataTaskWriterFactory factory = new RowDataTaskWriterFactory(
                table,
                FlinkSchemaUtil.convert(SCHEMA),
                128L << 20,
                FileFormat.AVRO,
                table.properties(),
                List.of(1, 2),
                upsert);
        factory.initialize(0, attempt);
        return factory.create();
    }

    private static RowData row(RowKind kind, long id, int region, String v) {
        GenericRowData r = GenericRowData.of(id, region, v == null ? null : StringData.fromString(v));
        r.setRowKind(kind);
        return r;
    }

    private static void commit(Table table, WriteResult result) {
        RowDelta delta = table.newRowDelta();
        Arrays.stream(result.dataFiles()).forEach(delta::addRows);
        Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
        delta.commit();
    }

    /** The table at a snapshot, key "id/region" to v, read with Iceberg's generic reader. */
    private static Map<String, String> batch(Table table, long snapshotId) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            for (Record r : records) {
                out.put(r.getField("id") + "/" + r.getField("region"), String.valueOf(r.getField("v")));
            }
        }
        return out;
    }

    /** Applies a snapshot's changes to the materialized table, checking each is one a changelog may carry. */
    private static void apply(Map<String, String> table, List<RowData> changes) {
        Map<String, RowData> beforeImages = new TreeMap<>();
        for (RowData c : changes) {
            String key = c.getLong(0) + "/" + c.getInt(1);
            String v = c.isNullAt(2) ? "null" : c.getString(2).toString();
            switch (c.getRowKind()) {
                case INSERT:
                    assertThat(table).as("+I of a new key").doesNotContainKey(key);
                    table.put(key, v);
                    break;
                case UPDATE_BEFORE:
                    assertThat(table).as("-U with the full before-image").containsEntry(key, v);
                    beforeImages.put(key, c);
                    table.remove(key);
                    break;
                case UPDATE_AFTER:
                    assertThat(beforeImages).as("+U after its -U").containsKey(key);
                    table.put(key, v);
                    break;
                case DELETE:
                    assertThat(table).as("-D with the full row").containsEntry(key, v);
                    table.remove(key);
                    break;
                default:
                    throw new AssertionError(c.getRowKind());
            }
        }
    }

    @ParameterizedTest(name = "upsert={0}, partitioned={1}")
    @CsvSource({"true, false", "true, true", "false, false", "false, true"})
    void everySnapshotsChangesLeadFromItsParentToIt(boolean upsert, boolean partitioned) throws Exception {
        Table table = table("churn", partitioned);
        Random random = new Random(upsert ? 3 : 5);
        Map<String, String> source = new TreeMap<>();
        for (int checkpoint = 0; checkpoint < 8; checkpoint++) {
            TaskWriter<RowData> w = writer(table, upsert, checkpoint);
            for (int i = 0; i < 40; i++) {
                long id = random.nextInt(12);
                int region = random.nextInt(2);
                String key = id + "/" + region;
                String old = source.get(key);
                String now = "v" + checkpoint + "-" + i;
                if (old == null) {
                    w.write(row(RowKind.INSERT, id, region, now));
                    source.put(key, now);
                } else if (random.nextInt(3) == 0) {
                    w.write(row(RowKind.DELETE, id, region, old));
                    source.remove(key);
                } else {
                    w.write(row(RowKind.UPDATE_BEFORE, id, region, old));
                    w.write(row(RowKind.UPDATE_AFTER, id, region, now));
                    source.put(key, now);
                }
            }
            commit(table, w.complete());
        }
        table.refresh();
        assertThat(batch(table, table.currentSnapshot().snapshotId())).isEqualTo(source);

        SnapshotChanges changes = new SnapshotChanges(table);
        Map<String, String> materialized = new TreeMap<>();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        for (Snapshot s : snapshots) {
            apply(materialized, changes.of(s));
            assertThat(materialized)
                    .as("after snapshot %s", s.sequenceNumber())
                    .isEqualTo(batch(table, s.snapshotId()));
        }
    }

    @Test
    void aKeyWrittenAgainWithItsValuesAndAKeyInsertedAndDeletedWithinASnapshotChangeNothing() throws Exception {
        Table table = table("same", false);
        TaskWriter<RowData> first = writer(table, true, 0);
        first.write(row(RowKind.INSERT, 1, 0, "a"));
        first.write(row(RowKind.INSERT, 2, 0, "b"));
        commit(table, first.complete());

        TaskWriter<RowData> second = writer(table, true, 1);
        second.write(row(RowKind.INSERT, 1, 0, "a")); // an upsert of the same values
        second.write(row(RowKind.INSERT, 3, 0, "c"));
        second.write(row(RowKind.DELETE, 3, 0, "c"));
        second.write(row(RowKind.UPDATE_AFTER, 2, 0, "b2"));
        commit(table, second.complete());
        table.refresh();

        List<RowData> out = new SnapshotChanges(table).of(table.currentSnapshot());
        assertThat(out)
                .extracting(r -> r.getRowKind().shortString() + r.getLong(0) + "=" + r.getString(2))
                .containsExactly("-U2=b", "+U2=b2");
    }

    @Test
    void aCompactionEmitsNothingAndAWholeFileDeleteEmitsItsRows() throws Exception {
        Table table = table("files", false);
        TaskWriter<RowData> w = writer(table, false, 0);
        w.write(row(RowKind.INSERT, 1, 0, "a"));
        w.write(row(RowKind.INSERT, 2, 0, "b"));
        commit(table, w.complete());
        table.rewriteManifests().rewriteIf(m -> true).commit();
        table.refresh();
        assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
        SnapshotChanges changes = new SnapshotChanges(table);
        assertThat(changes.of(table.currentSnapshot())).isEmpty();

        DataFile file;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            file = tasks.iterator().next().file();
        }
        table.newDelete().deleteFile(file).commit();
        table.refresh();
        assertThat(changes.of(table.currentSnapshot()))
                .extracting(r -> r.getRowKind().shortString() + r.getLong(0) + "=" + r.getString(2))
                .containsExactlyInAnyOrder("-D1=a", "-D2=b");
    }
}
