package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the read of a table stands, as the enumerator checkpoints it: whether the start was resolved,
 * the last snapshot found ({@code null}: none, the read goes from the table's first snapshot), the
 * next epoch number, the snapshots found but not planned yet, and the planned epochs not complete:
 * their splits not handed out, and the ids of their splits not read to the end.
 */
@Internal
public final class ChangelogPosition {

    final boolean started;

    @Nullable
    final Long lastFound;

    final long nextEpoch;
    final List<Unplanned> unplanned;
    final List<OpenEpoch> open;

    ChangelogPosition(
            boolean started,
            @Nullable Long lastFound,
            long nextEpoch,
            List<Unplanned> unplanned,
            List<OpenEpoch> open) {
        this.started = started;
        this.lastFound = lastFound;
        this.nextEpoch = nextEpoch;
        this.unplanned = List.copyOf(unplanned);
        this.open = List.copyOf(open);
    }

    /** A read that has not started. */
    public static ChangelogPosition initial() {
        return new ChangelogPosition(false, null, 1, List.of(), List.of());
    }

    /** A snapshot found, with its epoch; {@code scan}: all its rows (the read's start), not its changes. */
    static final class Unplanned {
        final long epoch;
        final long snapshotId;
        final boolean scan;

        Unplanned(long epoch, long snapshotId, boolean scan) {
            this.epoch = epoch;
            this.snapshotId = snapshotId;
            this.scan = scan;
        }

        @Override
        public String toString() {
            return epoch + ":" + (scan ? "scan of " : "") + snapshotId;
        }
    }

    /** A planned epoch some of whose splits are not read yet. */
    static final class OpenEpoch {
        final long epoch;
        final long snapshotId;
        final List<ChangeSplit> unassigned;
        final Set<String> outstanding;

        OpenEpoch(long epoch, long snapshotId, List<ChangeSplit> unassigned, Set<String> outstanding) {
            this.epoch = epoch;
            this.snapshotId = snapshotId;
            this.unassigned = unassigned;
            this.outstanding = outstanding;
        }

        @Override
        public String toString() {
            return epoch + ":" + snapshotId + " (" + unassigned.size() + " to hand out, " + outstanding.size()
                    + " to read)";
        }
    }

    @Override
    public String toString() {
        return started
                ? "after snapshot " + lastFound + ", next epoch " + nextEpoch + ", unplanned " + unplanned + ", open "
                        + open
                : "not started";
    }

    /**
     * Version 3: version 2 with splits of {@link ChangeSplit.Serializer} version 2; version 2 reads
     * with its splits in version 1. Version 1 held whole snapshots, one at a time; it cannot be
     * restored.
     */
    public static final class Serializer implements SimpleVersionedSerializer<ChangelogPosition> {
        public static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 3;
        }

        @Override
        public byte[] serialize(ChangelogPosition p) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeBoolean(p.started);
            out.writeBoolean(p.lastFound != null);
            out.writeLong(p.lastFound == null ? 0 : p.lastFound);
            out.writeLong(p.nextEpoch);
            out.writeInt(p.unplanned.size());
            for (Unplanned u : p.unplanned) {
                out.writeLong(u.epoch);
                out.writeLong(u.snapshotId);
                out.writeBoolean(u.scan);
            }
            out.writeInt(p.open.size());
            for (OpenEpoch e : p.open) {
                out.writeLong(e.epoch);
                out.writeLong(e.snapshotId);
                out.writeInt(e.unassigned.size());
                for (ChangeSplit s : e.unassigned) {
                    ChangeSplit.Serializer.write(s, out);
                }
                out.writeInt(e.outstanding.size());
                for (String id : e.outstanding) {
                    out.writeUTF(id);
                }
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public ChangelogPosition deserialize(int version, byte[] bytes) throws IOException {
            if (version != 2 && version != 3) {
                throw new IOException("Cannot restore version " + version + " of an Iceberg changelog position"
                        + " (only 2 and 3): it was written by an earlier development build; start the read without"
                        + " that state.");
            }
            int splitVersion = version == 2 ? 1 : ChangeSplit.Serializer.VERSION;
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            boolean started = in.readBoolean();
            boolean hasLast = in.readBoolean();
            long last = in.readLong();
            long nextEpoch = in.readLong();
            int n = in.readInt();
            List<Unplanned> unplanned = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                unplanned.add(new Unplanned(in.readLong(), in.readLong(), in.readBoolean()));
            }
            int m = in.readInt();
            List<OpenEpoch> open = new ArrayList<>(m);
            for (int i = 0; i < m; i++) {
                long epoch = in.readLong();
                long snapshotId = in.readLong();
                int k = in.readInt();
                List<ChangeSplit> unassigned = new ArrayList<>(k);
                for (int j = 0; j < k; j++) {
                    unassigned.add(ChangeSplit.Serializer.read(in, splitVersion));
                }
                int o = in.readInt();
                Set<String> outstanding = new LinkedHashSet<>();
                for (int j = 0; j < o; j++) {
                    outstanding.add(in.readUTF());
                }
                open.add(new OpenEpoch(epoch, snapshotId, unassigned, outstanding));
            }
            return new ChangelogPosition(started, hasLast ? last : null, nextEpoch, unplanned, open);
        }
    }
}
