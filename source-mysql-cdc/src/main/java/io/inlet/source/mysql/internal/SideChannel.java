package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.spi.SnapshotSignal;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * What the deserializer and the reader report besides changes, on the same stream (it has no other
 * output): dead letters, schema changes left out by policy, and {@link SnapshotSignal}s. They travel as events of a
 * table of
 * Inlet's own that no pipeline captures, and {@link Splitter}, chained to the source, takes them
 * out: dead letters to their output, notices to the metrics {@code numBadRecords} and {@code
 * numSchemaChangesIgnored}, snapshot signals to theirs.
 */
@Internal
public final class SideChannel {

    /**
     * The table id of side-channel events: never a captured table, and taken out before any transform sees the stream.
     */
    public static final TableId TABLE_ID = TableId.of("__inlet__", "side_channel");

    /** Its rows: what the event is, and its JSON. */
    public static final TableDescriptor TABLE = TableDescriptor.builder(TABLE_ID)
            .column("type", DataTypes.STRING().notNull())
            .column("payload", DataTypes.STRING().notNull())
            .build();

    static final String DEAD_LETTER = "dead-letter";
    static final String SCHEMA_CHANGE_IGNORED = "schema-change-ignored";
    static final String SNAPSHOT_SIGNAL = "snapshot-signal";

    private SideChannel() {}

    /** The type of the source's own stream: the captured tables and the side channel. */
    public static ChangeEventTypeInfo typeWith(List<TableDescriptor> tables) {
        List<TableDescriptor> all = new ArrayList<>(tables);
        all.add(TABLE);
        return ChangeEventTypeInfo.of(all);
    }

    static ChangeEvent event(String type, String json) {
        return ChangeEvent.of(
                TABLE_ID,
                GenericRowData.ofKind(RowKind.INSERT, StringData.fromString(type), StringData.fromString(json)));
    }

    static ChangeEvent snapshotSignal(SnapshotSignal signal) {
        return event(SNAPSHOT_SIGNAL, signal.name());
    }

    /** The side output snapshot signals leave the splitter by. */
    public static OutputTag<SnapshotSignal> snapshotSignalTag() {
        return new OutputTag<>("inlet-snapshot-signals", TypeInformation.of(SnapshotSignal.class));
    }

    /** The side output dead letters leave the splitter by, as JSON lines. */
    public static OutputTag<String> deadLetterTag() {
        return new OutputTag<>("inlet-dead-letters", Types.STRING);
    }

    /**
     * Writes dead letters as JSON lines into files under a directory, exactly once: a file becomes
     * visible (loses its leading dot) when the checkpoint that wrote it completes.
     */
    public static void writeDeadLetters(DataStream<String> deadLetters, String directory, String uid) {
        FileSink<String> sink = FileSink.forRowFormat(new Path(directory), new SimpleStringEncoder<String>("UTF-8"))
                .withBucketAssigner(new BasePathBucketAssigner<>())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(OutputFileConfig.builder()
                        .withPartPrefix("dead-letters")
                        .withPartSuffix(".jsonl")
                        .build())
                .build();
        deadLetters
                .sinkTo(sink)
                .name("Dead letters to " + directory)
                .uid(uid)
                .setParallelism(deadLetters.getParallelism());
    }

    /** Takes the side-channel events out of the source's stream. */
    public static final class Splitter extends ProcessFunction<ChangeEvent, ChangeEvent> {

        private static final long serialVersionUID = 1L;

        @Nullable
        private final OutputTag<String> deadLetters;

        private final OutputTag<SnapshotSignal> snapshotSignals = snapshotSignalTag();

        private transient Counter badRecords;
        private transient Counter schemaChangesIgnored;

        public Splitter(@Nullable OutputTag<String> deadLetters) {
            this.deadLetters = deadLetters;
        }

        @Override
        public void open(Configuration parameters) {
            MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("inlet");
            badRecords = g.counter("numBadRecords");
            schemaChangesIgnored = g.counter("numSchemaChangesIgnored");
        }

        @Override
        public void processElement(ChangeEvent event, Context ctx, Collector<ChangeEvent> out) {
            if (!TABLE_ID.equals(event.tableId())) {
                out.collect(event);
                return;
            }
            String type = event.row().getString(0).toString();
            if (DEAD_LETTER.equals(type)) {
                badRecords.inc();
                if (deadLetters == null) {
                    throw new IllegalStateException("A dead letter reached a source without a dead-letter output.");
                }
                ctx.output(deadLetters, event.row().getString(1).toString());
            } else if (SCHEMA_CHANGE_IGNORED.equals(type)) {
                schemaChangesIgnored.inc();
            } else if (SNAPSHOT_SIGNAL.equals(type)) {
                ctx.output(
                        snapshotSignals,
                        SnapshotSignal.valueOf(event.row().getString(1).toString()));
            }
        }
    }
}
