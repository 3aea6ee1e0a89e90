package io.inlet.core.event;

import io.inlet.core.InletStopException;
import io.inlet.core.event.internal.ChangeEventSerializer;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.TestRows;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Table versions born while the job runs: rows that say their type and schema change events travel
 * through any serializer, with or without the version declared, and across a savepoint.
 */
class RuntimeSchemaVersionsTest {

    private static final TableDescriptor SMALL = ChangeEventSerializerTest.SMALL;
    private static final TableDescriptor ALL_TYPES = ChangeEventSerializerTest.ALL_TYPES;

    /** SMALL after {@code ALTER TABLE other ADD note VARCHAR(20) AFTER k, MODIFY k BIGINT}. */
    private static final TableDescriptor SMALL_V2 = TableDescriptor.builder(SMALL.tableId())
            .column("k", DataTypes.BIGINT())
            .column("note", DataTypes.VARCHAR(20))
            .column("v", DataTypes.STRING())
            .schemaVersion(2)
            .build();

    private static ChangeEventSerializer serializer(TableDescriptor... tables) {
        return ChangeEventSerializerTest.serializer(tables);
    }

    private static byte[] write(TypeSerializer<ChangeEvent> s, List<ChangeEvent> events) throws Exception {
        return ChangeEventSerializerTest.write(s, events);
    }

    private static List<ChangeEvent> read(TypeSerializer<ChangeEvent> s, byte[] bytes, int n) throws Exception {
        return ChangeEventSerializerTest.read(s, bytes, n);
    }

    private static ChangeEvent smallV1(int k, String v) {
        return ChangeEvent.of(
                SMALL.tableId(), 1, TestRows.row(SMALL, RowKind.INSERT, k, v), 10L, SourcePosition.binlog("b.1", 4, 0));
    }

    private static ChangeEvent smallV2(RowKind kind, long k, String note, String v) {
        return ChangeEvent.of(
                        SMALL.tableId(),
                        2,
                        TestRows.row(SMALL_V2, kind, k, note, v),
                        11L,
                        SourcePosition.binlog("b.1", 90, 1))
                .withRowType(SMALL_V2.toRowType());
    }

    private static SchemaChange smallToV2() {
        return SchemaChange.between(SMALL, SMALL_V2, Map.of(), "ALTER TABLE other ADD note VARCHAR(20) AFTER k");
    }

    private static ChangeEvent smallChangeEvent() {
        return ChangeEvent.schemaChange(smallToV2(), 11L, SourcePosition.binlog("b.1", 80, 0));
    }

    /** A stream around a DDL: rows before, the schema change, rows after, as a source emits them. */
    private static List<ChangeEvent> aroundTheChange() {
        return List.of(
                smallV1(1, "a"),
                smallChangeEvent(),
                smallV2(RowKind.INSERT, 5_000_000_000L, "new", "b"),
                smallV2(RowKind.UPDATE_BEFORE, 1L, null, "a"),
                smallV2(RowKind.UPDATE_AFTER, 1L, "x", "a2"));
    }

    @Test
    void rowsOfAVersionBornWhileTheJobRunsRoundTripWithTheirType() throws Exception {
        ChangeEventSerializer s = serializer(SMALL);
        List<ChangeEvent> events = aroundTheChange();
        List<ChangeEvent> back = read(s, write(s, events), events.size());

        assertThat(back).isEqualTo(events);
        assertThat(back.get(0).rowType()).as("a declared version says no type").isEmpty();
        assertThat(back.get(2).rowType()).contains(SMALL_V2.toRowType());
        assertThat(TestRows.values(SMALL_V2, back.get(2).row())).containsExactly(5_000_000_000L, "new", "b");
        assertThat(back.get(3).kind()).isEqualTo(RowKind.UPDATE_BEFORE);
    }

