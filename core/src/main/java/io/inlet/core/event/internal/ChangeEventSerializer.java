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
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Serializes {@link ChangeEvent}s without Kryo. The tables the job was built with (id, schema
 * version, row type) are fixed when the serializer is made; an event of one of them is written as a
 * header byte (row kind, whether it has a source timestamp, the position kind), the table's index in
 * that set, the timestamp, the position and the row's fields (see {@link RowCodec}).
 *
 * <p>Two reserved indexes make the rest of the stream self-describing, so that versions born while
 * the job runs need no registry and savepoints need no new snapshot format: {@link #RUNTIME_VERSION}
 * (the row of a version the serializer was not built with; the table id, version and row type follow
 * the position) and {@link #SCHEMA_CHANGE} (a schema change event; the change follows, no row).
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

    /** The index of a row whose version the serializer was not built with; its type follows. */
    static final int RUNTIME_VERSION = Integer.MAX_VALUE;
    /** The index of a schema change event. */
    static final int SCHEMA_CHANGE = Integer.MAX_VALUE - 1;
    /** Row types remembered per serializer for the runtime path before the caches start over. */
    private static final int MAX_CACHED_TYPES = 1024;

    private final List<TableSchemaEntry> entries;
    private transient RowCodec[] codecs;
    private transient Map<TableId, int[]> indexesByTable;

    // Consecutive events are mostly of the same table: remember the last lookup.
    private transient TableId lastTable;
    private transient int lastVersion;
    private transient int lastIndex;

    // The runtime path, by row type when writing and by its encoding when reading; the last one first.
    private transient Map<RowType, RuntimeType> written;
    private transient Map<ByteBuffer, RuntimeType> read;
    private transient RuntimeType lastWritten;
    private transient RuntimeType lastRead;
    private transient RowType lastCheckedType;
    private transient int lastCheckedIndex;
    private transient TableId lastReadTable;

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
            int[] now = old == null ? new int[1] : Arrays.copyOf(old, old.length + 1);
            now[now.length - 1] = i;
            byTable.put(e.tableId(), now);
        }
        codecs = cs;
        indexesByTable = byTable;
    }

    /** The index of the table at the version among the declared ones, or -1. */
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
        return -1;
    }

    /** The index to write the event's row with: a declared entry's, or {@link #RUNTIME_VERSION}. */
    private int rowIndexOf(ChangeEvent event) {
        int index = indexOf(event.tableId(), event.schemaVersion());
        RowType type = event.rowType().orElse(null);
        if (index >= 0) {
            if (type != null && (type != lastCheckedType || index != lastCheckedIndex)) {
                if (!type.equals(entries.get(index).rowType())) {
                    throw new IllegalStateException("The event "
                            + event
                            + " says its row type is "
                            + type.asSummaryString()
                            + ", but the stream was built with "
                            + entries.get(index)
                            + " for that table and version. A schema change must raise the version.");
                }
                lastCheckedType = type;
                lastCheckedIndex = index;
            }
            return index;
        }
        if (type != null) {
            return RUNTIME_VERSION;
        }
        throw new IllegalStateException("A change event for table "
                + event.tableId()
                + " at schema version "
                + event.schemaVersion()
                + " is not among the tables this stream was declared with: "
                + entries.stream()
                        .map(e -> e.tableId() + " v" + e.schemaVersion())
                        .collect(Collectors.joining(", "))
                + ". A source or transform emitted an event for a table (or version) that it"
                + " did not return among its table descriptors; return it there, or, for a version"
                + " born while the job runs, send its schema change first and say the row's type"
                + " (ChangeEvent#withRowType).");
    }

    private RuntimeType runtimeTypeOf(RowType type) {
        if (lastWritten != null && lastWritten.type == type) {
            return lastWritten;
        }
        if (written == null || written.size() >= MAX_CACHED_TYPES) {
            written = new HashMap<>();
        }
        RuntimeType known = written.computeIfAbsent(type, t -> new RuntimeType(t, TypeTexts.encode(t)));
        lastWritten = known;
        return known;
    }

    private RuntimeType readRuntimeType(DataInputView in) throws IOException {
        byte[] encoded = new byte[VarInts.read(in)];
        in.readFully(encoded);
        if (lastRead != null && Arrays.equals(lastRead.encoded, encoded)) {
            return lastRead;
        }
        if (read == null || read.size() >= MAX_CACHED_TYPES) {
            read = new HashMap<>();
        }
        ByteBuffer key = ByteBuffer.wrap(encoded);
        RuntimeType known = read.get(key);
        if (known == null) {
            LogicalType type = TypeTexts.decode(encoded, Thread.currentThread().getContextClassLoader());
            if (!(type instanceof RowType)) {
                throw new IOException("Corrupt change event: a row type was expected, not " + type);
            }
            known = new RuntimeType((RowType) type, encoded);
            read.put(key, known);
        }
        lastRead = known;
        return known;
    }

    private TableId readTableId(DataInputView in) throws IOException {
        TableId id = SchemaChangeCodec.readTableId(in);
        // Keep one instance per run of events of a table, so the lookup cache works by identity.
        if (id.equals(lastReadTable)) {
            return lastReadTable;
        }
        lastReadTable = id;
        return id;
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
        boolean schemaChange = event.isSchemaChange();
        int index = schemaChange ? SCHEMA_CHANGE : rowIndexOf(event);
        SourcePosition position = event.position();
        boolean explicitOrder =
                position.kind() == SourcePosition.Kind.KAFKA && position.order() != position.offset() + 1;
        int header = (schemaChange ? 0 : event.kind().toByteValue())
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
        if (schemaChange) {
            SchemaChangeCodec.write(event.schemaChange(), out);
            return;
        }
        RowCodec codec;
        if (index == RUNTIME_VERSION) {
            RuntimeType type = runtimeTypeOf(event.rowType().orElseThrow());
            SchemaChangeCodec.writeTableId(event.tableId(), out);
            out.writeInt(event.schemaVersion());
            VarInts.write(type.encoded.length, out);
            out.write(type.encoded);
            codec = type.codec;
        } else {
            codec = codecs[index];
        }
        try {
            codec.write(event.row(), out);
        } catch (IOException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot serialize the row of "
                            + event
                            + " as "
                            + (index == RUNTIME_VERSION
                                    ? event.rowType().orElseThrow().asSummaryString()
                                    : entries.get(index))
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
        if (index >= codecs.length && index != RUNTIME_VERSION && index != SCHEMA_CHANGE) {
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
        if (index == SCHEMA_CHANGE) {
            return ChangeEvent.schemaChange(
                    SchemaChangeCodec.read(in, Thread.currentThread().getContextClassLoader()), ts, position);
        }
        if (index == RUNTIME_VERSION) {
            TableId table = readTableId(in);
            int version = in.readInt();
            RuntimeType type = readRuntimeType(in);
            RowData row = type.codec.read(ROW_KINDS[header & KIND_MASK], in);
            ChangeEvent event = (header & KEY_ONLY) != 0
                    ? ChangeEvent.keyOnly(table, version, row, ts, position)
                    : ChangeEvent.of(table, version, row, ts, position);
            // A version the job was restored with (built in, same type) reads as one of its own.
            int declared = indexOf(table, version);
            return declared >= 0 && entries.get(declared).rowType().equals(type.type)
                    ? event
                    : event.withRowType(type.type);
        }
        RowData row = codecs[index].read(ROW_KINDS[header & KIND_MASK], in);
        TableSchemaEntry entry = entries.get(index);
        return (header & KEY_ONLY) != 0
                ? ChangeEvent.keyOnly(entry.tableId(), entry.schemaVersion(), row, ts, position)
                : ChangeEvent.of(entry.tableId(), entry.schemaVersion(), row, ts, position);
    }

    /** A row type met on the runtime path: its encoding and its codec. */
    private static final class RuntimeType {
        final RowType type;
        final byte[] encoded;
        final RowCodec codec;

        RuntimeType(RowType type, byte[] encoded) {
            this.type = type;
            this.encoded = encoded;
            this.codec = new RowCodec(type);
        }
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
