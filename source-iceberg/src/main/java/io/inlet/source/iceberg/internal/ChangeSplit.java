package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.iceberg.Snapshot;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One data file's part in one snapshot's changes (its epoch): the rows it adds, or the rows it loses.
 * A reader emits them tagged with the epoch (the record timestamp) and {@code +I} for an added row,
 * {@code -D} for a removed one; the keyed pairing turns them into the net change per key.
 *
 * <p>Splits are immutable; a reader's checkpoint holds each with the number of rows it emitted
 * ({@link #offset()}, the file is read again and that many skipped), or marked {@link #finished()}
 * until the enumerator confirms the epoch complete.
 */
@Internal
public final class ChangeSplit implements SourceSplit {

    /** What a split reads. */
    public enum Kind {
        /** A file of the snapshot, read with the snapshot's deletes: its rows are added (and the initial scan). */
        ADDED,
        /** An older file the snapshot's deletes reach: the rows live before them and gone after them are removed. */
        TOUCHED,
        /** A file the snapshot removed whole, read at the parent: all its rows are removed. */
        REMOVED,
        /**
         * An equality delete file of the snapshot that holds whole rows: its rows, the writer's
         * before-images, are removed. The task is the file's format and path, on two lines.
         */
        ROW_DELETES,
        /**
         * As {@link #ADDED}, in an epoch whose splits all add rows (an append, the initial scan): its
         * rows pair with nothing, so they may leave as soon as the epochs before are complete.
         */
        ADDED_ALONE,
        /**
         * A key-only equality delete file of the snapshot, read with {@code before-images} STATE: its
         * keys are removed (rows with the key columns only, tagged {@code -U}); the pairing's state
         * holds their values. The task is the file's format and path, on two lines.
         */
        KEY_DELETES
    }

    /** {@link #sequenceNumber()} of a split restored from version 1, which did not hold it. */
    public static final long UNKNOWN_SEQUENCE_NUMBER = 0L;

    /** {@link #commitMillis()} of a split restored from version 1. */
    public static final long UNKNOWN_COMMIT_MILLIS = Long.MIN_VALUE;

    private final long epoch;
    private final int index;
    private final long snapshotId;
    /** The snapshot's sequence number and commit time, which its changes carry downstream. */
    private final long sequenceNumber;

    private final long commitMillis;
    private final Kind kind;
    /** The file as a scan task (Iceberg's JSON form), with the deletes that apply after the snapshot. */
    private final String task;
    /** For {@link Kind#TOUCHED}: the same file with only the deletes from before the snapshot. */
    @Nullable
    private final String taskBefore;

    private final long offset;
    private final boolean finished;

    private ChangeSplit(
            long epoch,
            int index,
            long snapshotId,
            long sequenceNumber,
            long commitMillis,
            Kind kind,
            String task,
            @Nullable String taskBefore,
            long offset,
            boolean finished) {
        this.epoch = epoch;
        this.index = index;
        this.snapshotId = snapshotId;
        this.sequenceNumber = sequenceNumber;
        this.commitMillis = commitMillis;
        this.kind = kind;
        this.task = task;
        this.taskBefore = taskBefore;
        this.offset = offset;
        this.finished = finished;
    }

    public static ChangeSplit added(long epoch, int index, Commit commit, String task) {
        return of(epoch, index, commit, Kind.ADDED, task, null);
    }

    public static ChangeSplit touched(long epoch, int index, Commit commit, String taskAfter, String taskBefore) {
        return of(epoch, index, commit, Kind.TOUCHED, taskAfter, Objects.requireNonNull(taskBefore));
    }

    public static ChangeSplit removed(long epoch, int index, Commit commit, String taskAtParent) {
        return of(epoch, index, commit, Kind.REMOVED, taskAtParent, null);
    }

    public static ChangeSplit rowDeletes(long epoch, int index, Commit commit, String formatAndPath) {
        return of(epoch, index, commit, Kind.ROW_DELETES, formatAndPath, null);
    }

    public static ChangeSplit keyDeletes(long epoch, int index, Commit commit, String formatAndPath) {
        return of(epoch, index, commit, Kind.KEY_DELETES, formatAndPath, null);
    }

    /** A new split, nothing read yet. */
    private static ChangeSplit of(
            long epoch, int index, Commit commit, Kind kind, String task, @Nullable String taskBefore) {
        return new ChangeSplit(
                epoch,
                index,
                commit.snapshotId,
                commit.sequenceNumber,
                commit.millis,
                kind,
                task,
                taskBefore,
                0,
                false);
    }

    /** The same split, as {@link Kind#ADDED_ALONE}: its epoch removes nothing. */
    public ChangeSplit alone() {
        if (kind != Kind.ADDED) {
            throw new IllegalStateException("Only an added file's split can be alone in its epoch, not " + this);
        }
        return new ChangeSplit(
                epoch, index, snapshotId, sequenceNumber, commitMillis, Kind.ADDED_ALONE, task, null, offset, finished);
    }

    /** The same split, with this many rows already emitted. */
    public ChangeSplit at(long emitted) {
        return new ChangeSplit(
                epoch, index, snapshotId, sequenceNumber, commitMillis, kind, task, taskBefore, emitted, false);
    }

    /** The same split, read to its end. */
    public ChangeSplit done() {
        return new ChangeSplit(
                epoch, index, snapshotId, sequenceNumber, commitMillis, kind, task, taskBefore, offset, true);
    }

    /** The snapshot whose changes a split reads: its id, sequence number and commit time. Immutable. */
    public static final class Commit {
        private final long snapshotId;
        private final long sequenceNumber;
        private final long millis;

        private Commit(long snapshotId, long sequenceNumber, long millis) {
            this.snapshotId = snapshotId;
            this.sequenceNumber = sequenceNumber;
            this.millis = millis;
        }

        public static Commit of(Snapshot snapshot) {
            return new Commit(snapshot.snapshotId(), snapshot.sequenceNumber(), snapshot.timestampMillis());
        }

        public static Commit of(long snapshotId, long sequenceNumber, long millis) {
            return new Commit(snapshotId, sequenceNumber, millis);
        }
    }

    public long epoch() {
        return epoch;
    }

    public long snapshotId() {
        return snapshotId;
    }

    /** The snapshot's sequence number, {@link #UNKNOWN_SEQUENCE_NUMBER} if restored from version 1. */
    public long sequenceNumber() {
        return sequenceNumber;
    }

    /** When the snapshot was committed, epoch milliseconds; {@link #UNKNOWN_COMMIT_MILLIS} from version 1. */
    public long commitMillis() {
        return commitMillis;
    }

    public Kind kind() {
        return kind;
    }

    public String task() {
        return task;
    }

    @Nullable
    public String taskBefore() {
        return taskBefore;
    }

    public long offset() {
        return offset;
    }

    public boolean finished() {
        return finished;
    }

    @Override
    public String splitId() {
        return id(epoch, index);
    }

    static String id(long epoch, int index) {
        return epoch + "-" + index;
    }

    /** The epoch of a split id. */
    static long epochOf(String splitId) {
        return Long.parseLong(splitId.substring(0, splitId.indexOf('-')));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChangeSplit)) {
            return false;
        }
        ChangeSplit s = (ChangeSplit) o;
        return epoch == s.epoch
                && index == s.index
                && snapshotId == s.snapshotId
                && sequenceNumber == s.sequenceNumber
                && commitMillis == s.commitMillis
                && kind == s.kind
                && offset == s.offset
                && finished == s.finished
                && task.equals(s.task)
                && Objects.equals(taskBefore, s.taskBefore);
    }

    @Override
    public int hashCode() {
        return Objects.hash(epoch, index, offset, finished);
    }

    @Override
    public String toString() {
        return "ChangeSplit{" + splitId() + ", snapshot " + snapshotId + ", " + kind
                + (finished ? ", finished" : offset > 0 ? ", at " + offset : "") + "}";
    }

    /**
     * Version 2: epoch, index, snapshot id, sequence number, commit time, kind, offset, finished, then
     * the task JSON(s) as UTF-8 with lengths. Version 1 is the same without sequence number and commit
     * time; it reads with both unknown.
     */
    public static final class Serializer implements SimpleVersionedSerializer<ChangeSplit> {
        public static final Serializer INSTANCE = new Serializer();

        static final int VERSION = 2;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(ChangeSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256 + split.task.length());
            write(split, out);
            return out.getCopyOfBuffer();
        }

        @Override
        public ChangeSplit deserialize(int version, byte[] bytes) throws IOException {
            if (version != 1 && version != 2) {
                throw new IOException("Unknown version " + version + " of an Iceberg change split");
            }
            return read(new DataInputDeserializer(bytes), version);
        }

        static void write(ChangeSplit split, DataOutputSerializer out) throws IOException {
            out.writeLong(split.epoch);
            out.writeInt(split.index);
            out.writeLong(split.snapshotId);
            out.writeLong(split.sequenceNumber);
            out.writeLong(split.commitMillis);
            out.writeByte(split.kind.ordinal());
            out.writeLong(split.offset);
            out.writeBoolean(split.finished);
            // Task JSON can pass writeUTF's 64 KB (many delete files, wide schemas).
            writeString(out, split.task);
            out.writeBoolean(split.taskBefore != null);
            if (split.taskBefore != null) {
                writeString(out, split.taskBefore);
            }
        }

        static ChangeSplit read(DataInputDeserializer in, int version) throws IOException {
            long epoch = in.readLong();
            int index = in.readInt();
            long snapshotId = in.readLong();
            long sequenceNumber = version >= 2 ? in.readLong() : UNKNOWN_SEQUENCE_NUMBER;
            long commitMillis = version >= 2 ? in.readLong() : UNKNOWN_COMMIT_MILLIS;
            Kind kind = Kind.values()[in.readByte()];
            long offset = in.readLong();
            boolean finished = in.readBoolean();
            String task = readString(in);
            String before = in.readBoolean() ? readString(in) : null;
            return new ChangeSplit(
                    epoch, index, snapshotId, sequenceNumber, commitMillis, kind, task, before, offset, finished);
        }

        private static void writeString(DataOutputSerializer out, String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
        }

        private static String readString(DataInputDeserializer in) throws IOException {
            byte[] b = new byte[in.readInt()];
            in.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        }
    }
}
