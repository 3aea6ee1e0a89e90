package io.inlet.core.internal;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.spi.ChangePartitioning;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.TestRows;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** Rows to one writer by key, schema changes to every writer, in order, through a real shuffle. */
class ChangePartitioningITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(3);

    private static final TableDescriptor V1 = TableDescriptor.builder(TableId.of("db", "t"))
            .column("id", DataTypes.INT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .build();

    private static final TableDescriptor V2 =
            V1.toBuilder().column("extra", DataTypes.BIGINT()).schemaVersion(2).build();

    /** What each writer subtask received, by test run. */
    private static final Map<String, List<String>> RECEIVED = new ConcurrentHashMap<>();

    /** Records "subtask: event" in arrival order. */
    static final class Recording extends RichSinkFunction<ChangeEvent> {
        private static final long serialVersionUID = 1L;
        private final String run;

        Recording(String run) {
            this.run = run;
        }

        @Override
        public void invoke(ChangeEvent e, Context context) {
            String what = e.isSchemaChange()
                    ? "schema v" + e.schemaVersion()
                    : e.kind().shortString() + " " + e.row().getInt(0) + " v" + e.schemaVersion();
            RECEIVED.computeIfAbsent(run, r -> new CopyOnWriteArrayList<>())
                    .add(getRuntimeContext().getIndexOfThisSubtask() + ": " + what);
        }
    }

    static final class ById implements KeySelector<ChangeEvent, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(ChangeEvent e) {
            return e.row().getInt(0);
        }
    }

    static final class Modulo implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int partitions) {
            return key % partitions;
        }
    }

    private static List<ChangeEvent> events() {
        List<ChangeEvent> events = new ArrayList<>();
        long pos = 100;
        for (int id = 0; id < 6; id++) {
            events.add(ChangeEvent.of(
                    V1.tableId(),
                    1,
                    TestRows.row(V1, RowKind.INSERT, id, "a"),
                    1L,
                    SourcePosition.binlog("b", pos++, 0)));
        }
        events.add(ChangeEvent.schemaChange(
                SchemaChange.between(V1, V2, Map.of(), "ALTER TABLE t ADD extra BIGINT"),
                1L,
                SourcePosition.binlog("b", pos++, 0)));
        for (int id = 0; id < 6; id++) {
            events.add(ChangeEvent.of(
                            V2.tableId(),
                            2,
                            TestRows.row(V2, RowKind.UPDATE_AFTER, id, "b", (long) id),
                            1L,
                            SourcePosition.binlog("b", pos++, 0))
                    .withRowType(V2.toRowType()));
        }
        return events;
    }

    @Test
    void everyWriterLearnsTheNewVersionBeforeItsRowsAndEachKeyStaysWithOneWriter() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.getConfig().disableGenericTypes();
        ChangeEventTypeInfo type = ChangeEventTypeInfo.of(List.of(V1));
        DataStream<ChangeEvent> source = env.fromCollection(events(), type).setParallelism(1);
        ChangePartitioning.byKey(source, new ById(), new Modulo(), 3, "test", "test-route")
                .addSink(new Recording("run"))
                .setParallelism(3);
        env.execute();

        List<String> received = RECEIVED.get("run");
        for (int subtask = 0; subtask < 3; subtask++) {
            String prefix = subtask + ": ";
            List<String> mine = new ArrayList<>();
            received.stream().filter(r -> r.startsWith(prefix)).forEach(r -> mine.add(r.substring(prefix.length())));
            // Keys id % 3 == subtask: their v1 rows, the schema change, their v2 rows, in this order.
            assertThat(mine)
                    .as("subtask %d", subtask)
                    .containsExactly(
                            "+I " + subtask + " v1",
                            "+I " + (subtask + 3) + " v1",
                            "schema v2",
                            "+U " + subtask + " v2",
                            "+U " + (subtask + 3) + " v2");
        }
    }

    @Test
    void channelEventsRoundTripThroughTheirSerializer() throws Exception {
        ChannelEventSerializer s = (ChannelEventSerializer)
                new ChannelEventTypeInfo(ChangeEventTypeInfo.of(List.of(V1))).createSerializer(new ExecutionConfig());
        DataOutputSerializer out = new DataOutputSerializer(64);
        List<ChannelEvent> sent = new ArrayList<>();
        // One- and multi-byte channels.
        int[] channels = {0, 1, 127, 128, 300, 70_000, Integer.MAX_VALUE};
        int i = 0;
        for (ChangeEvent e : events()) {
            ChannelEvent c = ChannelEvent.of(channels[i++ % channels.length], e);
            sent.add(c);
            s.serialize(c, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        List<ChannelEvent> back = new ArrayList<>();
        for (int n = 0; n < sent.size(); n++) {
            back.add(s.deserialize(in));
        }
        assertThat(back).isEqualTo(sent);
        assertThat(s.snapshotConfiguration().restoreSerializer()).isEqualTo(s);
    }
}
