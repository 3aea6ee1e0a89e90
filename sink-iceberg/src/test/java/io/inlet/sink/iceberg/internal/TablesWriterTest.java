package io.inlet.sink.iceberg.internal;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;
import io.inlet.sink.iceberg.IcebergCatalogConfig;
import io.inlet.sink.iceberg.TestFiles;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        TablesWriter.TableWrite orders = new TablesWriter.TableWrite(
                "lake.orders", new IcebergRowConverter(TYPE, TYPE), TYPE, List.of("id"), upsert, false);
        TablesWriter.TableWrite items = new TablesWriter.TableWrite(
                "lake.items", new IcebergRowConverter(TYPE, TYPE), TYPE, List.of("id"), upsert, false);
        return new TablesWriter(loader, Map.of(ORDERS, orders, ITEMS, items));
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

    @Test
    void shipsToTaskManagers() throws Exception {
        assertThat(InstantiationUtil.clone(writer(true))).isNotNull();
    }
}
