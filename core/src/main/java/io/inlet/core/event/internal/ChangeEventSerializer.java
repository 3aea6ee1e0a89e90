package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Serializes {@link ChangeEvent}s of a known set of tables without Kryo. The tables (id, schema
 * version, row type) are fixed when the serializer is made; an event is written as a header byte
 * (row kind, whether it has a source timestamp, the position kind), the table's index in that set, the
 * timestamp, the position and the row's fields (see {@link RowCodec}).
 *
 * <p>Events are immutable, so {@link #copy(ChangeEvent)} returns its argument.
 */
@Internal
public final class ChangeEventSerializer extends TypeSerializer<ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private static final int KIND_MASK = 0x03;
    private static final int HAS_TIMESTAMP = 0x04;
    private static final int POSITION_SHIFT = 3;
    private static final int POSITION_MASK = 0x03;
    /** A Kafka position whose order is not its offset (the record's own, e.g. Debezium's binlog position). */
    private static final int HAS_ORDER = 0x20;
    /** The row holds only the primary key (ChangeEvent#isKeyOnly). */
    private static final int KEY_ONLY = 0x40;
    /** The position kind is 4 more than the two position bits say (ICEBERG): the kinds outgrew two bits. */
    private static final int MORE_POSITION_KINDS = 0x80;

    private static final SourcePosition.Kind[] POSITION_KINDS = SourcePosition.Kind.values();
    private static final RowKind[] ROW_KINDS = RowKind.values();

    private final List<TableSchemaEntry> entries;
    private transient RowCodec[] codecs;
    private transient Map<TableId, int[]> indexesByTable;

    // Consecutive events are mostly of the same table: remember the last lookup.
    private transient TableId lastTable;
    private transient int lastVersion;
    private transient int lastIndex;

    public ChangeEventSerializer(List<TableSchemaEntry> entries) {
        for (int i = 0; i < entries.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (entries.get(i).sameKey(entries.get(j))) {
                    throw new IllegalArgumentException("Table "
                            + entries.get(i).tableId()
                            + " schema version "
                            + entries.get(i).schemaVersion()
                            + " is declared twice.");
                }
            }
        }
        this.entries = Collections.unmodifiableList(new ArrayList<>(entries));
    }

    public List<TableSchemaEntry> entries() {
        return entries;
    }

    private void init() {
        RowCodec[] cs = new RowCodec[entries.size()];
        Map<TableId, int[]> byTable = new HashMap<>();
        for (int i = 0; i < cs.length; i++) {
            TableSchemaEntry e = entries.get(i);
            cs[i] = new RowCodec(e.rowType());
            int[] old = byTable.get(e.tableId());
            int[] now = old == null ? new int[1] : java.util.Arrays.copyOf(old, old.length + 1);
            now[now.length - 1] = i;
            byTable.put(e.tableId(), now);
        }
        codecs = cs;
        indexesByTable = byTable;
    }

    private int indexOf(TableId table, int version) {
        if (table == lastTable && version == lastVersion) {
            return lastIndex;
        }
        if (codecs == null) {
            init();
        }
        int[] candidates = indexesByTable.get(table);
        if (candidates != null) {
            for (int idx : candidates) {
                if (entries.get(idx).schemaVersion() == version) {
                    lastTable = table;
                    lastVersion = version;
                    lastIndex = idx;
                    return idx;
                }
            }
        }
        throw new IllegalStateException("A change event for table "
                + table
                + " at schema version "
                + version
                + " is not among the tables this stream was declared with: "
                + entries.stream()
                        .map(e -> e.tableId() + " v" + e.schemaVersion())
                        .collect(Collectors.joining(", "))
                + ". A source or transform emitted an event for a table (or version) that it"
                + " did not return among its table descriptors; return it there.");
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<ChangeEvent> duplicate() {
        // Always a new instance: the lookup cache and nested serializers are per thread.
        return new ChangeEventSerializer(entries);
    }

    @Override
    public ChangeEvent createInstance() {
        return null;
    }

    @Override
    public ChangeEvent copy(ChangeEvent from) {
        return from;
    }

    @Override
    public ChangeEvent copy(ChangeEvent from, ChangeEvent reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ChangeEvent event, DataOutputView out) throws IOException {
        int index = indexOf(event.tableId(), event.schemaVersion());
        SourcePosition position = event.position();
        boolean explicitOrder =
                position.kind() == SourcePosition.Kind.KAFKA && position.order() != position.offset() + 1;
        int header = event.kind().toByteValue()
                | (event.hasSourceTimestamp() ? HAS_TIMESTAMP : 0)
                | ((position.kind().ordinal() & POSITION_MASK) << POSITION_SHIFT)
                | (position.kind().ordinal() > POSITION_MASK ? MORE_POSITION_KINDS : 0)
                | (explicitOrder ? HAS_ORDER : 0)
                | (event.isKeyOnly() ? KEY_ONLY : 0);
        out.writeByte(header);
        VarInts.write(index, out);
        if (event.hasSourceTimestamp()) {
            out.writeLong(event.sourceTimestamp());
        }
        switch (position.kind()) {
            case BINLOG:
            case KAFKA:
            case SNAPSHOT:
                out.writeUTF(position.fileOrTopic());
                out.writeLong(position.offset());
                out.writeInt(position.rowOrPartition());
                break;
            case ICEBERG:
                out.writeUTF(position.fileOrTopic());
                out.writeLong(position.offset());
                out.writeLong(position.order());
                break;
            default:
                break;
        }
        if (explicitOrder) {
            out.writeLong(position.order());
        }
        try {
            codecs[index].write(event.row(), out);
        } catch (IOException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot serialize the row of "
                            + event
                            + " as "
                            + entries.get(index)
                            + ": "
                            + e
                            + ". The row's field values must be Flink's internal data structures"
                            + " (StringData, DecimalData, TimestampData, ...) matching the column types.",
                    e);
        }
    }

    @Override
    public ChangeEvent deserialize(DataInputView in) throws IOException {
        if (codecs == null) {
            init();
        }
        int header = in.readUnsignedByte();
        int index = VarInts.read(in);
        if (index >= codecs.length) {
            throw new IOException(
                    "Corrupt change event: table index " + index + " but only " + codecs.length + " tables are known.");
        }
        long ts = (header & HAS_TIMESTAMP) != 0 ? in.readLong() : ChangeEvent.UNKNOWN_TIMESTAMP;
        SourcePosition position;
        // The format of earlier versions is this one without SNAPSHOT positions, HAS_ORDER and KEY_ONLY: it reads as
        // is.
        int positionKind = ((header >>> POSITION_SHIFT) & POSITION_MASK)
                + ((header & MORE_POSITION_KINDS) != 0 ? POSITION_MASK + 1 : 0);
        if (positionKind >= POSITION_KINDS.length) {
            throw new IOException("Corrupt change event: position kind " + positionKind);
        }
        switch (POSITION_KINDS[positionKind]) {
            case BINLOG: {
                String file = in.readUTF();
                long offset = in.readLong();
                position = SourcePosition.binlog(file, offset, in.readInt());
                break;
            }
            case KAFKA: {
                String topic = in.readUTF();
                long offset = in.readLong();
                int partition = in.readInt();
                position = (header & HAS_ORDER) != 0
                        ? SourcePosition.kafka(topic, partition, offset, in.readLong())
                        : SourcePosition.kafka(topic, partition, offset);
                break;
            }
            case SNAPSHOT: {
                String file = in.readUTF();
                long offset = in.readLong();
                int row = in.readInt();
                position = row < 0 ? SourcePosition.snapshot(file, offset) : SourcePosition.snapshot(file, offset, row);
                break;
            }
            case ICEBERG: {
                String table = in.readUTF();
                long snapshotId = in.readLong();
                position = SourcePosition.iceberg(table, snapshotId, in.readLong());
                break;
            }
            default:
                position = SourcePosition.none();
        }
        RowData row = codecs[index].read(ROW_KINDS[header & KIND_MASK], in);
        TableSchemaEntry entry = entries.get(index);
        return (header & KEY_ONLY) != 0
                ? ChangeEvent.keyOnly(entry.tableId(), entry.schemaVersion(), row, ts, position)
                : ChangeEvent.of(entry.tableId(), entry.schemaVersion(), row, ts, position);
    }

    @Override
    public ChangeEvent deserialize(ChangeEvent reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ChangeEventSerializer && entries.equals(((ChangeEventSerializer) obj).entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<ChangeEvent> snapshotConfiguration() {
        return new ChangeEventSerializerSnapshot(entries);
    }

    @Override
    public String toString() {
        return "ChangeEventSerializer" + entries;
    }
}
