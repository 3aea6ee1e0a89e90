package io.inlet.sink.iceberg.internal;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;
import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.sink.iceberg.TestFiles;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The writer for many tables, feeding the committer, against real Iceberg tables (operator test harness). */
class TablesWriterTest {

    private static final TableId ORDERS = TableId.of("lake", "orders");
    private static final TableId ITEMS = TableId.of("lake", "items");
    private static final RowType TYPE = FlinkSchemaUtil.convert(TestFiles.SCHEMA);

    @TempDir
    Path warehouse;

    private HadoopCatalog catalog;
    private CatalogLoader loader;

    @BeforeEach
    void tables() {
        catalog = new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
        for (TableId id : List.of(ORDERS, ITEMS)) {
            catalog.createTable(
                    TableIdentifier.of(id.database(), id.table()),
                    TestFiles.SCHEMA,
                    PartitionSpec.unpartitioned(),
                    // Avro files: Iceberg's Parquet writer needs parquet-avro, which this module's tests leave out.
                    Map.of("format-version", "2", "write.format.default", "avro"));
        }
        loader = IcebergCatalogConfig.of(
                        "c",
                        "hadoop",
                        null,
                        Map.of("warehouse", warehouse.toUri().toString()),
                        Map.of())
                .loader();
    }

    private TablesWriter writer(boolean upsert) {
        return writer(upsert, 1000, 1L << 30);
    }

    private TablesWriter writer(boolean upsert, int maxOpenWriters, long maxBufferedBytes) {
        TablesWriter.TableWrite orders = new TablesWriter.TableWrite(
                "lake.orders", new IcebergRowConverter(TYPE, TYPE), TYPE, List.of("id"), upsert, false);
        TablesWriter.TableWrite items = new TablesWriter.TableWrite(
                "lake.items", new IcebergRowConverter(TYPE, TYPE), TYPE, List.of("id"), upsert, false);
        return new TablesWriter(loader, Map.of(ORDERS, orders, ITEMS, items), maxOpenWriters, maxBufferedBytes);
    }

    private static StreamRecord<ChangeEvent> change(TableId table, RowKind kind, int id, String v) {
        GenericRowData row = GenericRowData.ofKind(kind, id, StringData.fromString(v));
        return new StreamRecord<>(ChangeEvent.of(table, 1, row, ChangeEvent.UNKNOWN_TIMESTAMP, SourcePosition.none()));
    }

    private Table table(TableId id) {
        return catalog.loadTable(TableIdentifier.of(id.database(), id.table()));
    }

