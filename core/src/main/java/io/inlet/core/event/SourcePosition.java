package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;

/**
 * Where in its source a change was read: a MySQL binlog position, a snapshot taken at a binlog
 * position, a Kafka record offset, or the Iceberg snapshot that made the change. Used to report bad
 * input precisely, and to order the versions of a row ({@link #order()}): sinks that keep the
 * latest version of each row by an ordering value (Hudi's precombine field) compare these.
 * Immutable.
 *
 * <pre>{@code
 * SourcePosition p = SourcePosition.binlog("mysql-bin.000003", 4711L, 0);
 * SourcePosition s = SourcePosition.snapshot("mysql-bin.000003", 4096L);
 * SourcePosition k = SourcePosition.kafka("dbserver1.inventory.orders", 2, 1_000L);
 * SourcePosition i = SourcePosition.iceberg("shop.orders", 5_871_213_771_204_211L, 42L);
 * }</pre>
 */
@PublicEvolving
public final class SourcePosition implements Serializable {

    private static final long serialVersionUID = 2L;

    /** The kind of position. */
    @PublicEvolving
    public enum Kind {
        /** Not known. */
        NONE,
        /** A MySQL binlog file, the position of its event and the row inside that event. */
        BINLOG,
        /** A Kafka topic, partition and offset. */
        KAFKA,
        /**
         * A row read in a snapshot: the binlog file and position the snapshot's rows are no older
         * than, and the row inside that binlog event when the row came from the binlog while the
         * snapshot was read (-1 otherwise).
         */
        SNAPSHOT,
        /**
         * An Iceberg table's snapshot: the table, the snapshot id and, as the order, the snapshot's
         * sequence number (which grows with every commit of the table).
         */
        ICEBERG
    }

    /** {@link #order()} when nothing is known about the order. */
    public static final long UNKNOWN_ORDER = 0L;

    private static final SourcePosition NONE = new SourcePosition(Kind.NONE, null, -1L, -1, UNKNOWN_ORDER);

    private final Kind kind;

    @Nullable
    private final String name;

    private final long offset;
    private final int index;
    private final long order;

    private SourcePosition(Kind kind, @Nullable String name, long offset, int index, long order) {
        this.kind = kind;
        this.name = name;
        this.offset = offset;
        this.index = index;
        this.order = order;
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
        return new SourcePosition(
                Kind.BINLOG, Objects.requireNonNull(file, "file"), position, row, binlogOrder(file, position, row));
    }

    /**
     * A row read in a snapshot that saw every change up to this binlog position: it orders after
     * every change before the position and before every change from it on.
     */
    public static SourcePosition snapshot(String binlogFile, long binlogPosition) {
        return new SourcePosition(
                Kind.SNAPSHOT,
                Objects.requireNonNull(binlogFile, "binlogFile"),
                binlogPosition,
                -1,
                binlogOrder(binlogFile, binlogPosition, 0) - 1);
    }

    /**
     * A row a snapshot took from the binlog while it was read (a change made during the snapshot):
     * it orders as that binlog row.
     */
    public static SourcePosition snapshot(String binlogFile, long binlogPosition, int row) {
        if (row < 0) {
            throw new IllegalArgumentException("A binlog row is 0 or more, was " + row);
        }
        return new SourcePosition(
                Kind.SNAPSHOT,
                Objects.requireNonNull(binlogFile, "binlogFile"),
                binlogPosition,
                row,
                binlogOrder(binlogFile, binlogPosition, row));
    }

    /** A Kafka record offset, ordered by its offset (within its partition). */
    public static SourcePosition kafka(String topic, int partition, long offset) {
        return new SourcePosition(Kind.KAFKA, Objects.requireNonNull(topic, "topic"), offset, partition, offset + 1);
    }

    /**
     * A Kafka record offset, ordered by a value the record itself carries (for Debezium records, the
     * position of the change in the database's log), so that a record delivered twice orders as the
     * change it holds.
     */
    public static SourcePosition kafka(String topic, int partition, long offset, long order) {
        return new SourcePosition(Kind.KAFKA, Objects.requireNonNull(topic, "topic"), offset, partition, order);
    }

    /**
     * The Iceberg snapshot that made a change, ordered by its sequence number: a key changes at most
     * once per snapshot in a changelog read, so later snapshots order later.
     *
     * @param table the table, as {@code namespace.table}
     * @param snapshotId the snapshot's id
     * @param sequenceNumber the snapshot's data sequence number, 1 or more
     */
    public static SourcePosition iceberg(String table, long snapshotId, long sequenceNumber) {
        return new SourcePosition(Kind.ICEBERG, Objects.requireNonNull(table, "table"), snapshotId, -1, sequenceNumber);
    }

    /**
     * One comparable value for a MySQL binlog row: the file's sequence number (the digits after its
     * last dot) in the high 31 bits, then position plus row. A rows event holds fewer rows than it has
     * bytes, so position plus row stays below the next event's position: values are unique and grow
     * with the binlog. Positions are 32-bit in MySQL and MariaDB binlogs. After a binlog reset
     * ({@code RESET MASTER}) numbering starts again, and the values with it.
     */
    public static long binlogOrder(String file, long position, int row) {
        long sequence = 0;
        int dot = file.lastIndexOf('.');
        if (dot >= 0 && dot + 1 < file.length()) {
            try {
                sequence = Long.parseLong(file.substring(dot + 1));
            } catch (NumberFormatException e) {
                sequence = 0;
            }
        }
        long low = Math.max(0, position) + Math.max(0, row);
        return ((sequence & 0x7FFF_FFFFL) << 32) + (low & 0xFFFF_FFFFL);
    }

    public Kind kind() {
        return kind;
    }

    /** The binlog file, the Kafka topic or the Iceberg table; {@code null} for {@link Kind#NONE}. */
    @Nullable
    public String fileOrTopic() {
        return name;
    }

    /** The binlog position, the Kafka offset or the Iceberg snapshot id; -1 for {@link Kind#NONE}. */
    public long offset() {
        return offset;
    }

    /** The row inside the binlog event or the Kafka partition; -1 for {@link Kind#NONE} and Iceberg. */
    public int rowOrPartition() {
        return index;
    }

    /**
     * Orders the versions of one row: a later change of the row has a larger value. Comparable only
     * between changes of the same table from the same source; {@link #UNKNOWN_ORDER} when the
     * position is not known.
     */
    public long order() {
        return order;
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
                && order == that.order
                && Objects.equals(name, that.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, name, offset, index, order);
    }

    /**
     * {@code file:position#row}, {@code snapshot@file:position}, {@code topic-partition@offset}, {@code
     * iceberg:table@snapshot-id} or {@code none}.
     */
    @Override
    public String toString() {
        switch (kind) {
            case BINLOG:
                return name + ":" + offset + "#" + index;
            case SNAPSHOT:
                return "snapshot@" + name + ":" + offset + (index >= 0 ? "#" + index : "");
            case KAFKA:
                return name + "-" + index + "@" + offset;
            case ICEBERG:
                return "iceberg:" + name + "@" + offset;
            default:
                return "none";
        }
    }
}
