package io.inlet.sink.hudi.internal;

import io.inlet.core.InletStopException;
import io.inlet.core.RebuildRequiredException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.OutputTag;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the Hudi sink's splitter does with rows of other schema versions and with schema changes. */
class HudiRowShaperTest {

    private static final TableId T = TableId.of("db", "t");

    /** The table as the job was built: {@code note} new to the Hudi table, {@code v} held as BIGINT there. */
    private static final TableDescriptor BUILT = TableDescriptor.builder(T)
            .column("id", DataTypes.INT().notNull())
            .column("v", DataTypes.INT().notNull())
            .column("note", DataTypes.VARCHAR(50))
            .column("name", DataTypes.VARCHAR(20))
            .primaryKey("id")
            .build();

    private static final RowType WRITE = RowType.of(
            new org.apache.flink.table.types.logical.LogicalType[] {
                new IntType(false),
                new BigIntType(false),
                new VarCharType(50),
                new VarCharType(20),
                new BigIntType(false)
            },
            new String[] {"id", "v", "note", "name", "_source_position"});

    private static final OutputTag<RowData> TAG = new OutputTag<>("hudi-db.t", InternalTypeInfo.of(WRITE));

    private static OneInputStreamOperatorTestHarness<ChangeEvent, RowData> harness() throws Exception {
        return ProcessFunctionTestHarnesses.forProcessFunction(shaper(Set.of("note")));
    }

    private static HudiRowShaper shaper(Set<String> newToTheTable) {
        return new HudiRowShaper(
                Map.of(T, TAG),
                Map.of(T, BUILT.toRowType()),
                Map.of(T, WRITE),
                Map.of(T, 1),
                Map.of(T, false),
                Map.of(T, newToTheTable),
                Map.of(),
                Map.of());
    }

