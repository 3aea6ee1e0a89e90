package io.inlet.core.event;

import io.inlet.core.event.internal.ChangeEventSerializer;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.TestRows;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChangeEventSerializerTest {

    static final TableDescriptor ALL_TYPES = TableDescriptor.builder(TableId.of("db", "all_types"))
            .column("id", DataTypes.BIGINT())
            .column("b", DataTypes.BOOLEAN())
            .column("ti", DataTypes.TINYINT())
            .column("si", DataTypes.SMALLINT())
            .column("i", DataTypes.INT())
            .column("f", DataTypes.FLOAT())
            .column("d", DataTypes.DOUBLE())
            .column("s", DataTypes.STRING())
            .column("c", DataTypes.CHAR(3))
            .column("bin", DataTypes.BYTES())
            .column("dec_small", DataTypes.DECIMAL(10, 2))
            .column("dec_big", DataTypes.DECIMAL(38, 10))
            .column("day", DataTypes.DATE())
            .column("tod", DataTypes.TIME(3))
            .column("ts3", DataTypes.TIMESTAMP(3))
            .column("ts6", DataTypes.TIMESTAMP(6))
            .column("ltz", DataTypes.TIMESTAMP_LTZ(9))
            .column("arr", DataTypes.ARRAY(DataTypes.INT()))
            .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT()))
            .column("r", DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT()), DataTypes.FIELD("b", DataTypes.STRING())))
            .primaryKey("id")
            .build();

    static final TableDescriptor SMALL = TableDescriptor.builder(TableId.of("other"))
            .column("k", DataTypes.INT())
            .column("v", DataTypes.STRING())
            .build();

    static List<ChangeEvent> events() {
        List<ChangeEvent> events = new ArrayList<>();
        events.add(ChangeEvent.of(
                ALL_TYPES.tableId(),
                1,
                TestRows.row(
                        ALL_TYPES,
                        RowKind.INSERT,
                        1L,
                        true,
                        (byte) -128,
                        (short) 32767,
                        Integer.MIN_VALUE,
                        1.5f,
                        -0.0d,
                        "héllo wörld 😀 ✓",
                        "abc",
                        new byte[] {0, 1, -1, 127},
                        new BigDecimal("-12345678.90"),
                        new BigDecimal("1234567890123456789012345678.0123456789"),
                        LocalDate.of(1969, 12, 31),
                        LocalTime.of(23, 59, 59, 999_000_000),
                        LocalDateTime.of(2024, 2, 29, 12, 0, 0, 123_000_000),
                        LocalDateTime.of(1900, 1, 1, 0, 0, 0, 123_456_000),
                        Instant.parse("2038-01-19T03:14:07.123456789Z"),
                        new Integer[] {1, null, 3},
                        Map.of("a", 1L),
                        org.apache.flink.types.Row.of(7, "x")),
                1_700_000_000_123L,
                SourcePosition.binlog("mysql-bin.000042", 4711L, 3)));
        Object[] nulls = new Object[ALL_TYPES.columns().size()];
        nulls[0] = 2L;
        events.add(ChangeEvent.of(
                ALL_TYPES.tableId(),
                1,
                TestRows.row(ALL_TYPES, RowKind.UPDATE_BEFORE, nulls),
                ChangeEvent.UNKNOWN_TIMESTAMP,
                SourcePosition.none()));
        events.add(ChangeEvent.of(
                ALL_TYPES.tableId(),
                1,
                TestRows.row(ALL_TYPES, RowKind.UPDATE_AFTER, nulls),
                0L,
                SourcePosition.kafka("dbserver1.db.all_types", 5, Long.MAX_VALUE)));
        events.add(ChangeEvent.of(
                SMALL.tableId(), 1, TestRows.row(SMALL, RowKind.DELETE, -1, ""), -5L, SourcePosition.none()));
        return events;
    }

    /** An event as text, with the row's values by content (nested rows, arrays and maps too). */
    static String describe(ChangeEvent e) {
        TableDescriptor t = e.tableId().equals(ALL_TYPES.tableId()) ? ALL_TYPES : SMALL;
        return e.tableId() + " v" + e.schemaVersion() + " " + e.kind() + " ts=" + e.sourceTimestamp() + " at "
                + e.position() + " [" + TestRows.format(t, e.row()) + "]";
    }

    static List<String> describe(List<ChangeEvent> events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add(describe(e)));
        return out;
    }

    static ChangeEventSerializer serializer(TableDescriptor... tables) {
        return (ChangeEventSerializer) ChangeEventTypeInfo.of(List.of(tables)).createSerializer(new ExecutionConfig());
    }

    static byte[] write(TypeSerializer<ChangeEvent> s, List<ChangeEvent> events) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (ChangeEvent e : events) {
            s.serialize(e, out);
        }
        return out.getCopyOfBuffer();
    }

    static List<ChangeEvent> read(TypeSerializer<ChangeEvent> s, byte[] bytes, int n) throws Exception {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        List<ChangeEvent> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(s.deserialize(in));
        }
        assertThat(in.available()).as("bytes left after reading").isZero();
        return out;
    }

    @Test
    void roundTripsEveryTypeNullsKindsAndPositionsAsASequence() throws Exception {
        ChangeEventSerializer s = serializer(ALL_TYPES, SMALL);
        List<ChangeEvent> events = events();
        List<ChangeEvent> back = read(s, write(s, events), events.size());
        // Value for value: nested values come back as Flink's binary forms, equal by content.
        assertThat(describe(back)).isEqualTo(describe(events));
        assertThat(describe(back.get(0)))
                .contains(
                        "héllo wörld 😀 ✓",
                        "[0, 1, -1, 127]",
                        "[1, null, 3]",
                        "{a=1}",
                        "+I[7, x]",
                        "1234567890123456789012345678.0123456789",
                        "2038-01-19T03:14:07.123456789Z");
        assertThat(back.get(1).kind()).isEqualTo(RowKind.UPDATE_BEFORE);
        assertThat(back.get(1).hasSourceTimestamp()).isFalse();
        assertThat(back.get(2).position()).isEqualTo(SourcePosition.kafka("dbserver1.db.all_types", 5, Long.MAX_VALUE));
    }

    @Test
    void roundTripsEveryKindOfPositionItsOrderAndKeyOnlyRows() throws Exception {
        ChangeEventSerializer s = serializer(SMALL);
        List<ChangeEvent> events = List.of(
                ChangeEvent.of(
                        SMALL.tableId(),
                        1,
                        TestRows.row(SMALL, RowKind.INSERT, 1, "a"),
                        1L,
                        SourcePosition.snapshot("mysql-bin.000004", 4711L)),
                ChangeEvent.of(
                        SMALL.tableId(),
                        1,
                        TestRows.row(SMALL, RowKind.INSERT, 2, "b"),
                        1L,
                        SourcePosition.snapshot("mysql-bin.000004", 5000L, 3)),
                ChangeEvent.of(
                        SMALL.tableId(),
                        1,
                        TestRows.row(SMALL, RowKind.INSERT, 3, "c"),
                        1L,
                        SourcePosition.kafka("t", 0, 9L, SourcePosition.binlogOrder("mysql-bin.000004", 6000L, 1))),
                ChangeEvent.keyOnly(
                        SMALL.tableId(),
                        1,
                        TestRows.row(SMALL, RowKind.UPDATE_BEFORE, 4, null),
                        1L,
                        SourcePosition.kafka("t", 0, 10L)),
                ChangeEvent.of(
                        SMALL.tableId(),
                        1,
                        TestRows.row(SMALL, RowKind.DELETE, 5, "e"),
                        1L,
                        SourcePosition.iceberg("shop.orders", -8_070_450_532_247_928_832L, 42L)));
        List<ChangeEvent> back = read(s, write(s, events), events.size());
        assertThat(back).isEqualTo(events);
        assertThat(back.get(4).position().kind()).isEqualTo(SourcePosition.Kind.ICEBERG);
        assertThat(back.get(4).position().order()).isEqualTo(42L);
        assertThat(back.get(4).position()).hasToString("iceberg:shop.orders@-8070450532247928832");
        assertThat(back.subList(0, 3)).extracting(e -> e.position().order()).isSorted();
        assertThat(back.get(3).isKeyOnly()).isTrue();
        assertThat(back.get(0).isKeyOnly()).isFalse();
        // A snapshot at a binlog position orders just before the first change from it on.
        assertThat(SourcePosition.snapshot("mysql-bin.000004", 4711L).order())
                .isEqualTo(SourcePosition.binlog("mysql-bin.000004", 4711L, 0).order() - 1)
                .isGreaterThan(
                        SourcePosition.binlog("mysql-bin.000003", 999_999L, 77).order());
    }

    @Test
    void roundTripsEachEventAloneAndThroughStreamCopy() throws Exception {
        ChangeEventSerializer s = serializer(ALL_TYPES, SMALL);
        for (ChangeEvent e : events()) {
            byte[] bytes = write(s, List.of(e));
            assertThat(describe(read(s, bytes, 1))).containsExactly(describe(e));

            DataOutputSerializer copied = new DataOutputSerializer(16);
            s.copy(new DataInputDeserializer(bytes), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
        }
    }

    @Test
    void writesWideRowsWithMoreThanEightNullableFields() throws Exception {
        TableDescriptor.Builder b = TableDescriptor.builder(TableId.of("db", "wide"));
        for (int i = 0; i < 21; i++) {
            b.column("c" + i, DataTypes.INT());
        }
        TableDescriptor wide = b.build();
        GenericRowData row = new GenericRowData(21);
        for (int i = 0; i < 21; i++) {
            row.setField(i, i % 3 == 0 ? null : i);
        }
        ChangeEvent e = ChangeEvent.of(wide.tableId(), row);
        ChangeEventSerializer s = serializer(wide);
        assertThat(read(s, write(s, List.of(e)), 1)).containsExactly(e);
    }

    @Test
    void copiesByReferenceBecauseEventsAreImmutable() {
        ChangeEventSerializer s = serializer(ALL_TYPES, SMALL);
        ChangeEvent e = events().get(0);
        assertThat(s.isImmutableType()).isTrue();
        assertThat(s.copy(e)).isSameAs(e);
    }

    @Test
    void duplicatesAreEqualIndependentAndJavaSerializable() throws Exception {
        ChangeEventSerializer s = serializer(ALL_TYPES, SMALL);
        TypeSerializer<ChangeEvent> dup = s.duplicate();
        assertThat(dup).isNotSameAs(s).isEqualTo(s).hasSameHashCodeAs(s);
        TypeSerializer<ChangeEvent> cloned = InstantiationUtil.clone(s);
        assertThat(cloned).isEqualTo(s);
        byte[] bytes = write(s, events());
        assertThat(describe(read(cloned, bytes, events().size()))).isEqualTo(describe(events()));
        assertThat(describe(read(dup, bytes, events().size()))).isEqualTo(describe(events()));
    }

    @Test
    void rejectsAnEventOfAnUndeclaredTableNamingIt() {
        ChangeEventSerializer s = serializer(SMALL);
        ChangeEvent e = events().get(0);
        assertThatThrownBy(() -> s.serialize(e, new DataOutputSerializer(16)))
                .hasMessageContaining("db.all_types")
                .hasMessageContaining("not among the tables")
                .hasMessageContaining("other v1");
    }

    @Test
    void reportsARowThatDoesNotMatchItsColumnTypes() {
        ChangeEventSerializer s = serializer(SMALL);
        ChangeEvent wrong = ChangeEvent.of(
                SMALL.tableId(), GenericRowData.of(StringData.fromString("not an int"), StringData.fromString("v")));
        assertThatThrownBy(() -> s.serialize(wrong, new DataOutputSerializer(16)))
                .hasMessageContaining("Cannot serialize the row")
                .hasMessageContaining("other v1");
    }

    private static TypeSerializerSnapshot<ChangeEvent> snapshotRoundTrip(TypeSerializer<ChangeEvent> s)
            throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
        return TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), ChangeEventSerializerTest.class.getClassLoader());
    }

    @Test
    void snapshotRestoresAnEqualSerializer() throws Exception {
        ChangeEventSerializer s = serializer(ALL_TYPES, SMALL);
        TypeSerializerSnapshot<ChangeEvent> snap = snapshotRoundTrip(s);
        assertThat(snap.restoreSerializer()).isEqualTo(s);
        assertThat(snap.resolveSchemaCompatibility(s).isCompatibleAsIs()).isTrue();
    }

    @Test
    void snapshotOfAnOlderTableSetIsCompatibleWithAReconfiguredSerializer() throws Exception {
        ChangeEventSerializer old = serializer(SMALL);
        byte[] oldBytes = write(old, List.of(events().get(3)));
        TypeSerializerSnapshot<ChangeEvent> snap = snapshotRoundTrip(old);

        // The new job also captures ALL_TYPES, declared first: indexes differ from the old ones.
        ChangeEventSerializer newer = serializer(ALL_TYPES, SMALL);
        TypeSerializerSchemaCompatibility<ChangeEvent> compat = snap.resolveSchemaCompatibility(newer);
        assertThat(compat.isCompatibleWithReconfiguredSerializer()).isTrue();
        TypeSerializer<ChangeEvent> reconfigured = compat.getReconfiguredSerializer();
        // Reads what the old serializer wrote, and writes events of both tables.
        assertThat(read(reconfigured, oldBytes, 1)).containsExactly(events().get(3));
        assertThat(describe(read(reconfigured, write(reconfigured, events()), 4)))
                .isEqualTo(describe(events()));
    }

    @Test
    void aChangedRowTypeAtTheSameSchemaVersionIsIncompatible() throws Exception {
        TypeSerializerSnapshot<ChangeEvent> snap = snapshotRoundTrip(serializer(SMALL));
        TableDescriptor changed =
                SMALL.toBuilder().column("extra", DataTypes.INT()).build();
        assertThat(snap.resolveSchemaCompatibility(serializer(changed)).isIncompatible())
                .isTrue();
        TableDescriptor nextVersion = changed.toBuilder().schemaVersion(2).build();
        assertThat(snap.resolveSchemaCompatibility(serializer(nextVersion)).isCompatibleWithReconfiguredSerializer())
                .isTrue();
    }

    @Test
    void typeInfoGivesOurSerializerNotKryo() {
        ChangeEventTypeInfo info = ChangeEventTypeInfo.of(List.of(ALL_TYPES, SMALL));
        ExecutionConfig config = new ExecutionConfig();
        config.disableGenericTypes();
        assertThat(info.createSerializer(config)).isInstanceOf(ChangeEventSerializer.class);
        assertThat(info).isEqualTo(ChangeEventTypeInfo.of(List.of(ALL_TYPES, SMALL)));
        assertThat(info).isNotEqualTo(ChangeEventTypeInfo.of(List.of(SMALL)));
        assertThatThrownBy(() -> ChangeEventTypeInfo.of(List.of(SMALL, SMALL))).hasMessageContaining("declared twice");
    }
}
