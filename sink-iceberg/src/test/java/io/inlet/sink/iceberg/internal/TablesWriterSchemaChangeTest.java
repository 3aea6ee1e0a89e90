package io.inlet.sink.iceberg.internal;

import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.TestRows;
import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.sink.iceberg.FaultyCatalog;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table's schema changing while the writer runs, against real Iceberg tables read with Iceberg's
 * own reader: the writer completes the files of the old shape, the table gets the new schema once,
 * and rows before and after land in snapshots of their own, value for value.
 */
class TablesWriterSchemaChangeTest {

    private static final TableId ITEMS = TableId.of("lake", "items");

    /** {@code items} as the job was built: id, qty INT, price DECIMAL(10,2), name VARCHAR(20). */
    private static final TableDescriptor V1 = TableDescriptor.builder(ITEMS)
            .column("id", DataTypes.INT().notNull())
            .column("qty", DataTypes.INT())
            .column("price", DataTypes.DECIMAL(10, 2))
            .column("name", DataTypes.VARCHAR(20))
            .primaryKey("id")
            .build();

    /**
     * After {@code ADD note VARCHAR(50) AFTER id, MODIFY qty BIGINT, MODIFY price DECIMAL(12,2), MODIFY name
     * VARCHAR(200)}.
     */
    private static final TableDescriptor V2 = TableDescriptor.builder(ITEMS)
            .column("id", DataTypes.INT().notNull())
            .column("note", DataTypes.VARCHAR(50))
            .column("qty", DataTypes.BIGINT())
            .column("price", DataTypes.DECIMAL(12, 2))
            .column("name", DataTypes.VARCHAR(200))
            .primaryKey("id")
            .schemaVersion(2)
            .build();

    /** After {@code DROP COLUMN qty, RENAME COLUMN name TO label}. */
    private static final TableDescriptor V3 = TableDescriptor.builder(ITEMS)
            .column("id", DataTypes.INT().notNull())
            .column("note", DataTypes.VARCHAR(50))
            .column("price", DataTypes.DECIMAL(12, 2))
            .column("label", DataTypes.VARCHAR(200))
            .primaryKey("id")
            .schemaVersion(3)
            .build();

    @TempDir
    Path warehouse;

    private HadoopCatalog catalog;
    private CatalogLoader loader;

    @BeforeEach
    void table() {
        catalog = new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
        Schema schema = FlinkSchemaUtil.convert(V1.toResolvedSchema());
        catalog.createTable(
                TableIdentifier.of("lake", "items"),
                schema,
                PartitionSpec.unpartitioned(),
                // Avro files: Iceberg's Parquet writer needs parquet-avro, which this module's tests leave out.
                Map.of("format-version", "2", "write.format.default", "avro"));
        loader = IcebergCatalogConfig.of(
                        "c",
                        "hadoop",
                        null,
                        Map.of("warehouse", warehouse.toUri().toString()),
                        Map.of())
                .loader();
    }

    private TablesWriter writer(boolean upsert) {
        RowType target = FlinkSchemaUtil.convert(itemsTable().schema());
        TablesWriter.TableWrite items = new TablesWriter.TableWrite(
                "lake.items", new IcebergRowConverter(V1.toRowType(), target), target, List.of("id"), upsert, false, 1);
        return new TablesWriter(loader, Map.of(ITEMS, items), 1000, 1L << 30);
    }

    private Table itemsTable() {
        return catalog.loadTable(TableIdentifier.of("lake", "items"));
    }

    /** The binlog position of the next event; a replay sets it back. */
    private long binlog = 1000;

    private StreamRecord<ChangeEvent> row(TableDescriptor t, RowKind kind, Object... values) {
        ChangeEvent e = ChangeEvent.of(
                ITEMS, t.schemaVersion(), TestRows.row(t, kind, values), 1L, SourcePosition.binlog("b.1", binlog++, 0));
        return new StreamRecord<>(t.schemaVersion() == 1 ? e : e.withRowType(t.toRowType()));
    }

    private StreamRecord<ChangeEvent> schemaChange(
            TableDescriptor before, TableDescriptor after, Map<String, String> renames) {
        return schemaChange(SchemaChange.between(before, after, renames, "ALTER TABLE items ..."));
    }

    private StreamRecord<ChangeEvent> schemaChange(SchemaChange change) {
        return new StreamRecord<>(ChangeEvent.schemaChange(change, 1L, SourcePosition.binlog("b.1", binlog++, 0)));
    }

