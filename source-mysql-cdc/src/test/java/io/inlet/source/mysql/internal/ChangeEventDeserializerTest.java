package io.inlet.source.mysql.internal;

import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.source.BadRecordAction;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import io.debezium.data.Envelope;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.InstantiationUtil;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChangeEventDeserializerTest {

    private static final TableDescriptor ORDERS = TableDescriptor.builder(TableId.of("shop", "orders"))
            .column("id", DataTypes.BIGINT())
            .column("status", DataTypes.STRING())
            .primaryKey("id")
            .build();

    private static final Schema ROW = SchemaBuilder.struct()
            .name("shop.orders.Value")
            .field("id", Schema.INT64_SCHEMA)
            .field("status", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    private static final Schema SOURCE = SchemaBuilder.struct()
            .name("io.debezium.connector.mysql.Source")
            .field("db", Schema.STRING_SCHEMA)
            .field("table", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
            .field("file", Schema.STRING_SCHEMA)
            .field("pos", Schema.INT64_SCHEMA)
            .field("row", Schema.INT32_SCHEMA)
            .build();

    private static final Envelope ENVELOPE = Envelope.defineSchema()
            .withName("shop.orders.Envelope")
            .withRecord(ROW)
            .withSource(SOURCE)
            .build();

    private static Struct row(long id, String status) {
        return new Struct(ROW).put("id", id).put("status", status);
    }

    private static Struct source(long ts, String snapshot, long pos) {
        return new Struct(SOURCE)
                .put("db", "shop")
                .put("table", "orders")
                .put("ts_ms", ts)
                .put("snapshot", snapshot)
                .put("file", pos == 0 ? "" : "mysql-bin.000007")
                .put("pos", pos)
                .put("row", 1);
    }

    private static SourceRecord record(Struct value) {
        return new SourceRecord(Map.of(), Map.of(), "server.shop.orders", null, null, ENVELOPE.schema(), value);
    }

    private static List<ChangeEvent> read(ChangeEventDeserializer d, Struct... values) throws Exception {
        List<ChangeEvent> out = new ArrayList<>();
        Collector<ChangeEvent> collector = new Collector<>() {
            @Override
            public void collect(ChangeEvent record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
        for (Struct v : values) {
            d.deserialize(record(v), collector);
        }
        return out;
    }

    /** The schemas were read at mysql-bin.000007:300: rows from there on must have the table's shape. */
    private static ChangeEventDeserializer deserializer(
            SchemaChangeBehavior schemaChanges, BadRecordAction badRecords) {
        return new ChangeEventDeserializer(
                List.of(ORDERS),
                SideChannel.typeWith(List.of(ORDERS)),
                new ChangeEventDeserializer.Settings(
                        null,
                        "mysql-bin.000007",
                        300,
                        SchemaChangePolicy.of(schemaChanges),
                        badRecords,
                        TimePrecisionMode.TIME,
                        Map.of(),
                        true));
    }

    private static ChangeEventDeserializer deserializer() {
        return deserializer(SchemaChangeBehavior.FAIL, BadRecordAction.FAIL);
    }

    @Test
    void mapsEachOperationToItsRowKindsWithPositionAndTime() throws Exception {
        // Shipped to the task serialized: the round trip must keep it working.
        ChangeEventDeserializer d = InstantiationUtil.clone(deserializer());
        List<ChangeEvent> events = read(
                d,
                ENVELOPE.read(row(1, "new"), source(0, "true", 0), null),
                ENVELOPE.create(row(2, "new"), source(1_700_000_000_000L, null, 400), null),
                ENVELOPE.update(row(2, "new"), row(2, "paid"), source(1_700_000_001_000L, null, 500), null),
                ENVELOPE.delete(row(1, "new"), source(1_700_000_002_000L, null, 600), null));
        assertThat(events)
                .extracting(ChangeEvent::kind)
                .containsExactly(
                        RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE);
        assertThat(events.get(0).hasSourceTimestamp())
                .as("snapshot rows carry no source time")
                .isFalse();
        // A snapshot row orders as of the binlog position where the schemas were read, before the binlog.
        assertThat(events.get(0).position()).isEqualTo(SourcePosition.snapshot("mysql-bin.000007", 300));
        assertThat(events.get(0).position().order())
                .isLessThan(events.get(1).position().order());
        assertThat(events.get(3).row())
                .isEqualTo(GenericRowData.ofKind(RowKind.UPDATE_AFTER, 2L, StringData.fromString("paid")));
        assertThat(events.get(3).sourceTimestamp()).isEqualTo(1_700_000_001_000L);
        assertThat(events.get(3).position()).isEqualTo(SourcePosition.binlog("mysql-bin.000007", 500, 1));
    }

    @Test
    void aNullInANullableColumnWithADefaultStaysNull() throws Exception {
        // Debezium gives a column its DDL default in the Connect schema (status VARCHAR NULL DEFAULT 'new');
        // Connect's Struct.get(field) answers a NULL with that default.
        Schema withDefault = SchemaBuilder.struct()
                .name("shop.orders.Value")
                .field("id", Schema.INT64_SCHEMA)
                .field(
                        "status",
                        SchemaBuilder.string().optional().defaultValue("new").build())
                .build();
        Envelope env = Envelope.defineSchema()
                .withName("shop.orders.Envelope")
                .withRecord(withDefault)
                .withSource(SOURCE)
                .build();
        Struct value =
                env.create(new Struct(withDefault).put("id", 7L).put("status", null), source(1, null, 400), null);
        List<ChangeEvent> out = new ArrayList<>();
        deserializer()
                .deserialize(
                        new SourceRecord(Map.of(), Map.of(), "t", null, null, env.schema(), value), new Collector<>() {
                            @Override
                            public void collect(ChangeEvent record) {
                                out.add(record);
                            }

                            @Override
                            public void close() {}
                        });
        assertThat(out)
                .singleElement()
                .satisfies(e -> assertThat(e.row().isNullAt(1))
                        .as("NULL, not the column's default")
                        .isTrue());
    }

    private static Schema wider() {
        return SchemaBuilder.struct()
                .name("shop.orders.Value")
                .field("id", Schema.INT64_SCHEMA)
                .field("added", Schema.OPTIONAL_STRING_SCHEMA)
                .field("status", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
    }

    private static List<ChangeEvent> readWider(ChangeEventDeserializer d, long pos) {
        Schema wider = wider();
        Envelope env = Envelope.defineSchema()
                .withName("shop.orders.Envelope")
                .withRecord(wider)
                .withSource(SOURCE)
                .build();
        Struct value = env.create(
                new Struct(wider).put("id", 5L).put("added", "x").put("status", "new"), source(1, null, pos), null);
        List<ChangeEvent> out = new ArrayList<>();
        d.deserialize(new SourceRecord(Map.of(), Map.of(), "t", null, null, env.schema(), value), new Collector<>() {
            @Override
            public void collect(ChangeEvent record) {
                out.add(record);
            }

            @Override
            public void close() {}
        });
        return out;
    }

    @Test
    void aRowOfANewShapeStopsTheJobUnlessAddedColumnsMayBeLeftOut() {
        assertThatThrownBy(() -> readWider(deserializer(), 400))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("Table shop.orders changed in the source: column 'added' was added")
                .hasMessageContaining("mysql-bin.000007:400");
        List<ChangeEvent> out =
                readWider(deserializer(SchemaChangeBehavior.IGNORE_ADDED_COLUMNS, BadRecordAction.FAIL), 400);
        assertThat(out.get(0).row()).isEqualTo(GenericRowData.of(5L, StringData.fromString("new")));
    }

    @Test
    void rowsFromBeforeTheSchemaWasReadMayHaveAnOlderShape() {
        // at binlog 200 < 300: a job restored from an older checkpoint reads rows of an older shape
        List<ChangeEvent> out = readWider(deserializer(), 200);
        assertThat(out.get(0).row()).isEqualTo(GenericRowData.of(5L, StringData.fromString("new")));
    }

    @Test
    void anUpdateThatChangesTheKeyIsADeleteAndAnInsert() throws Exception {
        List<ChangeEvent> events = read(
                deserializer(),
                ENVELOPE.update(row(2, "new"), row(3, "new"), source(1_700_000_001_000L, null, 500), null));
        assertThat(events).extracting(ChangeEvent::kind).containsExactly(RowKind.DELETE, RowKind.INSERT);
    }

    private static SourceRecord ddl(String ddl, String tableJson) {
        Schema key = SchemaBuilder.struct()
                .name("io.debezium.connector.mysql.SchemaChangeKey")
                .field("databaseName", Schema.STRING_SCHEMA)
                .build();
        Schema value = SchemaBuilder.struct()
                .name("io.debezium.connector.mysql.SchemaChangeValue")
                .field("source", SOURCE)
                .field("historyRecord", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        String history = "{\"source\":{\"file\":\"mysql-bin.000007\",\"pos\":900},\"databaseName\":\"shop\",\"ddl\":\""
                + ddl + "\",\"tableChanges\":[{\"type\":\"ALTER\",\"id\":\"\\\"shop\\\".\\\"orders\\\"\",\"table\":"
                + tableJson + "}]}";
        Struct v = new Struct(value).put("source", source(1, null, 900)).put("historyRecord", history);
        return new SourceRecord(
                Map.of(),
                Map.of(),
                "mysql_binlog_source",
                null,
                key,
                new Struct(key).put("databaseName", "shop"),
                value,
                v);
    }

    private static final String ID = "{\"name\":\"id\",\"typeName\":\"BIGINT\",\"optional\":false}";

    @Test
    void aDdlThatChangesACapturedTableStopsTheJobNamingTheChange() {
        Collector<ChangeEvent> none = new Collector<>() {
            @Override
            public void collect(ChangeEvent record) {}

            @Override
            public void close() {}
        };
        // an index: the columns stay as they were
        deserializer()
                .deserialize(
                        ddl(
                                "CREATE INDEX i ON orders (status)",
                                "{\"columns\":[" + ID
                                        + ",{\"name\":\"status\",\"typeName\":\"TEXT\",\"optional\":true}]}"),
                        none);
        assertThatThrownBy(() -> deserializer()
                        .deserialize(ddl("ALTER TABLE orders DROP COLUMN status", "{\"columns\":[" + ID + "]}"), none))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining(
                        "Table shop.orders changed in the source: column 'status' was dropped (ALTER TABLE orders DROP"
                                + " COLUMN status, at binlog mysql-bin.000007:900#0)")
                .hasMessageContaining("'schema-change.behavior'");
        assertThatThrownBy(() -> deserializer()
                        .deserialize(
                                ddl(
                                        "ALTER TABLE orders RENAME COLUMN status TO state",
                                        "{\"columns\":[" + ID + ",{\"name\":\"state\",\"typeName\":\"VARCHAR\","
                                                + "\"length\":255,\"optional\":true}]}"),
                                none))
                .hasMessageContaining("column 'status' was renamed to 'state'");
        assertThatThrownBy(() -> deserializer()
                        .deserialize(
                                ddl(
                                        "ALTER TABLE orders MODIFY id INT",
                                        "{\"columns\":[{\"name\":\"id\",\"typeName\":\"INT\",\"optional\":false},"
                                                + "{\"name\":\"status\",\"typeName\":\"TEXT\",\"optional\":true}]}"),
                                none))
                .hasMessageContaining("column 'id' changed its type from BIGINT NOT NULL to INT NOT NULL");
        List<ChangeEvent> notices = new ArrayList<>();
        deserializer(SchemaChangeBehavior.IGNORE_ADDED_COLUMNS, BadRecordAction.FAIL)
                .deserialize(
                        ddl(
                                "ALTER TABLE orders ADD COLUMN extra INT",
                                "{\"columns\":[" + ID
                                        + ",{\"name\":\"status\",\"typeName\":\"TEXT\",\"optional\":true},"
                                        + "{\"name\":\"extra\",\"typeName\":\"INT\",\"optional\":true}]}"),
                        new Collector<>() {
                            @Override
                            public void collect(ChangeEvent record) {
                                notices.add(record);
                            }

                            @Override
                            public void close() {}
                        });
        assertThat(notices)
                .singleElement()
                .satisfies(e -> assertThat(e.tableId()).isEqualTo(SideChannel.TABLE_ID));
    }

    @Test
    void aValueThatCannotBeConvertedStopsTheJobOrBecomesADeadLetter() throws Exception {
        TableDescriptor timed = TableDescriptor.builder(TableId.of("shop", "orders"))
                .column("id", DataTypes.BIGINT())
                .column("status", DataTypes.TIME(3))
                .primaryKey("id")
                .build();
        Schema rowSchema = SchemaBuilder.struct()
                .name("shop.orders.Value")
                .field("id", Schema.INT64_SCHEMA)
                .field(
                        "status",
                        SchemaBuilder.int64()
                                .name("io.debezium.time.MicroTime")
                                .optional()
                                .build())
                .build();
        Envelope env = Envelope.defineSchema()
                .withName("shop.orders.Envelope")
                .withRecord(rowSchema)
                .withSource(SOURCE)
                .build();
        Struct value = env.create(
                new Struct(rowSchema).put("id", 1L).put("status", 3_600_000_001L), source(1, null, 500), null);
        SourceRecord r = new SourceRecord(Map.of(), Map.of(), "t", null, null, env.schema(), value);
        ChangeEventDeserializer.Settings fail = new ChangeEventDeserializer.Settings(
                null,
                "mysql-bin.000007",
                300,
                SchemaChangePolicy.of(SchemaChangeBehavior.FAIL),
                BadRecordAction.FAIL,
                TimePrecisionMode.TIME,
                Map.of(),
                true);
        Collector<ChangeEvent> none = new Collector<>() {
            @Override
            public void collect(ChangeEvent record) {}

            @Override
            public void close() {}
        };
        assertThatThrownBy(() -> new ChangeEventDeserializer(List.of(timed), SideChannel.typeWith(List.of(timed)), fail)
                        .deserialize(r, none))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("Cannot read a change of shop.orders at binlog mysql-bin.000007:500#1")
                .hasMessageContaining("column 'status'")
                .hasMessageContaining("01:00:00.000001")
                .hasMessageContaining("'bad-record.action' = 'dead-letter'");
        ChangeEventDeserializer.Settings dlq = new ChangeEventDeserializer.Settings(
                null,
                "mysql-bin.000007",
                300,
                SchemaChangePolicy.of(SchemaChangeBehavior.FAIL),
                BadRecordAction.DEAD_LETTER,
                TimePrecisionMode.TIME,
                Map.of(),
                true);
        List<ChangeEvent> out = new ArrayList<>();
        new ChangeEventDeserializer(List.of(timed), SideChannel.typeWith(List.of(timed)), dlq)
                .deserialize(r, new Collector<>() {
                    @Override
                    public void collect(ChangeEvent record) {
                        out.add(record);
                    }

                    @Override
                    public void close() {}
                });
        assertThat(out).singleElement().satisfies(e -> {
            assertThat(e.tableId()).isEqualTo(SideChannel.TABLE_ID);
            assertThat(e.row().getString(1).toString())
                    .contains(
                            "\"table\":\"shop.orders\"",
                            "\"kind\":\"+I\"",
                            "\"position\":\"mysql-bin.000007:500#1\"",
                            "\"status\":\"01:00:00.000001\"",
                            "\"reason\":\"column 'status'");
        });
    }

    @Test
    void timeColumnsKeepEveryValueAsMicrosecondsOrText() throws Exception {
        Schema micro = SchemaBuilder.int64().name("io.debezium.time.MicroTime").build();
        DebeziumFieldConverters.FieldConverter asMicros =
                DebeziumFieldConverters.create(DataTypes.BIGINT().getLogicalType(), micro, 6);
        DebeziumFieldConverters.FieldConverter asText =
                DebeziumFieldConverters.create(DataTypes.STRING().getLogicalType(), micro, 6);
        DebeziumFieldConverters.FieldConverter asText0 =
                DebeziumFieldConverters.create(DataTypes.STRING().getLogicalType(), micro, 0);
        long min = -(838L * 3600 + 59 * 60 + 59) * 1_000_000L - 999_999L;
        assertThat(asMicros.convert(min)).isEqualTo(min);
        assertThat(asText.convert(min)).hasToString("-838:59:59.999999");
        assertThat(asText.convert(-min)).hasToString("838:59:59.999999");
        assertThat(asText0.convert(8L * 3_600_000_000L)).hasToString("08:00:00");
        assertThat(asText.convert(-1L)).hasToString("-00:00:00.000001");
    }

    @Test
    void aChangeOfATableNotCapturedFailsLoudly() {
        Struct other = new Struct(SOURCE)
                .put("db", "shop")
                .put("table", "invoices")
                .put("ts_ms", 1L)
                .put("file", "f")
                .put("pos", 1L)
                .put("row", 0);
        assertThatThrownBy(() -> read(deserializer(), ENVELOPE.create(row(1, "x"), other, null)))
                .hasMessageContaining("A change of table shop.invoices, which the pipeline did not capture");
    }
}
