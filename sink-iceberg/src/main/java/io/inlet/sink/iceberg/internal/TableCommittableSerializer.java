package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.io.WriteResult;

import java.io.IOException;

/**
 * Ships {@link TableCommittable}s from the writers to the committer without Kryo: the table and
 * checkpoint and part as fields, the {@link WriteResult} (Iceberg's data and delete files, which Iceberg makes
 * Java-serializable and nothing else) as a length-prefixed Java serialization. A leading version
 * byte leaves room for another encoding.
 */
@Internal
public final class TableCommittableSerializer extends TypeSerializerSingleton<TableCommittable> {

    private static final long serialVersionUID = 1L;
    private static final byte VERSION = 1;

    public static final TableCommittableSerializer INSTANCE = new TableCommittableSerializer();

    /** The type information the writer's output is declared with. */
    public static final TypeInformation<TableCommittable> TYPE = new TypeInfo();

    private TableCommittableSerializer() {}

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TableCommittable createInstance() {
        return null;
    }

    @Override
    public TableCommittable copy(TableCommittable from) {
        return from;
    }

    @Override
    public TableCommittable copy(TableCommittable from, TableCommittable reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(TableCommittable c, DataOutputView out) throws IOException {
        out.writeByte(VERSION);
        out.writeUTF(c.table());
        out.writeLong(c.checkpointId());
        out.writeInt(c.part());
        byte[] result = InstantiationUtil.serializeObject(c.result());
        out.writeInt(result.length);
        out.write(result);
    }

    @Override
    public TableCommittable deserialize(DataInputView in) throws IOException {
        byte version = in.readByte();
        if (version != VERSION) {
            throw new IOException("Unknown encoding " + version + " of a TableCommittable; this Inlet reads " + VERSION
                    + ". Writer and committer must run the same Inlet version.");
        }
        String table = in.readUTF();
        long checkpointId = in.readLong();
        int part = in.readInt();
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        try {
            WriteResult result = InstantiationUtil.deserializeObject(
                    bytes, Thread.currentThread().getContextClassLoader());
            return TableCommittable.of(table, checkpointId, part, result);
        } catch (ClassNotFoundException e) {
            throw new IOException("Iceberg's classes are missing where the committer runs", e);
        }
    }

    @Override
    public TableCommittable deserialize(TableCommittable reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        out.writeByte(in.readByte());
        out.writeUTF(in.readUTF());
        out.writeLong(in.readLong());
        out.writeInt(in.readInt());
        int length = in.readInt();
        out.writeInt(length);
        out.write(in, length);
    }

    @Override
    public TypeSerializerSnapshot<TableCommittable> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer's snapshot: it has no configuration. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<TableCommittable> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }

    private static final class TypeInfo extends TypeInformation<TableCommittable> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isBasicType() {
            return false;
        }

        @Override
        public boolean isTupleType() {
            return false;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public int getTotalFields() {
            return 1;
        }

        @Override
        public Class<TableCommittable> getTypeClass() {
            return TableCommittable.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<TableCommittable> createSerializer(ExecutionConfig config) {
            return INSTANCE;
        }

        @Override
        public String toString() {
            return "TableCommittable";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TypeInfo;
        }

        @Override
        public int hashCode() {
            return TypeInfo.class.hashCode();
        }

        @Override
        public boolean canEqual(Object o) {
            return o instanceof TypeInfo;
        }
    }
}