    @Test
    void everyColumnTypeRoundTripsOnTheRuntimePath() throws Exception {
        // ALL_TYPES is not declared: each of its events goes the self-describing way.
        ChangeEventSerializer s = serializer(SMALL);
        List<ChangeEvent> events = new ArrayList<>();
        for (ChangeEvent e : ChangeEventSerializerTest.events()) {
            events.add(e.tableId().equals(ALL_TYPES.tableId()) ? e.withRowType(ALL_TYPES.toRowType()) : e);
        }
        List<ChangeEvent> back = read(s, write(s, events), events.size());

        assertThat(ChangeEventSerializerTest.describe(back)).isEqualTo(ChangeEventSerializerTest.describe(events));
        assertThat(back.get(0).rowType()).contains(ALL_TYPES.toRowType());
        assertThat(back.get(3).rowType()).isEmpty();
    }

    @Test
    void anySerializerReadsThemWithoutARegistry() throws Exception {
        // The schema change and the rows of the new version (the declared v1 row's index means
        // something only to serializers of the same tables).
        List<ChangeEvent> selfDescribing = aroundTheChange().subList(1, 5);
        byte[] bytes = write(serializer(SMALL), selfDescribing);
        // Another job's serializer (other declared tables), a duplicate and a Java-serialized copy:
        // the events carry what they need.
        ChangeEventSerializer other = serializer(ALL_TYPES);
        assertThat(read(other, bytes, 4)).isEqualTo(selfDescribing);
        assertThat(read(other.duplicate(), bytes, 4)).isEqualTo(selfDescribing);
        assertThat(read(InstantiationUtil.clone(other), bytes, 4)).isEqualTo(selfDescribing);
    }

    @Test
    void streamCopyKeepsTheBytes() throws Exception {
        ChangeEventSerializer s = serializer(SMALL);
        for (ChangeEvent e : aroundTheChange()) {
            byte[] bytes = write(s, List.of(e));
            DataOutputSerializer copied = new DataOutputSerializer(16);
            s.copy(new DataInputDeserializer(bytes), copied);
            assertThat(copied.getCopyOfBuffer()).as("copy of %s", e).isEqualTo(bytes);
        }
    }

    @Test
    void aSavepointFromBeforeTheVersionWasDeclaredRestoresIntoTheJobThatDeclaresIt() throws Exception {
        // The running job learned v2 at runtime; its state holds v2 rows. The job is then rebuilt
        // with v2 declared (as after a restart that reads the new schema) and restored.
        ChangeEventSerializer running = serializer(SMALL);
        byte[] state = write(running, aroundTheChange());
        DataOutputSerializer snapshot = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(snapshot, running.snapshotConfiguration());
        TypeSerializerSnapshot<ChangeEvent> restored = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(snapshot.getCopyOfBuffer()),
                getClass().getClassLoader());

        ChangeEventSerializer rebuilt = serializer(SMALL, SMALL_V2);
        TypeSerializerSchemaCompatibility<ChangeEvent> compat = restored.resolveSchemaCompatibility(rebuilt);
        assertThat(compat.isCompatibleWithReconfiguredSerializer()).isTrue();
        List<ChangeEvent> back = read(compat.getReconfiguredSerializer(), state, 5);

