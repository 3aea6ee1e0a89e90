package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;

/**
 * One snapshot of the table to read: its changes, or with {@link #initial()} all its rows as inserts
 * (the table scan a read starts with). A reader emits a split's records in one step, so a checkpoint
 * finds a split either still to read or read entirely.
 */
@Internal
public final class SnapshotSplit implements SourceSplit {

    private final long snapshotId;
    private final boolean initial;

    private SnapshotSplit(long snapshotId, boolean initial) {
        this.snapshotId = snapshotId;
        this.initial = initial;
    }

    /** The changes the snapshot made. */
    public static SnapshotSplit changes(long snapshotId) {
        return new SnapshotSplit(snapshotId, false);
    }

    /** Every row of the table at the snapshot, as inserts. */
    public static SnapshotSplit scan(long snapshotId) {
        return new SnapshotSplit(snapshotId, true);
    }

    public long snapshotId() {
        return snapshotId;
    }

    public boolean initial() {
        return initial;
    }

    @Override
    public String splitId() {
        return (initial ? "scan-" : "changes-") + snapshotId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SnapshotSplit
                && ((SnapshotSplit) o).snapshotId == snapshotId
                && ((SnapshotSplit) o).initial == initial;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(snapshotId) * 31 + (initial ? 1 : 0);
    }

    @Override
    public String toString() {
        return splitId();
    }

    /** Version 1: the snapshot id and the kind. */
    public static final class Serializer implements SimpleVersionedSerializer<SnapshotSplit> {
        public static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(SnapshotSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(9);
            out.writeLong(split.snapshotId);
            out.writeBoolean(split.initial);
            return out.getCopyOfBuffer();
        }

        @Override
        public SnapshotSplit deserialize(int version, byte[] bytes) throws IOException {
            if (version != 1) {
                throw new IOException("Unknown version " + version + " of an Iceberg snapshot split");
            }
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            return new SnapshotSplit(in.readLong(), in.readBoolean());
        }
    }
}
