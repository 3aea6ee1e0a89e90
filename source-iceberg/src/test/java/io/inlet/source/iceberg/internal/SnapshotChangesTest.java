package io.inlet.source.iceberg.internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.inlet.source.iceberg.internal.TestTables.batch;
import static io.inlet.source.iceberg.internal.TestTables.commit;
import static io.inlet.source.iceberg.internal.TestTables.create;
import static io.inlet.source.iceberg.internal.TestTables.current;
import static io.inlet.source.iceberg.internal.TestTables.row;
import static io.inlet.source.iceberg.internal.TestTables.writer;
import static org.assertj.core.api.Assertions.assertThat;

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
        for (int checkpoint = 0; checkpoint < 8; checkpoint++) {
            churn.commit(checkpoint, 40);
        }
        assertThat(current(table)).isEqualTo(churn.rows);

        SnapshotChanges changes = new SnapshotChanges(table);
        TestTables.Materialized materialized = new TestTables.Materialized();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        for (Snapshot s : snapshots) {
            changes.of(s).forEach(materialized::apply);
            assertThat(materialized.rows)
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
        SnapshotPlanner.changes(table, table.currentSnapshot(), 2).forEach(split -> kinds.add(split.kind()));
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
}
