package io.inlet.source.iceberg.internal;

import io.inlet.source.iceberg.internal.ChangelogPosition.OpenEpoch;
import io.inlet.source.iceberg.internal.ChangelogPosition.Unplanned;

import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The split and the enumerator's position survive their serializers, and refuse versions they do not know. */
class SerializersTest {

    /** Larger than writeUTF's 64 KB, as the JSON of a task with many delete files gets. */
    private static final String LARGE = "{\"x\":\"" + "é".repeat(40_000) + "\"}";

    @Test
    void splitsRoundTripWithTheirProgress() throws Exception {
        ChangeSplit.Serializer s = ChangeSplit.Serializer.INSTANCE;
        List<ChangeSplit> splits = List.of(
                ChangeSplit.added(3, 0, ChangeSplit.Commit.of(42L, 3L, 1_700_000_000_000L), "{\"a\":1}"),
                ChangeSplit.touched(3, 1, ChangeSplit.Commit.of(42L, 3L, 1_700_000_000_000L), LARGE, "{\"b\":1}")
                        .at(17),
                ChangeSplit.removed(4, 0, ChangeSplit.Commit.of(-7L, 4L, 1_700_000_000_001L), "{}")
                        .done());
        for (ChangeSplit split : splits) {
            ChangeSplit back = s.deserialize(s.getVersion(), s.serialize(split));
            assertThat(back).isEqualTo(split);
            assertThat(back.splitId()).isEqualTo(split.splitId());
            assertThat(back.kind()).isEqualTo(split.kind());
            assertThat(back.offset()).isEqualTo(split.offset());
            assertThat(back.finished()).isEqualTo(split.finished());
            assertThat(back.taskBefore()).isEqualTo(split.taskBefore());
            assertThat(back.sequenceNumber()).isEqualTo(split.sequenceNumber());
            assertThat(back.commitMillis()).isEqualTo(split.commitMillis());
            assertThat(ChangeSplit.epochOf(back.splitId())).isEqualTo(split.epoch());
        }
        assertThatThrownBy(() -> s.deserialize(9, new byte[9])).hasMessageContaining("version 9");
    }

    @Test
    void aVersionOneSplitReadsWithItsCommitUnknown() throws Exception {
        DataOutputSerializer v1 = new DataOutputSerializer(64);
        v1.writeLong(3);
        v1.writeInt(1);
        v1.writeLong(42L);
        v1.writeByte(ChangeSplit.Kind.REMOVED.ordinal());
        v1.writeLong(5);
        v1.writeBoolean(false);
        byte[] task = "{}".getBytes(StandardCharsets.UTF_8);
        v1.writeInt(task.length);
        v1.write(task);
        v1.writeBoolean(false);
        ChangeSplit back = ChangeSplit.Serializer.INSTANCE.deserialize(1, v1.getCopyOfBuffer());
        assertThat(back.splitId()).isEqualTo("3-1");
        assertThat(back.snapshotId()).isEqualTo(42L);
        assertThat(back.kind()).isEqualTo(ChangeSplit.Kind.REMOVED);
        assertThat(back.offset()).isEqualTo(5);
        assertThat(back.sequenceNumber()).isEqualTo(ChangeSplit.UNKNOWN_SEQUENCE_NUMBER);
        assertThat(back.commitMillis()).isEqualTo(ChangeSplit.UNKNOWN_COMMIT_MILLIS);
    }

    @Test
    void aPositionRoundTripsWithItsEpochsInOrder() throws Exception {
        ChangelogPosition.Serializer s = ChangelogPosition.Serializer.INSTANCE;
        ChangeSplit left = ChangeSplit.added(5, 2, ChangeSplit.Commit.of(50L, 9L, 1L), "{\"t\":2}");
        ChangelogPosition p = new ChangelogPosition(
                true,
                7L,
                8,
                List.of(new Unplanned(6, 60L, false), new Unplanned(7, 70L, false)),
                List.of(new OpenEpoch(5, 50L, List.of(left), Set.of("5-1", "5-2"))));
        ChangelogPosition back = s.deserialize(s.getVersion(), s.serialize(p));
        assertThat(back.started).isTrue();
        assertThat(back.lastFound).isEqualTo(7L);
        assertThat(back.nextEpoch).isEqualTo(8);
        assertThat(back.unplanned).extracting(u -> u.epoch + "/" + u.snapshotId).containsExactly("6/60", "7/70");
        assertThat(back.open).hasSize(1);
        assertThat(back.open.get(0).unassigned).containsExactly(left);
        assertThat(back.open.get(0).outstanding).containsExactlyInAnyOrder("5-1", "5-2");

        ChangelogPosition none = s.deserialize(s.getVersion(), s.serialize(ChangelogPosition.initial()));
        assertThat(none.started).isFalse();
        assertThat(none.lastFound).isNull();
        assertThat(none.open).isEmpty();
        assertThatThrownBy(() -> s.deserialize(1, new byte[16])).hasMessageContaining("version 1");
    }
}