    /** Two checkpoints of changes to two tables; the first one aborted before its barrier reached the committer. */
    private void writeAndCommit(boolean upsert) throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(upsert), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c =
                        new OneInputStreamOperatorTestHarness<>(new TablesCommitter(loader, List.of()), 1, 1, 0)) {
            w.open();
            c.open();
            w.processElement(change(ORDERS, RowKind.INSERT, 1, "v1"));
            w.processElement(change(ITEMS, RowKind.INSERT, 7, "a"));
            w.processElement(change(ORDERS, RowKind.INSERT, 2, "x"));
            w.prepareSnapshotPreBarrier(1L);
            w.processElement(change(ORDERS, RowKind.UPDATE_BEFORE, 1, "v1"));
            w.processElement(change(ORDERS, RowKind.UPDATE_AFTER, 1, "v2"));
            w.processElement(change(ORDERS, RowKind.DELETE, 2, "x"));
            w.prepareSnapshotPreBarrier(2L);
            List<TableCommittable> flushed = w.extractOutputValues();
            assertThat(flushed).extracting(TableCommittable::checkpointId).containsExactly(1L, 1L, 2L);
            for (TableCommittable f : flushed) {
                c.processElement(new StreamRecord<>(f));
            }
            c.snapshot(2L, 2L);
            c.notifyOfCompletedCheckpoint(2L);
        }
    }

    @Test
    void changesOfManyTablesLandOneSnapshotPerTableAndCheckpointInUpsertMode() throws Exception {
        writeAndCommit(true);
        assertThat(TestFiles.rows(table(ORDERS))).containsExactly("1=v2");
        assertThat(TestFiles.rows(table(ITEMS))).containsExactly("7=a");
    }

    @Test
    void changesOfManyTablesLandInChangelogMode() throws Exception {
        writeAndCommit(false);
        assertThat(TestFiles.rows(table(ORDERS))).containsExactly("1=v2");
        assertThat(TestFiles.rows(table(ITEMS))).containsExactly("7=a");
    }

    /**
     * Changes to two tables through a writer that may keep fewer writers open than it has tables, or
     * fewer bytes than a row: early closes make parts, and each part's deletes apply to the parts before.
     */
    private List<TableCommittable> writeWithinBounds(boolean upsert, int maxOpenWriters, long maxBufferedBytes)
            throws Exception {
        List<TableCommittable> flushed;
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(
                                writer(upsert, maxOpenWriters, maxBufferedBytes), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c =
                        new OneInputStreamOperatorTestHarness<>(new TablesCommitter(loader, List.of()), 1, 1, 0)) {
            w.open();
            c.open();
            w.processElement(change(ORDERS, RowKind.INSERT, 1, "v1"));
            w.processElement(change(ITEMS, RowKind.INSERT, 7, "a"));
            w.processElement(change(ORDERS, RowKind.UPDATE_BEFORE, 1, "v1"));
            w.processElement(change(ORDERS, RowKind.UPDATE_AFTER, 1, "v2"));
            w.processElement(change(ORDERS, RowKind.INSERT, 2, "x"));
            w.processElement(change(ITEMS, RowKind.UPDATE_BEFORE, 7, "a"));
            w.processElement(change(ITEMS, RowKind.UPDATE_AFTER, 7, "b"));
            w.processElement(change(ORDERS, RowKind.DELETE, 2, "x"));
            w.processElement(change(ORDERS, RowKind.UPDATE_BEFORE, 1, "v2"));
            w.processElement(change(ORDERS, RowKind.UPDATE_AFTER, 1, "v3"));
            w.prepareSnapshotPreBarrier(1L);
            flushed = w.extractOutputValues();
            for (TableCommittable f : flushed) {
                c.processElement(new StreamRecord<>(f));
            }
            c.snapshot(1L, 1L);
            c.notifyOfCompletedCheckpoint(1L);
        }
        assertThat(TestFiles.rows(table(ORDERS))).containsExactly("1=v3");
        assertThat(TestFiles.rows(table(ITEMS))).containsExactly("7=b");
        assertThat(flushed).extracting(TableCommittable::checkpointId).containsOnly(1L);
        return flushed;
    }

    private static List<Integer> parts(List<TableCommittable> flushed, TableId table) {
        List<Integer> parts = new java.util.ArrayList<>();
        for (TableCommittable f : flushed) {
            if (f.table().equals(table.identifier())) {
                parts.add(f.part());
            }
        }
        return parts;
    }

    @ParameterizedTest(name = "upsert {0}")
    @ValueSource(booleans = {true, false})
    void oneOpenWriterForTwoTablesClosesTheOtherEarly(boolean upsert) throws Exception {
        List<TableCommittable> flushed = writeWithinBounds(upsert, 1, 1L << 30);
        // orders: v1 | items | v1->v2, 2 | items | delete 2, v2->v3: three writers of orders, two of items.
        assertThat(parts(flushed, ORDERS)).containsExactly(0, 1, 2);
        assertThat(parts(flushed, ITEMS)).containsExactly(0, 1);
        // One snapshot per part; the checkpoint counts as committed with its last.
        assertThat(table(ORDERS).snapshots()).hasSize(3);
        assertThat(table(ORDERS).currentSnapshot().summary())
                .containsEntry(TablesCommitter.PART, "2")
                .containsEntry(TablesCommitter.PARTS, "3")
                .containsEntry("flink.max-committed-checkpoint-id", "1");
        Snapshot first = table(ORDERS).snapshots().iterator().next();
        assertThat(first.summary()).containsEntry("flink.max-committed-checkpoint-id", "0");
    }

    @Test
    void openWritersCountTheBuffersOfTheirFiles() throws Exception {
        // Room for one open writer's file buffers, not two: opening the other table's writer closes the first.
        long oneAndAHalf = TablesWriter.openCost(FileFormat.AVRO, Map.of(), 2) * 3 / 2;
        List<TableCommittable> flushed = writeWithinBounds(true, 1000, oneAndAHalf);
        assertThat(parts(flushed, ORDERS)).containsExactly(0, 1, 2);
        assertThat(parts(flushed, ITEMS)).containsExactly(0, 1);
        assertThat(TablesWriter.openCost(FileFormat.PARQUET, Map.of(), 10))
                .as("a Parquet data file's 1 MB page buffer, a delete file's 64 KB, per column 4 KB each")
                .isEqualTo(1024 * 1024 + 64 * 1024 + 2 * 40 * 1024);
    }

    @Test
    void aByteBoundBelowOneRowClosesTheWriterAfterEveryRow() throws Exception {
        List<TableCommittable> flushed = writeWithinBounds(true, 1000, 1);
        // One part per change: upsert mode deletes the key of a -U too (its +U may have another key),
        // so a writer that got only the -U sends that delete.
        assertThat(parts(flushed, ORDERS)).containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(parts(flushed, ITEMS)).containsExactly(0, 1, 2);
    }

    @Test
    void shipsToTaskManagers() throws Exception {
        assertThat(InstantiationUtil.clone(writer(true))).isNotNull();
    }
}
