package io.inlet.source.iceberg.internal;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The split and the enumerator's position survive their serializers, and refuse versions they do not know. */
class SerializersTest {

    @Test
    void aSplitRoundTrips() throws Exception {
        for (SnapshotSplit split : List.of(SnapshotSplit.changes(42L), SnapshotSplit.scan(-7L))) {
            SnapshotSplit.Serializer s = SnapshotSplit.Serializer.INSTANCE;
            SnapshotSplit back = s.deserialize(s.getVersion(), s.serialize(split));
            assertThat(back).isEqualTo(split);
            assertThat(back.initial()).isEqualTo(split.initial());
            assertThat(back.splitId()).isEqualTo(split.splitId());
        }
        assertThatThrownBy(() -> SnapshotSplit.Serializer.INSTANCE.deserialize(9, new byte[9]))
                .hasMessageContaining("version 9");
    }

    @Test
    void aPositionRoundTripsWithItsQueuedSplitsInOrder() throws Exception {
        ChangelogPosition.Serializer s = ChangelogPosition.Serializer.INSTANCE;
        ChangelogPosition p = new ChangelogPosition(
                true, 5L, List.of(SnapshotSplit.scan(5L), SnapshotSplit.changes(6L), SnapshotSplit.changes(7L)));
        ChangelogPosition back = s.deserialize(s.getVersion(), s.serialize(p));
        assertThat(back.started).isTrue();
        assertThat(back.lastPlanned).isEqualTo(5L);
        assertThat(back.queued).containsExactlyElementsOf(p.queued);

        ChangelogPosition none = s.deserialize(s.getVersion(), s.serialize(ChangelogPosition.initial()));
        assertThat(none.started).isFalse();
        assertThat(none.lastPlanned).isNull();
        assertThat(none.queued).isEmpty();
    }
}