    /** The rows as {@code column=value, ...} in the table's column order, sorted, read with Iceberg's reader. */
    private List<String> rows() throws Exception {
        Table table = itemsTable();
        List<String> out = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                StringJoiner j = new StringJoiner(", ");
                for (Types.NestedField f : table.schema().columns()) {
                    j.add(f.name() + "=" + r.getField(f.name()));
                }
                out.add(j.toString());
            }
        }
        out.sort(String::compareTo);
        return out;
    }

    private static void commit(
            OneInputStreamOperatorTestHarness<TableCommittable, Void> committer, List<TableCommittable> files, long cp)
            throws Exception {
        for (TableCommittable f : files) {
            committer.processElement(new StreamRecord<>(f));
        }
        committer.snapshot(cp, cp);
        committer.notifyOfCompletedCheckpoint(cp);
    }

    /** Waits until the committer's commit rounds, backfills included, have run. */
    private static void awaitCommitted(OneInputStreamOperatorTestHarness<TableCommittable, Void> committer)
            throws InterruptedException {
        ((TablesCommitter) committer.getOperator()).awaitCommitted();
    }

    private static OneInputStreamOperatorTestHarness<TableCommittable, Void> committer(CatalogLoader loader)
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new TablesCommitter(loader, List.of()), 1, 1, 0);
    }

    @ParameterizedTest(name = "upsert {0}")
    @ValueSource(booleans = {true, false})
    void columnsAddedAndWidenedMidCheckpointLandValueForValueInSnapshotsOfTheirOwn(boolean upsert) throws Exception {
        List<TableCommittable> flushed;
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(upsert), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            w.processElement(row(V1, RowKind.INSERT, 1, 5, new BigDecimal("1.50"), "one"));
            w.processElement(row(V1, RowKind.INSERT, 2, 7, new BigDecimal("99999999.99"), "two"));
            w.processElement(schemaChange(V1, V2, Map.of()));
            w.processElement(row(V2, RowKind.UPDATE_BEFORE, 1, null, 5L, new BigDecimal("1.50"), "one"));
            w.processElement(
                    row(V2, RowKind.UPDATE_AFTER, 1, "first", 5_000_000_000L, new BigDecimal("9999999999.99"), "one!"));
            w.processElement(row(V2, RowKind.INSERT, 3, "third", -1L, new BigDecimal("-0.01"), "x".repeat(200)));
            w.prepareSnapshotPreBarrier(1L);
            flushed = w.extractOutputValues();
            commit(c, flushed, 1L);
        }

        Table table = itemsTable();
        assertThat(table.schema().columns())
                .extracting(f -> f.name() + ":" + f.type() + (f.isOptional() ? "" : " required"))
                .containsExactly("id:int required", "note:string", "qty:long", "price:decimal(12, 2)", "name:string");
        // The old columns keep their field ids: files written before read by id.
        assertThat(table.schema().findField("qty").fieldId()).isEqualTo(2);
        assertThat(table.schema().identifierFieldNames()).containsExactly("id");
        assertThat(rows())
                .containsExactly(
                        "id=1, note=first, qty=5000000000, price=9999999999.99, name=one!",
                        "id=2, note=null, qty=7, price=99999999.99, name=two",
                        "id=3, note=third, qty=-1, price=-0.01, name=" + "x".repeat(200));
        // The old shape's files, then the new shape's: one snapshot each, in that order.
        assertThat(flushed).extracting(TableCommittable::part).containsExactly(0, 1);
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        assertThat(snapshots).hasSize(2);
        assertThat(snapshots.get(0).summary()).containsEntry(TablesCommitter.PART, "0");
        assertThat(snapshots.get(1).summary())
                .containsEntry(TablesCommitter.PART, "1")
                .containsEntry("flink.max-committed-checkpoint-id", "1");
        assertThat(table.properties())
                .containsEntry(
                        IcebergSchemaUpdates.POSITION,
                        String.valueOf(SourcePosition.binlog("b.1", 1002, 0).order()));
    }

    /** V1 to V2 with {@code note} added {@code DEFAULT 'none'}: MySQL's rows before have 'none'. */
    private StreamRecord<ChangeEvent> addNoteWithDefault() {
        return schemaChange(SchemaChange.between(V1, V2, Map.of(), "ALTER TABLE items ADD note ... DEFAULT 'none'")
                .withDefaultValues(Map.of("note", "none")));
    }

    @Test
    void rowsWrittenBeforeAColumnAddedWithADefaultGetItAlsoFromAWriterThatMetTheChangeLate() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w0 =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 2, 2, 0);
                OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w1 =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 2, 2, 1);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w0.open();
            w1.open();
            c.open();
            w0.processElement(row(V1, RowKind.INSERT, 1, 1, new BigDecimal("1.00"), "a"));
            w1.processElement(row(V1, RowKind.INSERT, 2, 2, new BigDecimal("2.00"), "b"));
            commit(c, flush(1L, w0, w1), 1L);
            awaitCommitted(c);

            w0.processElement(row(V1, RowKind.INSERT, 5, 5, new BigDecimal("5.00"), "e"));
            StreamRecord<ChangeEvent> change = addNoteWithDefault();
            w0.processElement(change);
            // Rows of the new shape say their own value, NULL included.
            w0.processElement(row(V2, RowKind.INSERT, 3, null, 3L, new BigDecimal("3.00"), "c"));
            w0.processElement(row(V2, RowKind.INSERT, 6, "six", 6L, new BigDecimal("6.00"), "f"));
            commit(c, flush(2L, w0, w1), 2L);
            awaitCommitted(c);
            assertThat(rows())
                    .containsExactly(
                            "id=1, note=none, qty=1, price=1.00, name=a",
                            "id=2, note=none, qty=2, price=2.00, name=b",
                            "id=3, note=null, qty=3, price=3.00, name=c",
                            "id=5, note=none, qty=5, price=5.00, name=e",
                            "id=6, note=six, qty=6, price=6.00, name=f");

            // w1 meets the change after the barrier of checkpoint 2 (unaligned checkpoints): its next file, written
            // before it met the change, lacks the column although the backfill ran.
            w1.processElement(row(V1, RowKind.INSERT, 4, 4, new BigDecimal("4.00"), "d"));
            w1.processElement(new StreamRecord<>(change.getValue()));
            // A row of the shape before the change, after it (another upstream channel): the default too.
            w1.processElement(row(V1, RowKind.INSERT, 7, 7, new BigDecimal("7.00"), "g"));
            w0.processElement(row(V2, RowKind.UPDATE_AFTER, 1, "changed", 1L, new BigDecimal("1.00"), "a"));
            w0.processElement(row(V2, RowKind.UPDATE_AFTER, 2, null, 2L, new BigDecimal("2.00"), "b"));
            commit(c, flush(3L, w0, w1), 3L);
            awaitCommitted(c);
        }
        Table table = itemsTable();
        assertThat(rows())
                .containsExactly(
                        "id=1, note=changed, qty=1, price=1.00, name=a",
                        "id=2, note=null, qty=2, price=2.00, name=b",
                        "id=3, note=null, qty=3, price=3.00, name=c",
                        "id=4, note=none, qty=4, price=4.00, name=d",
                        "id=5, note=none, qty=5, price=5.00, name=e",
                        "id=6, note=six, qty=6, price=6.00, name=f",
                        "id=7, note=none, qty=7, price=7.00, name=g");
        int note = table.schema().findField("note").fieldId();
        assertThat(table.properties())
                .containsEntry(IcebergDefaults.DEFAULT_PREFIX + note, "none")
                .doesNotContainKey(IcebergDefaults.PENDING_PREFIX + note);
        assertThat(table.schemas()).as("the first schema and the one update").hasSize(2);
        Map<String, Integer> filled = new TreeMap<>();
        table.snapshots().forEach(s -> {
            if (s.summary().containsKey(IcebergDefaults.FILLED)) {
                assertThat(s.operation()).as("files rewritten, no row deleted").isEqualTo("replace");
                filled.merge(
                        s.summary().get("flink.max-committed-checkpoint-id"),
                        Integer.parseInt(s.summary().get("added-records")),
                        Integer::sum);
            }
        });
        // After checkpoint 2: rows 1, 2 and 5; after checkpoint 3: the late file's row 4.
        assertThat(filled).containsExactly(Map.entry("2", 3), Map.entry("3", 1));
    }

    /** Every writer's files for the checkpoint. */
    @SafeVarargs
    private static List<TableCommittable> flush(
            long checkpointId, OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable>... writers)
            throws Exception {
        List<TableCommittable> out = new ArrayList<>();
        for (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w : writers) {
            w.prepareSnapshotPreBarrier(checkpointId);
            for (TableCommittable t : w.extractOutputValues()) {
                if (t.checkpointId() == checkpointId) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    @Test
    void aTableWithoutAKeyGetsTheDefaultInTheRowsBeforeToo() throws Exception {
        TableId events = TableId.of("lake", "events");
        TableDescriptor before =
                TableDescriptor.builder(events).columns(V1.columns()).build();
        TableDescriptor after = TableDescriptor.builder(events)
                .columns(V2.columns())
                .schemaVersion(2)
                .build();
        // No identifier fields: an append-only table, which the backfill cannot upsert into by key.
        catalog.createTable(
                TableIdentifier.of("lake", "events"),
                new Schema(FlinkSchemaUtil.convert(before.toResolvedSchema()).columns()),
                PartitionSpec.unpartitioned(),
                Map.of("format-version", "2", "write.format.default", "avro"));
        Table table = catalog.loadTable(TableIdentifier.of("lake", "events"));
        RowType target = FlinkSchemaUtil.convert(table.schema());
        TablesWriter.TableWrite write = new TablesWriter.TableWrite(
                "lake.events", new IcebergRowConverter(before.toRowType(), target), target, List.of(), false, false, 1);
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(
                                new TablesWriter(loader, Map.of(events, write), 1000, 1L << 30), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            w.processElement(new StreamRecord<>(ChangeEvent.of(
                    events,
                    1,
                    TestRows.row(before, RowKind.INSERT, 1, 1, new BigDecimal("1.00"), "a"),
                    1L,
                    SourcePosition.binlog("b.1", binlog++, 0))));
            w.processElement(new StreamRecord<>(ChangeEvent.schemaChange(
                    SchemaChange.between(before, after, Map.of(), "ALTER TABLE events ADD note ... DEFAULT 'none'")
                            .withDefaultValues(Map.of("note", "none")),
                    1L,
                    SourcePosition.binlog("b.1", binlog++, 0))));
            w.processElement(new StreamRecord<>(ChangeEvent.of(
                            events,
                            2,
                            TestRows.row(after, RowKind.INSERT, 2, null, 2L, new BigDecimal("2.00"), "b"),
                            1L,
                            SourcePosition.binlog("b.1", binlog++, 0))
                    .withRowType(after.toRowType())));
            commit(c, flush(1L, w), 1L);
            awaitCommitted(c);
        }
        table.refresh();
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(r -> rows.add(r.getField("id") + ":" + r.getField("note")));
        }
        assertThat(rows).containsExactlyInAnyOrder("1:none", "2:null");
    }

    @Test
    void aLargeBackfillGoesAShareARoundAndTheJobsCommitsGoOnMeanwhile() throws Exception {
        long budget = IcebergDefaults.batchRows;
        IcebergDefaults.batchRows = 1; // a file a round
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            for (int id = 1; id <= 3; id++) {
                w.processElement(row(V1, RowKind.INSERT, id, id, new BigDecimal(id + ".00"), "r" + id));
                commit(c, flush(id, w), id);
                awaitCommitted(c);
            }
            w.processElement(addNoteWithDefault());
            List<Integer> pending = new ArrayList<>();
            for (long cp = 4; cp <= 7; cp++) {
                if (cp == 5) {
                    // The job's own changes commit between the shares, and a share never undoes them.
                    w.processElement(row(V2, RowKind.UPDATE_AFTER, 3, "three", 3L, new BigDecimal("3.00"), "r3"));
                }
                commit(c, flush(cp, w), cp);
                awaitCommitted(c);
                pending.add(IcebergDefaults.pending(itemsTable()).size());
            }
            // Files of rows 1, 2, 3 a round each (row 3's old file has no live row after checkpoint 5).
            assertThat(pending).containsExactly(1, 1, 0, 0);
        } finally {
            IcebergDefaults.batchRows = budget;
        }
        assertThat(rows())
                .containsExactly(
                        "id=1, note=none, qty=1, price=1.00, name=r1",
                        "id=2, note=none, qty=2, price=2.00, name=r2",
                        "id=3, note=three, qty=3, price=3.00, name=r3");
    }

    @Test
    void aChangeFromASourceWithoutOrderedPositionsIsAppliedWithoutRecordingOne() {
        // A Kafka record without a binlog position: nothing to record, and nothing else may be left open.
        IcebergSchemaUpdates.apply(
                itemsTable(), SchemaChange.between(V1, V2, Map.of(), "ALTER TABLE items ..."), Long.MIN_VALUE);
        assertThat(itemsTable().schema().findField("note")).isNotNull();
        assertThat(itemsTable().properties()).doesNotContainKey(IcebergSchemaUpdates.POSITION);
    }

    @Test
    void aBackfillTheJobFailedBeforeRunsWhenTheCommitterOpensAgain() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            w.processElement(row(V1, RowKind.INSERT, 1, 1, new BigDecimal("1.00"), "a"));
            w.prepareSnapshotPreBarrier(1L);
            commit(c, w.extractOutputValues(), 1L);
            awaitCommitted(c);
            // The change applied, then the job fails before the next checkpoint.
            w.processElement(addNoteWithDefault());
        }
        assertThat(IcebergDefaults.pending(itemsTable())).hasSize(1);
        assertThat(rows()).containsExactly("id=1, note=null, qty=1, price=1.00, name=a");

        try (OneInputStreamOperatorTestHarness<TableCommittable, Void> restored =
                new OneInputStreamOperatorTestHarness<>(new TablesCommitter(loader, List.of("lake.items")), 1, 1, 0)) {
            restored.open();
            awaitCommitted(restored);
        }
        assertThat(rows()).containsExactly("id=1, note=none, qty=1, price=1.00, name=a");
        assertThat(IcebergDefaults.pending(itemsTable())).isEmpty();
    }

    @Test
    void everyWriterSubtaskGetsTheChangeAndTheTableChangesOnce() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w0 =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 2, 2, 0);
                OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w1 =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 2, 2, 1);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w0.open();
            w1.open();
            c.open();
            w0.processElement(row(V1, RowKind.INSERT, 1, 1, new BigDecimal("1.00"), "a"));
            w1.processElement(row(V1, RowKind.INSERT, 2, 2, new BigDecimal("2.00"), "b"));
            // One event, broadcast to both.
            StreamRecord<ChangeEvent> change = schemaChange(V1, V2, Map.of());
            w0.processElement(change);
            w1.processElement(new StreamRecord<>(change.getValue()));
            // A row of the old shape after the change, from another upstream channel: matched by name.
            w1.processElement(row(V1, RowKind.INSERT, 4, 4, new BigDecimal("4.00"), "d"));
            w0.processElement(row(V2, RowKind.INSERT, 3, "n", 3L, new BigDecimal("3.00"), "c"));
            w0.prepareSnapshotPreBarrier(1L);
            w1.prepareSnapshotPreBarrier(1L);
            List<TableCommittable> all = new ArrayList<>(w0.extractOutputValues());
            all.addAll(w1.extractOutputValues());
            commit(c, all, 1L);
        }
        Table table = itemsTable();
        assertThat(table.schemas()).as("the first schema and the one update").hasSize(2);
        assertThat(rows())
                .containsExactly(
                        "id=1, note=null, qty=1, price=1.00, name=a",
                        "id=2, note=null, qty=2, price=2.00, name=b",
                        "id=3, note=n, qty=3, price=3.00, name=c",
                        "id=4, note=null, qty=4, price=4.00, name=d");
    }

    @Test
    void dropsAndRenamesKeepTheOtherValuesAndAReplayedOlderChangeIsNotAppliedAgain() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            w.processElement(row(V1, RowKind.INSERT, 1, 5, new BigDecimal("1.50"), "one"));
            w.processElement(schemaChange(V1, V2, Map.of()));
            w.processElement(row(V2, RowKind.INSERT, 2, "n2", 6L, new BigDecimal("2.50"), "two"));
            w.processElement(schemaChange(V2, V3, Map.of("name", "label")));
            w.processElement(row(V3, RowKind.INSERT, 3, "n3", new BigDecimal("3.50"), "three"));
            w.prepareSnapshotPreBarrier(1L);
            commit(c, w.extractOutputValues(), 1L);
        }
        Table table = itemsTable();
        assertThat(table.schema().columns())
                .extracting(Types.NestedField::name)
                .containsExactly("id", "note", "price", "label");
        // The renamed column is the same field: the values written as 'name' read as 'label'.
        assertThat(rows())
                .containsExactly(
                        "id=1, note=null, price=1.50, label=one",
                        "id=2, note=n2, price=2.50, label=two",
                        "id=3, note=n3, price=3.50, label=three");

        // A restored job replays the source from before both changes: the first one again must not bring
        // 'qty' back, nor undo the rename.
        int schemas = table.schemas().size();
        binlog = 1001; // the first change's position: the job restored from before it
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            w.processElement(schemaChange(V1, V2, Map.of()));
            w.processElement(row(V2, RowKind.INSERT, 2, "n2", 6L, new BigDecimal("2.50"), "two"));
            w.processElement(schemaChange(V2, V3, Map.of("name", "label")));
            w.processElement(row(V3, RowKind.UPDATE_BEFORE, 3, "n3", new BigDecimal("3.50"), "three"));
            w.processElement(row(V3, RowKind.UPDATE_AFTER, 3, "n3", new BigDecimal("3.75"), "three"));
            w.prepareSnapshotPreBarrier(2L);
            commit(c, w.extractOutputValues(), 2L);
        }
        assertThat(itemsTable().schemas()).hasSize(schemas);
        assertThat(rows())
                .containsExactly(
                        "id=1, note=null, price=1.50, label=one",
                        "id=2, note=n2, price=2.50, label=two",
                        "id=3, note=n3, price=3.75, label=three");
    }

    @Test
    void aChangeRebuiltAtARestoreLeavesAloneWhatALaterChangeApplied() throws Exception {
        TableDescriptor withoutName = TableDescriptor.builder(ITEMS)
                .column("id", DataTypes.INT().notNull())
                .column("qty", DataTypes.INT())
                .column("price", DataTypes.DECIMAL(10, 2))
                .primaryKey("id")
                .schemaVersion(2)
                .build();
        TableDescriptor nameAgain = V1.toBuilder().schemaVersion(3).build();
        // Before the failover: DROP name at 1001 (a checkpoint after it), ADD name again at 1003.
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            w.processElement(row(V1, RowKind.INSERT, 1, 5, new BigDecimal("1.50"), "one"));
            w.processElement(schemaChange(V1, withoutName, Map.of()));
            w.processElement(row(withoutName, RowKind.INSERT, 2, 6, new BigDecimal("2.50")));
            w.processElement(schemaChange(withoutName, nameAgain, Map.of()));
            w.processElement(row(nameAgain, RowKind.INSERT, 3, 7, new BigDecimal("3.50"), "three"));
            w.prepareSnapshotPreBarrier(1L);
            commit(c, w.extractOutputValues(), 1L);
        }
        int schemas = itemsTable().schemas().size();
        // Restored from the checkpoint between them: the source rebuilds 'name dropped' from the split's
        // schemas, at the split's start (1002), then replays the ADD at 1003.
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            binlog = 1002;
            w.processElement(schemaChange(V1, withoutName, Map.of()));
            w.processElement(schemaChange(withoutName, nameAgain, Map.of()));
            w.processElement(row(nameAgain, RowKind.UPDATE_BEFORE, 3, 7, new BigDecimal("3.50"), "three"));
            w.processElement(row(nameAgain, RowKind.UPDATE_AFTER, 3, 8, new BigDecimal("3.50"), "three"));
            w.prepareSnapshotPreBarrier(2L);
            commit(c, w.extractOutputValues(), 2L);
        }
        assertThat(itemsTable().schema().columns())
                .extracting(Types.NestedField::name)
                .as("the name added again stays")
                .containsExactly("id", "qty", "price", "name");
        assertThat(itemsTable().schemas()).hasSize(schemas);
        assertThat(rows())
                .containsExactly(
                        "id=1, qty=5, price=1.50, name=null",
                        "id=2, qty=6, price=2.50, name=null",
                        "id=3, qty=8, price=3.50, name=three");
    }

    @Test
    void icebergRefusingAnUpdateStopsTheJob() throws Exception {
        // A partition on qty: Iceberg will not drop its source column.
        catalog.dropTable(TableIdentifier.of("lake", "items"));
        catalog.createTable(
                TableIdentifier.of("lake", "items"),
                FlinkSchemaUtil.convert(V1.toResolvedSchema()),
                PartitionSpec.builderFor(FlinkSchemaUtil.convert(V1.toResolvedSchema()))
                        .identity("qty")
                        .build(),
                Map.of("format-version", "2", "write.format.default", "avro"));
        TableDescriptor withoutQty = TableDescriptor.builder(ITEMS)
                .column("id", DataTypes.INT().notNull())
                .column("price", DataTypes.DECIMAL(10, 2))
                .column("name", DataTypes.VARCHAR(20))
                .primaryKey("id")
                .schemaVersion(2)
                .build();
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                new OneInputStreamOperatorTestHarness<>(writer(false), 1, 1, 0)) {
            w.open();
            assertThatThrownBy(() -> w.processElement(schemaChange(V1, withoutQty, Map.of())))
                    .isInstanceOf(InletStopException.class)
                    .hasMessageContaining("Iceberg refuses the update");
        }
    }

    @Test
    void aRenamedKeyColumnStopsTheJobBeforeTheTableChanges() throws Exception {
        TableDescriptor renamedKey = TableDescriptor.builder(ITEMS)
                .column("item_id", DataTypes.INT().notNull())
                .column("qty", DataTypes.INT())
                .column("price", DataTypes.DECIMAL(10, 2))
                .column("name", DataTypes.VARCHAR(20))
                .primaryKey("item_id")
                .schemaVersion(2)
                .build();
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0)) {
            w.open();
            assertThatThrownBy(() -> w.processElement(schemaChange(V1, renamedKey, Map.of("id", "item_id"))))
                    .isInstanceOf(InletStopException.class)
                    .hasMessageContaining("the primary-key column 'id' was renamed to 'item_id'");
        }
        assertThat(itemsTable().schemas()).as("nothing applied").hasSize(1);
    }

    @Test
    void aChangeIcebergCannotFollowStopsTheJobNamingTheColumn() throws Exception {
        TableDescriptor toText = V1.toBuilder()
                .columns(List.of(
                        V1.columns().get(0),
                        V1.columns().get(1).withType(DataTypes.VARCHAR(10)),
                        V1.columns().get(2),
                        V1.columns().get(3)))
                .schemaVersion(2)
                .build();
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                new OneInputStreamOperatorTestHarness<>(writer(true), 1, 1, 0)) {
            w.open();
            assertThatThrownBy(() -> w.processElement(schemaChange(V1, toText, Map.of())))
                    .isInstanceOf(InletStopException.class)
                    .hasMessageContaining("lake.items cannot follow the schema change of lake.items")
                    .hasMessageContaining("column 'qty' changed from INT to VARCHAR(10)")
                    .hasMessageContaining("Iceberg can only widen");
        }
        assertThat(itemsTable().schemas()).as("nothing applied").hasSize(1);
    }

    @Test
    void tryEvolveKeepsAColumnThatHoldsTheNewValuesAndAPartitionColumnAndGoesOn() throws Exception {
        catalog.dropTable(TableIdentifier.of("lake", "items"));
        Schema schema = FlinkSchemaUtil.convert(V2.toResolvedSchema());
        catalog.createTable(
                TableIdentifier.of("lake", "items"),
                schema,
                PartitionSpec.builderFor(schema).identity("note").build(),
                Map.of("format-version", "2", "write.format.default", "avro"));
        // Narrowed in the source (BIGINT to INT, DECIMAL(12,2) to (10,2)), and the partition column dropped.
        TableDescriptor narrowed = TableDescriptor.builder(ITEMS)
                .column("id", DataTypes.INT().notNull())
                .column("qty", DataTypes.INT())
                .column("price", DataTypes.DECIMAL(10, 2))
                .column("name", DataTypes.VARCHAR(200))
                .primaryKey("id")
                .schemaVersion(3)
                .build();
        SchemaChange change = SchemaChange.between(V2, narrowed, Map.of(), "ALTER TABLE items ...");
        RowType target = FlinkSchemaUtil.convert(itemsTable().schema());
        TablesWriter writer = new TablesWriter(
                loader,
                Map.of(
                        ITEMS,
                        new TablesWriter.TableWrite(
                                "lake.items",
                                new IcebergRowConverter(V2.toRowType(), target),
                                target,
                                List.of("id"),
                                true,
                                false,
                                1)),
                1000,
                1L << 30);
        try (OneInputStreamOperatorTestHarness<ChangeEvent, TableCommittable> w =
                        new OneInputStreamOperatorTestHarness<>(writer, 1, 1, 0);
                OneInputStreamOperatorTestHarness<TableCommittable, Void> c = committer(loader)) {
            w.open();
            c.open();
            // Without try-evolve, Iceberg cannot follow: the job stops, the table stays.
            assertThatThrownBy(() -> w.processElement(schemaChange(change)))
                    .isInstanceOf(InletStopException.class)
                    .hasMessageContaining("column 'qty' changed from BIGINT to INT");
            assertThat(itemsTable().schemas()).hasSize(1);

            w.processElement(row(V2, RowKind.INSERT, 1, "a", 5_000_000_000L, new BigDecimal("9999999999.99"), "one"));
            w.processElement(schemaChange(change.withBestEffort(true)));
            w.processElement(row(narrowed, RowKind.INSERT, 2, 7, new BigDecimal("99999999.99"), "two"));
            w.prepareSnapshotPreBarrier(1L);
            commit(c, w.extractOutputValues(), 1L);
        }
        Table table = itemsTable();
        assertThat(table.schema().columns())
                .extracting(f -> f.name() + ":" + f.type())
                .containsExactly("id:int", "note:string", "qty:long", "price:decimal(12, 2)", "name:string");
        assertThat(rows())
                .containsExactly(
                        "id=1, note=a, qty=5000000000, price=9999999999.99, name=one",
                        "id=2, note=null, qty=7, price=99999999.99, name=two");
        assertThat(table.properties())
                .as("recorded as applied, so the other writers and a restore do not weigh it again")
                .containsKey(IcebergSchemaUpdates.POSITION);
    }

    /**
     * A writer that meets a change the others already passed: it plans against the table before their
     * commits, and its commit meets theirs. A change that only records its position (try-evolve keeps the
     * lake's wider column) must not write back the position and history of its plan over the newer ones, or
     * the rows between the two changes would be read as rows of the newer shape (a renamed column NULL).
     */
    @Test
    void aChangeThatOnlyRecordsItsPositionDoesNotWriteBackAnOlderHistoryOverANewerChange() {
        IcebergSchemaUpdates.apply(itemsTable(), SchemaChange.between(V1, V2, Map.of(), "ALTER TABLE items ..."), 1000);
        TableDescriptor narrowed = TableDescriptor.builder(ITEMS)
                .column("id", DataTypes.INT().notNull())
                .column("note", DataTypes.VARCHAR(50))
                .column("qty", DataTypes.INT())
                .column("price", DataTypes.DECIMAL(12, 2))
                .column("name", DataTypes.VARCHAR(200))
                .primaryKey("id")
                .schemaVersion(3)
                .build();
        TableDescriptor renamed = TableDescriptor.builder(ITEMS)
                .column("id", DataTypes.INT().notNull())
                .column("note", DataTypes.VARCHAR(50))
                .column("qty", DataTypes.INT())
                .column("price", DataTypes.DECIMAL(12, 2))
                .column("label", DataTypes.VARCHAR(200))
                .primaryKey("id")
                .schemaVersion(4)
                .build();
        SchemaChange narrowing = SchemaChange.between(V2, narrowed, Map.of(), "ALTER TABLE items MODIFY qty INT")
                .withBestEffort(true);
        SchemaChange rename =
                SchemaChange.between(narrowed, renamed, Map.of("name", "label"), "ALTER TABLE items RENAME COLUMN");
        // The late writer's first commit finds the other writer's two changes committed after its plan.
        FaultyCatalog.Faults faults = FaultyCatalog.faults().beforeNextCommit(() -> {
            IcebergSchemaUpdates.apply(itemsTable(), narrowing, 2000);
            IcebergSchemaUpdates.apply(itemsTable(), rename, 3000);
        });
        Table late = faults.catalog(warehouse.toUri().toString())
                .loader()
                .loadCatalog()
                .loadTable(TableIdentifier.of("lake", "items"));
        IcebergSchemaUpdates.apply(late, narrowing, 2000);

        Table table = itemsTable();
        assertThat(table.schema().findField("label")).isNotNull();
        assertThat(IcebergSchemaUpdates.lastPosition(table)).isEqualTo(3000);
        assertThat(IcebergSchemaUpdates.schemaAt(table, 2500).findField("name"))
                .as("rows between the two changes have the column under its old name")
                .isNotNull();
        assertThat(IcebergSchemaUpdates.schemaAt(table, 3500).findField("label"))
                .isNotNull();
    }

    /**
     * Every writer subtask gets each schema change (broadcast) and applies it to the same table: four
     * at once, each with its own handle, race their commits. The table gains exactly one schema per
     * change, and the losers of a race looked again and found it applied.
     */
    @Test
    void fourWritersApplyingOneChangeAtOnceAddOneSchema() throws Exception {
        long racesBefore = IcebergSchemaUpdates.RACES.get();
        TableDescriptor current = V1;
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            // Rounds until the commits raced at least once (nearly always the first); each round adds a column.
            for (int round = 1; round <= 10 && IcebergSchemaUpdates.RACES.get() == racesBefore; round++) {
                TableDescriptor next = current.toBuilder()
                        .column("c" + round, DataTypes.VARCHAR(10))
                        .schemaVersion(current.schemaVersion() + 1)
                        .build();
                SchemaChange change = SchemaChange.between(current, next, Map.of(), "ALTER TABLE items ADD c" + round);
                long order = 5000L + round;
                int schemasBefore = itemsTable().schemas().size();
                CyclicBarrier start = new CyclicBarrier(4);
                List<Future<List<String>>> applied = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    Table handle = itemsTable(); // each subtask loads the table itself
                    applied.add(writers.submit(() -> {
                        start.await();
                        return IcebergSchemaUpdates.apply(handle, change, order);
                    }));
                }
                for (Future<List<String>> f : applied) {
                    assertThat(f.get(60, TimeUnit.SECONDS)).isEmpty();
                }
                Table table = itemsTable();
                assertThat(table.schemas()).hasSize(schemasBefore + 1);
                String added = "c" + round;
                assertThat(table.schema().columns().stream()
                                .filter(c -> c.name().equals(added)))
                        .hasSize(1);
                assertThat(IcebergSchemaUpdates.lastPosition(table)).isEqualTo(order);
                current = next;
            }
        } finally {
            writers.shutdownNow();
        }
        assertThat(IcebergSchemaUpdates.RACES.get())
                .as("schema commits that lost a race and looked again")
                .isGreaterThan(racesBefore);
    }
}