    /** A harness of the shaper restored from the snapshot, as a job restored from that checkpoint runs it. */
    private static OneInputStreamOperatorTestHarness<ChangeEvent, RowData> restored(
            HudiRowShaper shaper, OperatorSubtaskState snapshot) throws Exception {
        OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(shaper));
        h.initializeState(snapshot);
        h.open();
        return h;
    }

    @Test
    void whichNewColumnsHaveValuesSurvivesARestoreWhateverTheTableHadAtBuild() throws Exception {
        TableDescriptor added = version(3, OLDER.toBuilder().columns(BUILT.columns()));
        TableDescriptor dropped = version(4, OLDER.toBuilder());
        OperatorSubtaskState beforeTheAdd;
        OperatorSubtaskState afterTheAdd;
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h = harness()) {
            h.processElement(change(BUILT, OLDER, 100), 0);
            h.processElement(row(OLDER, 110, 1, 10, StringData.fromString("one")), 0);
            beforeTheAdd = h.snapshot(1, 1);
            h.processElement(change(OLDER, added, 120), 0);
            h.processElement(row(added, 130, 2, 20, StringData.fromString("n"), StringData.fromString("two")), 0);
            afterTheAdd = h.snapshot(2, 2);
        }
        // Restored after 'note' got values, in a job whose table had no 'note' at build: a drop stops.
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                restored(shaper(Set.of("note")), afterTheAdd)) {
            assertThatThrownBy(() -> h.processElement(change(added, dropped, 140), 0))
                    .isInstanceOf(InletStopException.class)
                    .hasMessageContaining("column 'note' is no longer in the rows");
        }
        // Restored from before the add, in a job whose table has 'note' already (committed by the job that took
        // the checkpoint): the split's older shape passes, with its rows from before the add.
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h = restored(shaper(Set.of()), beforeTheAdd)) {
            h.processElement(change(BUILT, OLDER, 100), 0);
            h.processElement(row(OLDER, 110, 1, 10, StringData.fromString("one")), 0);
            assertThat(written(h)).hasSize(1);
        }
    }

    @Test
    void aTableTheJobCreatesHasNoColumnWithoutValues() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                ProcessFunctionTestHarnesses.forProcessFunction(shaper(Set.of()))) {
            assertThatThrownBy(() -> h.processElement(change(BUILT, OLDER, 100), 0))
                    .isInstanceOf(InletStopException.class)
                    .hasMessageContaining("column 'note' is no longer in the rows");
        }
    }

    private static TableDescriptor version(int version, TableDescriptor.Builder columns) {
        return columns.primaryKey("id").schemaVersion(version).build();
    }

    private static final TableDescriptor OLDER = version(
            2,
            TableDescriptor.builder(T)
                    .column("id", DataTypes.INT().notNull())
                    .column("v", DataTypes.INT().notNull())
                    .column("name", DataTypes.VARCHAR(20)));

    private static ChangeEvent change(TableDescriptor before, TableDescriptor after, long pos) {
        return ChangeEvent.schemaChange(
                SchemaChange.between(before, after, Map.of(), null),
                0L,
                SourcePosition.binlog("mysql-bin.000001", pos, 0));
    }

    private static ChangeEvent row(TableDescriptor version, long pos, Object... values) {
        ChangeEvent e = ChangeEvent.of(
                T,
                version.schemaVersion(),
                GenericRowData.of(values),
                0L,
                SourcePosition.binlog("mysql-bin.000001", pos, 0));
        return version == BUILT ? e : e.withRowType(version.toRowType());
    }

    private static List<String> written(OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h) {
        if (h.getSideOutput(TAG) == null) {
            return List.of(); // nothing went to the side output
        }
        return h.getSideOutput(TAG).stream()
                .map(StreamRecord::getValue)
                .map(r -> ((GenericRowData) r).toString())
                .collect(Collectors.toList());
    }

    @Test
    void rowsOfAnOlderVersionReadByNameAndAColumnNewToTheTableTakesTheirShapeUntilWritten() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h = harness()) {
            // A job rebuilt for 'note' restores from before it was added: the split's older shape passes.
            h.processElement(change(BUILT, OLDER, 100), 0);
            h.processElement(row(OLDER, 110, 1, 10, StringData.fromString("one")), 0);
            TableDescriptor added = version(3, OLDER.toBuilder().columns(BUILT.columns()));
            h.processElement(change(OLDER, added, 120), 0);
            h.processElement(row(added, 130, 2, 20, StringData.fromString("n"), StringData.fromString("two")), 0);
            long order110 = SourcePosition.binlogOrder("mysql-bin.000001", 110, 0);
            long order130 = SourcePosition.binlogOrder("mysql-bin.000001", 130, 0);
            assertThat(written(h))
                    .containsExactly(
                            "+I(1," + 10L + ",null,one," + order110 + ")", "+I(2," + 20L + ",n,two," + order130 + ")");

            // 'note' has values now: a version without it is a drop, which would write NULL over them.
            TableDescriptor dropped = version(4, OLDER.toBuilder());
            assertThatThrownBy(() -> h.processElement(change(added, dropped, 140), 0))
                    .isInstanceOf(InletStopException.class)
                    .isNotInstanceOf(RebuildRequiredException.class)
                    .hasMessageContaining("column 'note' is no longer in the rows (dropped or renamed)")
                    .hasMessageContaining("'exclude.schema.changes' = 'drop.column, rename.column'");
        }
    }

    /**
     * A job rebuilt under {@code lenient} after a drop and a rename: its rows are MySQL's now, without
     * the columns the Hudi table keeps ({@code v}, the dropped one, {@code name}, the old name). They are
     * written NULL, and a later change without them is no drop: it passes, or asks for a rebuild when it
     * adds a column, as for any table.
     */
    @Test
    void columnsTheTableKeepsAfterADropAreWrittenNullAndNoLaterChangeNeedsThem() throws Exception {
        TableDescriptor now = TableDescriptor.builder(T)
                .column("id", DataTypes.INT().notNull())
                .column("note", DataTypes.VARCHAR(50))
                .column("label", DataTypes.VARCHAR(20))
                .primaryKey("id")
                .build();
        RowType write = RowType.of(
                new org.apache.flink.table.types.logical.LogicalType[] {
                    new IntType(false),
                    new VarCharType(50),
                    new VarCharType(20),
                    new BigIntType(true),
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new BigIntType(false)
                },
                new String[] {"id", "note", "label", "v", "name", "_source_position"});
        HudiRowShaper shaper = new HudiRowShaper(
                Map.of(T, new OutputTag<>("hudi-db.t", InternalTypeInfo.of(write))),
                Map.of(T, now.toRowType()),
                Map.of(T, write),
                Map.of(T, 1),
                Map.of(T, false),
                Map.of(T, Set.of("label")),
                Map.of(T, Set.of("v", "name")),
                Map.of());
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                ProcessFunctionTestHarnesses.forProcessFunction(shaper)) {
            h.processElement(row(now, 110, 1, StringData.fromString("n"), StringData.fromString("uno")), 0);
            TableDescriptor longer = version(
                    3,
                    now.toBuilder()
                            .columns(List.of(
                                    now.columns().get(0),
                                    now.columns().get(1),
                                    now.columns().get(2).withType(DataTypes.VARCHAR(200)))));
            h.processElement(change(now, longer, 120), 0);
            long order110 = SourcePosition.binlogOrder("mysql-bin.000001", 110, 0);
            assertThat(h.getSideOutput(new OutputTag<>("hudi-db.t", InternalTypeInfo.of(write))).stream()
                            .map(r -> r.getValue().toString())
                            .collect(Collectors.toList()))
                    .containsExactly("+I(1,n,uno,null,null," + order110 + ")");
            TableDescriptor extra = version(4, longer.toBuilder().column("email", DataTypes.VARCHAR(80)));
            assertThatThrownBy(() -> h.processElement(change(longer, extra, 130), 0))
                    .isInstanceOf(RebuildRequiredException.class)
                    .hasMessageContaining("column 'email' VARCHAR(80) is new")
                    .hasMessageNotContaining("no longer in the rows");
        }
    }

    /**
     * {@code ADD COLUMN status ... DEFAULT 'new'}: the job that meets it records the default in the table
     * and stops for a new job; the new job, built with it recorded, takes the change as it is and gives
     * rows of the older shape (read again from its checkpoint) the default, while a row of the new shape
     * keeps its own value, NULL included.
     */
    @Test
    void aColumnAddedWithADefaultIsRecordedForTheNextJobWhichGivesItToOlderRows(@TempDir Path table) throws Exception {
        TableDescriptor withStatus = version(3, OLDER.toBuilder().column("status", DataTypes.VARCHAR(10)));
        ChangeEvent add = ChangeEvent.schemaChange(
                SchemaChange.between(OLDER, withStatus, Map.of(), null).withDefaultValues(Map.of("status", "new")),
                0L,
                SourcePosition.binlog("mysql-bin.000001", 200, 0));
        RowType write = RowType.of(
                new org.apache.flink.table.types.logical.LogicalType[] {
                    new IntType(false),
                    new IntType(false),
                    new VarCharType(20),
                    new VarCharType(10),
                    new BigIntType(false)
                },
                new String[] {"id", "v", "name", "status", "_source_position"});
        RowType built = OLDER.toRowType();
        OutputTag<RowData> tag = new OutputTag<>("hudi-db.t", InternalTypeInfo.of(built));
        HudiDefaults.Table none = new HudiDefaults.Table(table.toUri().toString(), List.of(), false, Map.of());
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                ProcessFunctionTestHarnesses.forProcessFunction(new HudiRowShaper(
                        Map.of(T, tag),
                        Map.of(T, built),
                        Map.of(
                                T,
                                RowType.of(
                                        new org.apache.flink.table.types.logical.LogicalType[] {
                                            new IntType(false),
                                            new IntType(false),
                                            new VarCharType(20),
                                            new BigIntType(false)
                                        },
                                        new String[] {"id", "v", "name", "_source_position"})),
                        Map.of(T, 1),
                        Map.of(T, false),
                        Map.of(T, Set.of()),
                        Map.of(),
                        Map.of(T, none)))) {
            assertThatThrownBy(() -> h.processElement(add, 0))
                    .isInstanceOf(RebuildRequiredException.class)
                    .hasMessageContaining("column 'status' VARCHAR(10) is new")
                    .hasMessageContaining("column 'status' was added with the default 'new', which the rows from"
                            + " before it take");
        }
        List<HudiDefaults.Added> recorded = HudiDefaults.read(table.toUri().toString(), new Configuration(false));
        assertThat(recorded).hasSize(1);
        assertThat(recorded.get(0).column()).isEqualTo("status");
        assertThat(recorded.get(0).defaultText()).isEqualTo("new");
        assertThat(recorded.get(0).order()).isEqualTo(add.position().order());
        assertThat(recorded.get(0).done()).isFalse();

        // The rebuilt job: the table's write type has 'status', the default is recorded. The shaper ships to the
        // task managers serialized, the recorded defaults with it.
        OutputTag<RowData> writeTag = new OutputTag<>("hudi-db.t", InternalTypeInfo.of(write));
        HudiRowShaper shipped = InstantiationUtil.clone(new HudiRowShaper(
                Map.of(T, writeTag),
                Map.of(T, withStatus.toRowType()),
                Map.of(T, write),
                Map.of(T, 1),
                Map.of(T, false),
                Map.of(T, Set.of("status")),
                Map.of(),
                Map.of(T, new HudiDefaults.Table(table.toUri().toString(), recorded, false, Map.of()))));
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                ProcessFunctionTestHarnesses.forProcessFunction(shipped)) {
            h.processElement(row(OLDER, 150, 1, 10, StringData.fromString("one")), 0);
            h.processElement(add, 0); // as it is: recorded
            h.processElement(row(withStatus, 210, 2, 20, StringData.fromString("two"), null), 0);
            h.processElement(
                    row(withStatus, 220, 3, 30, StringData.fromString("three"), StringData.fromString("x")), 0);
            h.processElement(row(OLDER, 230, 4, 40, StringData.fromString("late")), 0); // a shape from before
            assertThat(h.getSideOutput(writeTag).stream()
                            .map(r -> r.getValue().toString())
                            .collect(Collectors.toList()))
                    .containsExactly(
                            "+I(1,10,one,new," + SourcePosition.binlogOrder("mysql-bin.000001", 150, 0) + ")",
                            "+I(2,20,two,null," + SourcePosition.binlogOrder("mysql-bin.000001", 210, 0) + ")",
                            "+I(3,30,three,x," + SourcePosition.binlogOrder("mysql-bin.000001", 220, 0) + ")",
                            "+I(4,40,late,new," + SourcePosition.binlogOrder("mysql-bin.000001", 230, 0) + ")");
        }
        HudiDefaults.markDone(table.toUri().toString(), "status", new Configuration(false));
        assertThat(HudiDefaults.read(table.toUri().toString(), new Configuration(false)))
                .singleElement()
                .satisfies(a -> assertThat(a.done()).isTrue());
        // Recording it again (another subtask, a replay) leaves the record as it is.
        HudiDefaults.record(
                table.toUri().toString(), HudiDefaults.Added.of("status", "other", 1L), new Configuration(false));
        assertThat(HudiDefaults.read(table.toUri().toString(), new Configuration(false)))
                .singleElement()
                .satisfies(a -> assertThat(a.defaultText()).isEqualTo("new"))
                .satisfies(a -> assertThat(a.done()).isTrue());
    }

    /**
     * While the job gives rows from before an added column its default, a delete is written as a soft one (the
     * row's values, {@code _hoodie_is_deleted} set): Hudi 0.14 lets a record that follows a hard delete win
     * whatever its ordering value, and the backfill's copy of the row may follow it. A key-only before image
     * stays a hard delete.
     */
    @Test
    void deletesAreSoftWhileTheJobGivesRowsTheirDefault(@TempDir Path table) throws Exception {
        RowType write = RowType.of(
                new org.apache.flink.table.types.logical.LogicalType[] {
                    new IntType(false),
                    new IntType(false),
                    new VarCharType(false, 20), // NOT NULL in the table: a delete needs its value to be soft
                    new BigIntType(false),
                    new org.apache.flink.table.types.logical.BooleanType()
                },
                new String[] {"id", "v", "name", "_source_position", "_hoodie_is_deleted"});
        OutputTag<RowData> tag = new OutputTag<>("hudi-db.t", InternalTypeInfo.of(write));
        HudiRowShaper shaper = new HudiRowShaper(
                Map.of(T, tag),
                Map.of(T, OLDER.toRowType()),
                Map.of(T, write),
                Map.of(T, 2),
                Map.of(T, false),
                Map.of(T, Set.of()),
                Map.of(),
                Map.of(T, new HudiDefaults.Table(table.toUri().toString(), List.of(), true, Map.of())));
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h =
                ProcessFunctionTestHarnesses.forProcessFunction(shaper)) {
            ChangeEvent delete = row(OLDER, 300, 1, 10, StringData.fromString("one"));
            delete.row().setRowKind(org.apache.flink.types.RowKind.DELETE);
            h.processElement(delete, 0);
            ChangeEvent keyOnly = row(OLDER, 310, 2, 20, null);
            keyOnly.row().setRowKind(org.apache.flink.types.RowKind.DELETE);
            h.processElement(keyOnly, 0);
            long order300 = SourcePosition.binlogOrder("mysql-bin.000001", 300, 0);
            long order310 = SourcePosition.binlogOrder("mysql-bin.000001", 310, 0);
            assertThat(h.getSideOutput(tag).stream()
                            .map(r -> r.getValue().toString())
                            .collect(Collectors.toList()))
                    .containsExactly("+I(1,10,one," + order300 + ",true)", "-D(2,20,null," + order310 + ",null)");
        }
    }

    @Test
    void anAddedColumnOrANullableOneAsksForARebuildAndAWideningStops() throws Exception {
        try (OneInputStreamOperatorTestHarness<ChangeEvent, RowData> h = harness()) {
            TableDescriptor longer = version(
                    2,
                    BUILT.toBuilder()
                            .columns(List.of(
                                    BUILT.columns().get(0),
                                    BUILT.columns().get(1),
                                    BUILT.columns().get(2),
                                    BUILT.columns().get(3).withType(DataTypes.VARCHAR(200)))));
            h.processElement(change(BUILT, longer, 100), 0); // stored alike: passes
            TableDescriptor extra = version(3, longer.toBuilder().column("email", DataTypes.VARCHAR(80)));
            assertThatThrownBy(() -> h.processElement(change(longer, extra, 110), 0))
                    .isInstanceOf(RebuildRequiredException.class)
                    .hasMessageContaining("column 'email' VARCHAR(80) is new")
                    .satisfies(e -> assertThat(((RebuildRequiredException) e).position())
                            .isEqualTo("mysql-bin.000001:110#0"));
            TableDescriptor nullable = version(
                    3,
                    longer.toBuilder()
                            .columns(List.of(
                                    BUILT.columns()
                                            .get(0)
                                            .withType(DataTypes.INT().notNull()),
                                    BUILT.columns().get(1).withType(DataTypes.INT()),
                                    BUILT.columns().get(2),
                                    longer.columns().get(3))));
            // v is INT NOT NULL at the source, BIGINT NOT NULL in the table: nullable needs a new writer schema
            assertThatThrownBy(() -> h.processElement(change(longer, nullable, 120), 0))
                    .isInstanceOf(RebuildRequiredException.class)
                    .hasMessageContaining("column 'v' became nullable");
            TableDescriptor widerId = version(
                    3,
                    longer.toBuilder()
                            .columns(List.of(
                                    BUILT.columns()
                                                    .get(0)
                                                    .withType(DataTypes.BIGINT().notNull()),
                                            BUILT.columns().get(1),
                                    BUILT.columns().get(2), longer.columns().get(3))));
            assertThatThrownBy(() -> h.processElement(change(longer, widerId, 130), 0))
                    .isInstanceOf(InletStopException.class)
                    .isNotInstanceOf(RebuildRequiredException.class)
                    .hasMessageContaining("column 'id' widened from INT NOT NULL to BIGINT NOT NULL")
                    .hasMessageContaining("Unexpected type: INT32");
            assertThat(written(h)).isEmpty();
        }
    }
}
