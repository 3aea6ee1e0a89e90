package io.inlet.source.iceberg.internal;

import io.inlet.core.InletStopException;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static io.inlet.source.iceberg.internal.TestTables.batch;
import static io.inlet.source.iceberg.internal.TestTables.commit;
import static io.inlet.source.iceberg.internal.TestTables.create;
import static io.inlet.source.iceberg.internal.TestTables.current;
import static io.inlet.source.iceberg.internal.TestTables.row;
import static io.inlet.source.iceberg.internal.TestTables.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Snapshots read as changes, against tables written by Iceberg's own Flink delta writer (equality
 * deletes, key-only in upsert mode and full rows in changelog mode, and position deletes for rows
 * replaced within a snapshot): the changes of every snapshot, applied in order, give the table's batch
 * read at that snapshot (Iceberg's generic reader), and each change is one a changelog may carry there.
 */
class SnapshotChangesTest {

    @TempDir
    Path warehouse;

    private Table table(String name, boolean partitioned) {
        return create(warehouse, name, partitioned);
    }

    /** A change as "-U2=b": kind, id, value. */
    private static String describe(RowData r) {
        return r.getRowKind().shortString() + r.getLong(0) + "=" + r.getString(2);
    }

    @ParameterizedTest(name = "upsert={0}, partitioned={1}")
    @CsvSource({"true, false", "true, true", "false, false", "false, true"})
    void everySnapshotsChangesLeadFromItsParentToIt(boolean upsert, boolean partitioned) throws Exception {
        Table table = table("churn", partitioned);
        TestTables.Churn churn = new TestTables.Churn(table, upsert, new Random(upsert ? 3 : 5), 12, 2);
        // Six snapshots of 40 random inserts, updates and deletes over 24 keys, so keys change again in later
        // snapshots. The check reads the whole table at every snapshot: its cost grows with their square.
        for (int checkpoint = 0; checkpoint < 6; checkpoint++) {
            churn.commit(checkpoint, 40);
        }
        assertThat(current(table)).isEqualTo(churn.rows);

        // Both ways to the before-images (read from the files, kept in state) over the same table, in one pass:
        // each snapshot's batch read, the expensive part, is done once for both.
        TestTables.Materialized byFiles = new TestTables.Materialized();
        TestTables.Materialized byState = new TestTables.Materialized();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        try (SnapshotChanges fromFiles = new SnapshotChanges(table, false);
                SnapshotChanges fromState = new SnapshotChanges(table, true)) {
            for (Snapshot s : snapshots) {
                fromFiles.of(s).forEach(byFiles::apply);
                fromState.of(s).forEach(byState::apply);
                Map<String, String> batch = batch(table, s.snapshotId());
                assertThat(byFiles.rows)
                        .as("after snapshot %s, before-images from the files", s.sequenceNumber())
                        .isEqualTo(batch);
                assertThat(byState.rows)
                        .as("after snapshot %s, before-images from state", s.sequenceNumber())
                        .isEqualTo(batch);
                assertThat(fromState.keptRows()).as("one row kept per live key").isEqualTo(batch.size());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"PARQUET", "AVRO"})
    void withBeforeImagesFromStateKeyOnlyDeletesAreReadAsKeysAndTheOlderFilesAreNot(FileFormat format)
            throws Exception {
        Table table = create(warehouse, "keys_" + format, false, format);
        TaskWriter<RowData> first = writer(table, true, 0);
        first.write(row(RowKind.INSERT, 1, 0, "a"));
        first.write(row(RowKind.INSERT, 2, 0, "b"));
        first.write(row(RowKind.INSERT, 3, 0, "c"));
        commit(table, first.complete());
        TaskWriter<RowData> second = writer(table, true, 1);
        second.write(row(RowKind.UPDATE_AFTER, 2, 0, "b2"));
        second.write(row(RowKind.DELETE, 3, 0, "c"));
        second.write(row(RowKind.DELETE, 9, 0, "never there"));
        second.write(row(RowKind.INSERT, 4, 0, "d"));
        second.write(row(RowKind.DELETE, 4, 0, "d"));
        commit(table, second.complete());
        table.refresh();

        List<ChangeSplit.Kind> kinds = new ArrayList<>();
        SnapshotPlanner.changes(table, table.currentSnapshot(), 2, table.schema(), true)
                .forEach(split -> kinds.add(split.kind()));
        assertThat(kinds)
                .as("the delete file's keys")
                .contains(ChangeSplit.Kind.KEY_DELETES, ChangeSplit.Kind.ADDED)
                .doesNotContain(ChangeSplit.Kind.ROW_DELETES);
        if (format == FileFormat.PARQUET) {
            // In Avro the position deletes (key 4, within the snapshot) keep no bounds of the paths
            // they delete from, so Iceberg applies them to the older file too, which is then read.
            assertThat(kinds).as("not the older file").doesNotContain(ChangeSplit.Kind.TOUCHED);
        }
        try (SnapshotChanges changes = new SnapshotChanges(table, true)) {
            Snapshot firstSnapshot = table.snapshot(table.currentSnapshot().parentId());
            assertThat(changes.of(firstSnapshot))
                    .extracting(SnapshotChangesTest::describe)
                    .containsExactlyInAnyOrder("+I1=a", "+I2=b", "+I3=c");
            // The before-images come from the state: full rows, though the deletes hold keys only;
            // a key that was never there and one inserted and deleted within the snapshot change nothing.
            assertThat(changes.of(table.currentSnapshot()))
                    .extracting(SnapshotChangesTest::describe)
                    .containsExactlyInAnyOrder("-U2=b", "+U2=b2", "-D3=c");
            assertThat(changes.keptRows()).isEqualTo(2);
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
        assertThat(out).extracting(SnapshotChangesTest::describe).containsExactly("-U2=b", "+U2=b2");
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
                .extracting(SnapshotChangesTest::describe)
                .containsExactlyInAnyOrder("-D1=a", "-D2=b");
    }

    @ParameterizedTest(name = "{0}, upsert={1}")
    @CsvSource({"PARQUET, false", "PARQUET, true", "AVRO, false", "AVRO, true"})
    void wholeRowDeletesAreReadFromTheirFilesAndKeyOnlyOnesFromTheFilesTheyReach(FileFormat format, boolean upsert)
            throws Exception {
        Table table = create(warehouse, "paths_" + format + "_" + upsert, false, format);
        TaskWriter<RowData> first = TestTables.writer(table, upsert, 0);
        first.write(TestTables.row(RowKind.INSERT, 1, 0, "a"));
        first.write(TestTables.row(RowKind.INSERT, 2, 0, "b"));
        first.write(TestTables.row(RowKind.INSERT, 3, 0, "c"));
        TestTables.commit(table, first.complete());
        TaskWriter<RowData> second = TestTables.writer(table, upsert, 1);
        second.write(TestTables.row(RowKind.UPDATE_BEFORE, 2, 0, "b"));
        second.write(TestTables.row(RowKind.UPDATE_AFTER, 2, 0, "b2"));
        second.write(TestTables.row(RowKind.DELETE, 3, 0, "c"));
        TestTables.commit(table, second.complete());
        table.refresh();

        List<ChangeSplit.Kind> kinds = new ArrayList<>();
        SnapshotPlanner.changes(table, table.currentSnapshot(), 2, table.schema(), false)
                .forEach(split -> kinds.add(split.kind()));
        if (upsert) {
            assertThat(kinds)
                    .as("key-only deletes: the older file is read")
                    .contains(ChangeSplit.Kind.TOUCHED)
                    .doesNotContain(ChangeSplit.Kind.ROW_DELETES);
        } else {
            assertThat(kinds)
                    .as("whole-row deletes: the older file is not read")
                    .contains(ChangeSplit.Kind.ROW_DELETES)
                    .doesNotContain(ChangeSplit.Kind.TOUCHED);
        }
        List<String> changes = new ArrayList<>();
        new SnapshotChanges(table).of(table.currentSnapshot()).forEach(r -> changes.add(describe(r)));
        assertThat(changes).containsExactlyInAnyOrder("-U2=b", "+U2=b2", "-D3=c");
    }

    @Test
    void aSnapshotOfOnlyAnUpsertDeleteEmitsTheDeletedRow() throws Exception {
        Table table = table("deleteonly", false);
        TaskWriter<RowData> first = writer(table, true, 0);
        first.write(row(RowKind.INSERT, 1, 0, "a"));
        first.write(row(RowKind.INSERT, 3, 0, "c"));
        commit(table, first.complete());
        TaskWriter<RowData> second = writer(table, true, 1);
        second.write(row(RowKind.DELETE, 3, 0, "c"));
        commit(table, second.complete());
        table.refresh();
        assertThat(new SnapshotChanges(table).of(table.currentSnapshot()))
                .extracting(SnapshotChangesTest::describe)
                .containsExactly("-D3=c");
    }

    @Test
    void aSnapshotWhoseSchemaChangedAColumnTheReadHasFailsWithTheColumnNamed() throws Exception {
        Table table = table("evolving", false);
        Schema read = table.schema();
        TaskWriter<RowData> w = writer(table, true, 0);
        w.write(row(RowKind.INSERT, 1, 0, "a"));
        commit(table, w.complete());
        table.refresh();
        SnapshotPlanner.checkSchema(table, table.currentSnapshot(), read);

        table.updateSchema().addColumn("extra", Types.IntegerType.get()).commit();
        table.newAppend().commit();
        table.refresh();
        // A column the read does not have: not read, the read goes on.
        SnapshotPlanner.checkSchema(table, table.currentSnapshot(), read);

        table.updateSchema().updateColumn("region", Types.LongType.get()).commit();
        table.newAppend().commit();
        table.refresh();
        Snapshot widened = table.currentSnapshot();
        assertThatThrownBy(() -> SnapshotPlanner.checkSchema(table, widened, read))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("Cannot read snapshot " + widened.snapshotId())
                .hasMessageContaining("operation append")
                .hasMessageContaining("column 'region' is now long (the read has int)")
                .hasMessageContaining("start a new read");

        // A read built after the widening reads the older snapshots, whose int Iceberg promotes.
        Schema widenedRead = table.schema();
        for (Snapshot s : table.snapshots()) {
            SnapshotPlanner.checkSchema(table, s, widenedRead);
        }
    }

    @ParameterizedTest(name = "before-images from state={0}")
    @CsvSource({"false", "true"})
    void anUpsertIntoATableWhoseColumnsAreAllKeyColumnsIsAnInsert(boolean keysFromState) throws Exception {
        // The upsert writer's key-only deletes hold every column here, like a changelog writer's
        // whole-row deletes; they must not be taken for rows that were there.
        Schema keysOnly = new Schema(
                List.of(
                        Types.NestedField.required(1, "id", Types.LongType.get()),
                        Types.NestedField.required(2, "region", Types.IntegerType.get())),
                Set.of(1, 2));
        Table table;
        try (HadoopCatalog catalog = TestTables.catalog(warehouse)) {
            table = catalog.createTable(
                    TableIdentifier.of("db", "keys_only_" + keysFromState),
                    keysOnly,
                    PartitionSpec.unpartitioned(),
                    Map.of("format-version", "2", "write.format.default", "parquet"));
        }
        RowDataTaskWriterFactory factory = new RowDataTaskWriterFactory(
                table,
                FlinkSchemaUtil.convert(keysOnly),
                128L << 20,
                FileFormat.PARQUET,
                table.properties(),
                List.of(1, 2),
                true);
        factory.initialize(0, 0);
        TaskWriter<RowData> first = factory.create();
        first.write(GenericRowData.of(1L, 0));
        commit(table, first.complete());
        factory.initialize(0, 1);
        TaskWriter<RowData> second = factory.create();
        second.write(GenericRowData.of(2L, 0));
        second.write(GenericRowData.ofKind(RowKind.DELETE, 1L, 0));
        commit(table, second.complete());
        table.refresh();

        try (SnapshotChanges changes = new SnapshotChanges(table, keysFromState)) {
            List<String> out = new ArrayList<>();
            for (Snapshot s : table.snapshots()) {
                changes.of(s).forEach(r -> out.add(r.getRowKind().shortString() + r.getLong(0)));
            }
            assertThat(out).containsExactlyInAnyOrder("+I1", "+I2", "-D1");
        }
    }

    @Test
    void aDroppedOptionalStructReadsAsNullButARequiredColumnMadeOptionalStopsTheRead() throws Exception {
        Table table = table("nested", false);
        table.updateSchema()
                .addColumn("info", Types.StructType.of(Types.NestedField.required(100, "x", Types.IntegerType.get())))
                .allowIncompatibleChanges()
                .addRequiredColumn("must", Types.IntegerType.get())
                .commit();
        table.newAppend().commit();
        table.refresh();
        Schema read = table.schema();
        SnapshotPlanner.checkSchema(table, table.currentSnapshot(), read);

        table.updateSchema()
                .deleteColumn("info")
                .updateColumnDoc("must", "a doc")
                .commit();
        table.updateSchema().renameColumn("v", "value").commit();
        table.newAppend().commit();
        table.refresh();
        // The struct's required field goes with it (read as NULL); a doc and a rename change nothing read.
        SnapshotPlanner.checkSchema(table, table.currentSnapshot(), read);

        table.updateSchema().makeColumnOptional("must").commit();
        table.newAppend().commit();
        table.refresh();
        assertThatThrownBy(() -> SnapshotPlanner.checkSchema(table, table.currentSnapshot(), read))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("column 'must' is now optional");
    }
}