        // The v2 rows now read as a declared version: equal values, no type of their own.
        assertThat(back.get(2).rowType()).isEmpty();
        assertThat(TestRows.values(SMALL_V2, back.get(2).row())).containsExactly(5_000_000_000L, "new", "b");
        assertThat(back.get(1)).isEqualTo(smallChangeEvent());
        // And the rebuilt job writes v2 on its fast path, which the old serializer cannot read.
        byte[] declared = write(rebuilt, List.of(back.get(2)));
        assertThat(declared.length)
                .isLessThan(write(running, List.of(smallV2(RowKind.INSERT, 5_000_000_000L, "new", "b"))).length);
    }

    @Test
    void schemaChangeEventsRoundTripWithEverythingTheySay() throws Exception {
        TableDescriptor before = TableDescriptor.builder(TableId.of("shop", "orders"))
                .column("id", DataTypes.BIGINT(), "the order")
                .column("qty", DataTypes.INT())
                .column("descr", DataTypes.VARCHAR(20))
                .column("price", DataTypes.DECIMAL(10, 2))
                .column("gone", DataTypes.STRING())
                .primaryKey("id")
                .partitionKeys("qty")
                .property("format-version", "2")
                .comment("orders of the shop")
                .schemaVersion(3)
                .build();
        TableDescriptor after = TableDescriptor.builder(TableId.of("shop", "orders"))
                .column("first", DataTypes.TIMESTAMP_LTZ(6).notNull())
                .column("id", DataTypes.BIGINT(), "the order")
                .column("qty", DataTypes.BIGINT())
                .column("description", DataTypes.VARCHAR(200))
                .column("price", DataTypes.DECIMAL(12, 2))
                .primaryKey("id")
                .partitionKeys("qty")
                .property("format-version", "2")
                .comment("orders of the shop")
                .schemaVersion(4)
                .build();
        SchemaChange change = SchemaChange.between(
                before, after, Map.of("descr", "description"), "ALTER TABLE orders RENAME COLUMN descr TO description");
        ChangeEvent event = ChangeEvent.schemaChange(change, 99L, SourcePosition.kafka("t", 2, 7L));
        ChangeEventSerializer s = serializer(SMALL);

        ChangeEvent back = read(s, write(s, List.of(event)), 1).get(0);

        assertThat(back).isEqualTo(event);
        assertThat(back.isSchemaChange()).isTrue();
        assertThat(back.schemaVersion()).isEqualTo(4);
        assertThat(back.schemaChange().before()).isEqualTo(before);
        assertThat(back.schemaChange().after()).isEqualTo(after);
        assertThat(back.schemaChange().statement()).contains("ALTER TABLE orders RENAME COLUMN descr TO description");
        assertThat(back.schemaChange().changes())
                .containsExactly(
                        ColumnChange.retyped("qty", new IntType(), new BigIntType()),
                        ColumnChange.renamed("descr", "description"),
                        ColumnChange.retyped("description", new VarCharType(20), new VarCharType(200)),
                        ColumnChange.retyped("price", new DecimalType(10, 2), new DecimalType(12, 2)),
                        ColumnChange.dropped("gone"),
                        ColumnChange.added(
                                "first", DataTypes.TIMESTAMP_LTZ(6).notNull().getLogicalType(), null));
        assertThat(back.hasSourceTimestamp()).isTrue();
        assertThat(back.position()).isEqualTo(SourcePosition.kafka("t", 2, 7L));
        assertThat(back.schemaChange().isBestEffort()).isFalse();
        // Operators may hold a change in their fields: it survives Java serialization too.
        assertThat(InstantiationUtil.clone(change)).isEqualTo(change);

        // try-evolve's mark travels with it.
        ChangeEvent bestEffort = ChangeEvent.schemaChange(change.withBestEffort(true), 99L, SourcePosition.none());
        ChangeEvent marked = read(s, write(s, List.of(bestEffort)), 1).get(0);
        assertThat(marked.schemaChange().isBestEffort()).isTrue();
        assertThat(marked).isEqualTo(bestEffort).isNotEqualTo(event);
    }

    @Test
    void anAddedColumnsDefaultForTheRowsBeforeTravelsWithTheChange() throws Exception {
        SchemaChange change = smallToV2().withDefaultValues(Map.of("note", "none yet"));
        ChangeEvent event = ChangeEvent.schemaChange(change, 11L, SourcePosition.binlog("b.1", 80, 0));
        ChangeEventSerializer s = serializer(SMALL);

        ChangeEvent back = read(s, write(s, List.of(event)), 1).get(0);

        assertThat(back).isEqualTo(event).isNotEqualTo(smallChangeEvent());
        assertThat(back.schemaChange().changes())
                .filteredOn(c -> c.kind() == ColumnChange.Kind.ADDED)
                .singleElement()
                .satisfies(c -> assertThat(c.defaultValue()).contains("none yet"));
        assertThat(InstantiationUtil.clone(change)).isEqualTo(change);
        assertThatThrownBy(() -> smallToV2().withDefaultValues(Map.of("v", "x")))
                .hasMessageContaining("does not add");
        assertThatThrownBy(() -> smallToV2().withDefaultValues(Map.of("note", "longer than twenty characters")))
                .hasMessageContaining("longer than the column");
    }

    @Test
    void aSchemaChangeEventHasNoRowAndSaysWhatToDo() {
        ChangeEvent event = smallChangeEvent();
        assertThatThrownBy(event::row)
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("has no row")
                .hasMessageContaining("isSchemaChange()");
        assertThatThrownBy(event::kind).hasMessageContaining("has no row");
        assertThatThrownBy(() -> event.withRowType(SMALL_V2.toRowType())).hasMessageContaining("no row type");
        assertThatThrownBy(() -> event.withTable(TableId.of("x"), 1)).hasMessageContaining("withTableId");
        assertThatThrownBy(() -> smallV1(1, "a").schemaChange()).hasMessageContaining("not a schema change");
        assertThat(event.toString()).contains("SchemaChange{other v1 -> v2", "column 'note' was added");
    }

    @Test
    void aRowTypeThatContradictsTheDeclaredVersionIsRefused() {
        ChangeEventSerializer s = serializer(SMALL);
        ChangeEvent lying = smallV1(1, "a").withRowType(SMALL_V2.toRowType());
        assertThatThrownBy(() -> s.serialize(lying, new DataOutputSerializer(16)))
                .hasMessageContaining("says its row type is")
                .hasMessageContaining("other v1")
                .hasMessageContaining("must raise the version");
    }

    @Test
    void anUndeclaredVersionWithoutItsTypeNamesTheFix() {
        ChangeEventSerializer s = serializer(SMALL);
        ChangeEvent untyped = ChangeEvent.of(
                SMALL.tableId(), 2, TestRows.row(SMALL_V2, RowKind.INSERT, 1L, "n", "v"), 1L, SourcePosition.none());
        assertThatThrownBy(() -> s.serialize(untyped, new DataOutputSerializer(16)))
                .hasMessageContaining("other at schema version 2")
                .hasMessageContaining("ChangeEvent#withRowType");
    }

    @Test
    void manyRuntimeTypesStayCorrectPastTheCaches() throws Exception {
        ChangeEventSerializer s = serializer(SMALL);
        List<ChangeEvent> events = new ArrayList<>();
        for (int i = 0; i < 1100; i++) {
            TableDescriptor t = TableDescriptor.builder(TableId.of("db", "t" + i))
                    .column("id", DataTypes.INT())
                    .column("c" + i, DataTypes.DECIMAL(1 + i % 38, 0))
                    .schemaVersion(1 + i % 5)
                    .build();
            events.add(ChangeEvent.of(
                            t.tableId(),
                            t.schemaVersion(),
                            TestRows.row(t, RowKind.INSERT, i, null),
                            1L,
                            SourcePosition.none())
                    .withRowType(t.toRowType()));
        }
        // Twice over, so the second pass meets every type after the caches started over.
        List<ChangeEvent> twice = new ArrayList<>(events);
        twice.addAll(events);
        assertThat(read(s, write(s, twice), twice.size())).isEqualTo(twice);
    }

    @Test
    void schemaChangeBetweenFindsChangesByNameAndTakesRenamesFromTheSource() {
        TableDescriptor v1 = TableDescriptor.builder(TableId.of("db", "t"))
                .column("a", DataTypes.INT())
                .column("b", DataTypes.STRING())
                .column("c", DataTypes.STRING())
                .primaryKey("a")
                .build();
        // b renamed to c while the old c was dropped; d added last.
        TableDescriptor v2 = TableDescriptor.builder(TableId.of("db", "t"))
                .column("a", DataTypes.INT())
                .column("c", DataTypes.STRING())
                .column("d", DataTypes.SMALLINT())
                .primaryKey("a")
                .schemaVersion(2)
                .build();
        SchemaChange change = SchemaChange.between(v1, v2, Map.of("b", "c"), null);
        assertThat(change.changes())
                .containsExactly(
                        ColumnChange.renamed("b", "c"),
                        ColumnChange.dropped("c"),
                        ColumnChange.added("d", new SmallIntType(), "c"));
        assertThat(change.primaryKeyChanged()).isFalse();
        assertThat(change.statement()).isEmpty();

        // Without the rename: b was dropped, and c is the same column before and after.
        assertThat(SchemaChange.between(v1, v2, Map.of(), null).changes())
                .containsExactly(ColumnChange.dropped("b"), ColumnChange.added("d", new SmallIntType(), "c"));

        TableDescriptor newKey = v2.toBuilder().primaryKey("c").schemaVersion(3).build();
        assertThat(SchemaChange.between(v2, newKey, Map.of(), null).primaryKeyChanged())
                .isTrue();
        TableDescriptor renamedKey = TableDescriptor.builder(TableId.of("db", "t"))
                .column("key", DataTypes.INT())
                .column("c", DataTypes.STRING())
                .column("d", DataTypes.SMALLINT())
                .primaryKey("key")
                .schemaVersion(3)
                .build();
        assertThat(SchemaChange.between(v2, renamedKey, Map.of("a", "key"), null)
                        .primaryKeyChanged())
                .isFalse();
    }

    @Test
    void schemaChangeRefusesWhatIsNotAChangeOfOneTableToAHigherVersion() {
        TableDescriptor v2 = SMALL_V2;
        assertThatThrownBy(() -> SchemaChange.between(v2, SMALL, Map.of(), null))
                .hasMessageContaining("must raise its schema version, not go from 2 to 1");
        assertThatThrownBy(() -> SchemaChange.between(SMALL, v2.withTableId(TableId.of("elsewhere")), Map.of(), null))
                .hasMessageContaining("one table");
        assertThatThrownBy(() -> SchemaChange.between(SMALL, v2, Map.of("v", "nope"), null))
                .hasMessageContaining("rename of column 'v' to 'nope'");
    }

    @Test
    void wideningIsWhatKeepsEveryOldValue() {
        assertThat(widening(new IntType(), new BigIntType())).isTrue();
        assertThat(widening(new SmallIntType(), new IntType())).isTrue();
        assertThat(widening(new BigIntType(), new IntType())).isFalse();
        assertThat(widening(new FloatType(), new DoubleType())).isTrue();
        assertThat(widening(new DoubleType(), new FloatType())).isFalse();
        assertThat(widening(new DecimalType(10, 2), new DecimalType(12, 2))).isTrue();
        assertThat(widening(new DecimalType(10, 2), new DecimalType(12, 3))).isFalse();
        assertThat(widening(new DecimalType(12, 2), new DecimalType(10, 2))).isFalse();
        assertThat(widening(new VarCharType(20), new VarCharType(200))).isTrue();
        assertThat(widening(new CharType(3), new VarCharType(3))).isTrue();
        assertThat(widening(new VarCharType(200), new VarCharType(20))).isFalse();
        assertThat(widening(new IntType(false), new IntType(true)))
                .as("made optional")
                .isTrue();
        assertThat(widening(new IntType(true), new IntType(false)))
                .as("made required")
                .isFalse();
        assertThat(widening(new IntType(), new VarCharType(20))).isFalse();
        assertThat(ColumnChange.dropped("x").isWidening()).isFalse();
        assertThatThrownBy(() -> ColumnChange.retyped("x", new IntType(), new IntType()))
                .hasMessageContaining("keeps its type");
    }

    private static boolean widening(LogicalType from, LogicalType to) {
        return ColumnChange.retyped("x", from, to).isWidening();
    }
}
