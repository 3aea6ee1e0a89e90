package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the read of a table stands, as the enumerator checkpoints it: whether the start was resolved,
 * the last snapshot turned into a split ({@code null}: none, the read goes from the table's first
 * snapshot), and the splits not handed to the reader yet, in order.
 */
@Internal
public final class ChangelogPosition {

    final boolean started;
    final Long lastPlanned;
    final List<SnapshotSplit> queued;

    ChangelogPosition(boolean started, Long lastPlanned, List<SnapshotSplit> queued) {
        this.started = started;
        this.lastPlanned = lastPlanned;
        this.queued = List.copyOf(queued);
    }

    /** A read that has not started. */
    public static ChangelogPosition initial() {
        return new ChangelogPosition(false, null, List.of());
    }

    @Override
    public String toString() {
        return started ? "after snapshot " + lastPlanned + ", queued " + queued : "not started";
    }

    /** Version 1. */
    public static final class Serializer implements SimpleVersionedSerializer<ChangelogPosition> {
        public static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(ChangelogPosition p) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeBoolean(p.started);
            out.writeBoolean(p.lastPlanned != null);
            out.writeLong(p.lastPlanned == null ? 0 : p.lastPlanned);
            out.writeInt(p.queued.size());
            for (SnapshotSplit s : p.queued) {
                byte[] split = SnapshotSplit.Serializer.INSTANCE.serialize(s);
                out.writeInt(split.length);
                out.write(split);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public ChangelogPosition deserialize(int version, byte[] bytes) throws IOException {
            if (version != 1) {
                throw new IOException("Unknown version " + version + " of an Iceberg changelog position");
            }
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            boolean started = in.readBoolean();
            boolean hasLast = in.readBoolean();
            long last = in.readLong();
            int n = in.readInt();
            List<SnapshotSplit> queued = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] split = new byte[in.readInt()];
                in.readFully(split);
                queued.add(SnapshotSplit.Serializer.INSTANCE.deserialize(
                        SnapshotSplit.Serializer.INSTANCE.getVersion(), split));
            }
            return new ChangelogPosition(started, hasLast ? last : null, queued);
        }
    }
}
