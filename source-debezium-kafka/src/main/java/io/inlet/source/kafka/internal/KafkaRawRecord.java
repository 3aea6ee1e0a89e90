package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * A Kafka record as it came off the broker, before decoding; also a dead letter (with the reason).
 * Immutable, with its own Flink type so that it never goes through Kryo.
 */
@Internal
public final class KafkaRawRecord {

    public final String topic;
    public final int partition;
    public final long offset;
    public final long timestamp;

    @Nullable
    public final byte[] key;

    @Nullable
    public final byte[] value;
    /** Why the record could not be decoded, for a dead letter; null otherwise. */
    @Nullable
    public final String error;

    public KafkaRawRecord(
            String topic,
            int partition,
            long offset,
            long timestamp,
            @Nullable byte[] key,
            @Nullable byte[] value,
            @Nullable String error) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
        this.error = error;
    }

    public KafkaRawRecord withError(String reason) {
        return new KafkaRawRecord(topic, partition, offset, timestamp, key, value, reason);
    }

    /** {@code topic-partition@offset}. */
    public String where() {
        return "topic " + topic + ", partition " + partition + ", offset " + offset;
    }

    public static final TypeInformation<KafkaRawRecord> TYPE = new TypeInfo();

    private static final class TypeInfo extends TypeInformation<KafkaRawRecord> {
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
        public Class<KafkaRawRecord> getTypeClass() {
            return KafkaRawRecord.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<KafkaRawRecord> createSerializer(ExecutionConfig config) {
            return Serializer.INSTANCE;
        }

        @Override
        public String toString() {
            return "KafkaRawRecord";
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof TypeInfo;
        }

        @Override
        public int hashCode() {
            return TypeInfo.class.hashCode();
        }

        @Override
        public boolean canEqual(Object obj) {
            return obj instanceof TypeInfo;
        }
    }

    /** Writes the fields in order; records are immutable, so copies are references. */
    public static final class Serializer extends TypeSerializerSingleton<KafkaRawRecord> {
        private static final long serialVersionUID = 1L;
        static final Serializer INSTANCE = new Serializer();

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public KafkaRawRecord createInstance() {
            return null;
        }

        @Override
        public KafkaRawRecord copy(KafkaRawRecord from) {
            return from;
        }

        @Override
        public KafkaRawRecord copy(KafkaRawRecord from, KafkaRawRecord reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(KafkaRawRecord r, DataOutputView out) throws IOException {
            out.writeUTF(r.topic);
            out.writeInt(r.partition);
            out.writeLong(r.offset);
            out.writeLong(r.timestamp);
            writeBytes(r.key, out);
            writeBytes(r.value, out);
            out.writeBoolean(r.error != null);
            if (r.error != null) {
                out.writeUTF(r.error.length() > 16_000 ? r.error.substring(0, 16_000) : r.error);
            }
        }

        @Override
        public KafkaRawRecord deserialize(DataInputView in) throws IOException {
            String topic = in.readUTF();
            int partition = in.readInt();
            long offset = in.readLong();
            long ts = in.readLong();
            byte[] key = readBytes(in);
            byte[] value = readBytes(in);
            String error = in.readBoolean() ? in.readUTF() : null;
            return new KafkaRawRecord(topic, partition, offset, ts, key, value, error);
        }

        @Override
        public KafkaRawRecord deserialize(KafkaRawRecord reuse, DataInputView in) throws IOException {
            return deserialize(in);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            serialize(deserialize(source), target);
        }

        private static void writeBytes(@Nullable byte[] b, DataOutputView out) throws IOException {
            out.writeInt(b == null ? -1 : b.length);
            if (b != null) {
                out.write(b);
            }
        }

        @Nullable
        private static byte[] readBytes(DataInputView in) throws IOException {
            int n = in.readInt();
            if (n < 0) {
                return null;
            }
            byte[] b = new byte[n];
            in.readFully(b);
            return b;
        }

        @Override
        public TypeSerializerSnapshot<KafkaRawRecord> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** The serializer has no configuration. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<KafkaRawRecord> {
        public Snapshot() {
            super(() -> Serializer.INSTANCE);
        }
    }
}
