package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;

/**
 * Where in its source a change was read, where known: a MySQL binlog position or a Kafka record
 * offset. Used for tracing and for reporting bad input precisely. Immutable.
 *
 * <pre>{@code
 * SourcePosition p = SourcePosition.binlog("mysql-bin.000003", 4711L, 0);
 * SourcePosition k = SourcePosition.kafka("dbserver1.inventory.orders", 2, 1_000L);
 * }</pre>
 */
@PublicEvolving
public final class SourcePosition implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The kind of position. */
    @PublicEvolving
    public enum Kind {
        /** Not known, for example a row read in a snapshot. */
        NONE,
        /** A MySQL binlog file, the position of its event and the row inside that event. */
        BINLOG,
        /** A Kafka topic, partition and offset. */
        KAFKA
    }

    private static final SourcePosition NONE = new SourcePosition(Kind.NONE, null, -1L, -1);

    private final Kind kind;
    @Nullable private final String name;
    private final long offset;
    private final int index;

    private SourcePosition(Kind kind, @Nullable String name, long offset, int index) {
        this.kind = kind;
        this.name = name;
        this.offset = offset;
        this.index = index;
    }

    /** No position known. */
    public static SourcePosition none() {
        return NONE;
    }

    /**
     * A binlog position.
     *
     * @param file the binlog file name
     * @param position the position of the binlog event in that file
     * @param row the row inside a multi-row event, from 0
     */
    public static SourcePosition binlog(String file, long position, int row) {
        return new SourcePosition(Kind.BINLOG, Objects.requireNonNull(file, "file"), position, row);
    }

    /** A Kafka record offset. */
    public static SourcePosition kafka(String topic, int partition, long offset) {
        return new SourcePosition(Kind.KAFKA, Objects.requireNonNull(topic, "topic"), offset, partition);
    }

    public Kind kind() {
        return kind;
    }

    /** The binlog file or the Kafka topic; {@code null} for {@link Kind#NONE}. */
    @Nullable
    public String fileOrTopic() {
        return name;
    }

    /** The binlog position or the Kafka offset; -1 for {@link Kind#NONE}. */
    public long offset() {
        return offset;
    }

    /** The row inside the binlog event or the Kafka partition; -1 for {@link Kind#NONE}. */
    public int rowOrPartition() {
        return index;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SourcePosition)) {
            return false;
        }
        SourcePosition that = (SourcePosition) o;
        return kind == that.kind
                && offset == that.offset
                && index == that.index
                && Objects.equals(name, that.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, name, offset, index);
    }

    /** {@code file:position#row}, {@code topic-partition@offset} or {@code none}. */
    @Override
    public String toString() {
        switch (kind) {
            case BINLOG:
                return name + ":" + offset + "#" + index;
            case KAFKA:
                return name + "-" + index + "@" + offset;
            default:
                return "none";
        }
    }
}
