package io.inlet.source.mysql.internal;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.event.SourcePosition;
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

    private static final TableDescriptor ORDERS =
            TableDescriptor.builder(TableId.of("shop", "orders"))
                    .column("id", DataTypes.BIGINT())
                    .column("status", DataTypes.STRING())
                    .primaryKey("id")
                    .build();

    private static final Schema ROW = SchemaBuilder.struct().name("shop.orders.Value")
            .field("id", Schema.INT64_SCHEMA)
            .field("status", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.mysql.Source")
            .field("db", Schema.STRING_SCHEMA)
            .field("table", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
            .field("file", Schema.STRING_SCHEMA)
            .field("pos", Schema.INT64_SCHEMA)
            .field("row", Schema.INT32_SCHEMA)
            .build();

    private static final Envelope ENVELOPE =
            Envelope.defineSchema().withName("shop.orders.Envelope").withRecord(ROW).withSource(SOURCE).build();

    private static Struct row(long id, String status) {
        return new Struct(ROW).put("id", id).put("status", status);
    }

    private static Struct source(long ts, String snapshot, long pos) {
        return new Struct(SOURCE).put("db", "shop").put("table", "orders").put("ts_ms", ts)
                .put("snapshot", snapshot).put("file", "mysql-bin.000007").put("pos", pos).put("row", 1);
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

    private static ChangeEventDeserializer deserializer() {
        return new ChangeEventDeserializer(List.of(ORDERS), ChangeEventTypeInfo.of(List.of(ORDERS)), null);
    }

    @Test
    void mapsEachOperationToItsRowKindsWithPositionAndTime() throws Exception {
        // Shipped to the task serialized: the round trip must keep it working.
        ChangeEventDeserializer d = InstantiationUtil.clone(deserializer());
        List<ChangeEvent> events = read(d,
                ENVELOPE.read(row(1, "new"), source(0, "true", 0), null),
                ENVELOPE.create(row(2, "new"), source(1_700_000_000_000L, null, 400), null),
                ENVELOPE.update(row(2, "new"), row(2, "paid"), source(1_700_000_001_000L, null, 500), null),
                ENVELOPE.delete(row(1, "new"), source(1_700_000_002_000L, null, 600), null));
        assertThat(events).extracting(ChangeEvent::kind)
                .containsExactly(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE);
        assertThat(events.get(0).hasSourceTimestamp()).as("snapshot rows carry no source time").isFalse();
        assertThat(events.get(0).position()).isEqualTo(SourcePosition.none());
        assertThat(events.get(3).row()).isEqualTo(GenericRowData.ofKind(RowKind.UPDATE_AFTER, 2L, StringData.fromString("paid")));
        assertThat(events.get(3).sourceTimestamp()).isEqualTo(1_700_000_001_000L);
        assertThat(events.get(3).position()).isEqualTo(SourcePosition.binlog("mysql-bin.000007", 500, 1));
    }

    @Test
    void aColumnAddedLaterDoesNotShiftValues() throws Exception {
        Schema wider = SchemaBuilder.struct().name("shop.orders.Value")
                .field("id", Schema.INT64_SCHEMA)
                .field("added", Schema.OPTIONAL_STRING_SCHEMA)
                .field("status", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Envelope env = Envelope.defineSchema().withName("shop.orders.Envelope").withRecord(wider).withSource(SOURCE).build();
        Struct value = env.create(new Struct(wider).put("id", 5L).put("added", "x").put("status", "new"), source(1, null, 1), null);
        List<ChangeEvent> out = new ArrayList<>();
        deserializer().deserialize(new SourceRecord(Map.of(), Map.of(), "t", null, null, env.schema(), value), new Collector<>() {
            @Override
            public void collect(ChangeEvent record) {
                out.add(record);
            }

            @Override
            public void close() {}
        });
        assertThat(out.get(0).row()).isEqualTo(GenericRowData.of(5L, StringData.fromString("new")));
    }

    @Test
    void aChangeOfATableNotCapturedFailsLoudly() {
        Struct other = new Struct(SOURCE).put("db", "shop").put("table", "invoices").put("ts_ms", 1L)
                .put("file", "f").put("pos", 1L).put("row", 0);
        assertThatThrownBy(() -> read(deserializer(), ENVELOPE.create(row(1, "x"), other, null)))
                .hasMessageContaining("A change of table shop.invoices, which the pipeline did not capture");
    }
}
