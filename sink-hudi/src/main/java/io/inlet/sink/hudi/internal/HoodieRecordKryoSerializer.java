package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.EventTimeAvroPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieOperation;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieRecordGlobalLocation;
import org.apache.hudi.common.model.HoodieRecordLocation;
import org.apache.hudi.common.model.HoodieRecordPayload;
import org.apache.hudi.common.model.OverwriteWithLatestAvroPayload;
import org.apache.hudi.common.util.Option;

import java.io.Serializable;
import java.lang.reflect.Field;

/**
 * Flink's Kryo serializer for the {@link HoodieAvroRecord}s that Hudi's Flink writer sends between
 * its operators (record to bucket assigner to stream writer, both hash-partitioned, so every record
 * is serialized twice). Flink types them as generic {@code HoodieRecord}s and falls back to Kryo's
 * field serializer, which for this generic class rebuilds its field cache on every record and
 * writes every nested class by name: profiled, that was 75 % of the bucket assigner's time and
 * nearly half of the writer's. This one writes what Hudi's own Kryo serialization of the record
 * writes (key, operation, current and new location, payload) and, as Kryo's field serializer did,
 * whether the record is sealed; the nested classes are registered so that Kryo writes small ids
 * instead of names.
 */
@Internal
public final class HoodieRecordKryoSerializer extends Serializer<HoodieAvroRecord<?>> implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final HoodieOperation[] OPERATIONS = HoodieOperation.values();
    private static final Field SEALED;

    static {
        try {
            SEALED = HoodieRecord.class.getDeclaredField("sealed");
            SEALED.setAccessible(true);
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(
                    "This Hudi version's HoodieRecord has no 'sealed' field; the serializer was written for Hudi 0.14");
        }
    }

    /**
     * Registers this serializer and the classes records carry with the job's Kryo. Registration
     * order is fixed; Flink's Kryo snapshot keeps savepoints taken before it readable.
     */
    public static void register(ExecutionConfig config) {
        config.registerTypeWithKryoSerializer(HoodieAvroRecord.class, HoodieRecordKryoSerializer.class);
        // Payloads hold a Hudi Option (DefaultHoodieRecordPayload's event time): a generic class, so
        // Kryo's field serializer would rebuild its fields for every payload, as for the record.
        config.registerTypeWithKryoSerializer(Option.class, OptionSerializer.class);
        config.registerKryoType(HoodieKey.class);
        config.registerKryoType(HoodieRecordLocation.class);
        // Also the bucket assigner's keyed state value: the index state shrinks with it.
        config.registerKryoType(HoodieRecordGlobalLocation.class);
        config.registerKryoType(EventTimeAvroPayload.class);
        config.registerKryoType(DefaultHoodieRecordPayload.class);
        config.registerKryoType(OverwriteWithLatestAvroPayload.class);
    }

    @Override
    public void write(Kryo kryo, Output output, HoodieAvroRecord<?> record) {
        HoodieKey key = record.getKey();
        if (key == null) {
            output.writeBoolean(false);
        } else {
            output.writeBoolean(true);
            output.writeString(key.getRecordKey());
            output.writeString(key.getPartitionPath());
        }
        HoodieOperation op = record.getOperation();
        output.writeByte(op == null ? -1 : op.ordinal());
        kryo.writeClassAndObject(output, record.getCurrentLocation());
        kryo.writeClassAndObject(output, record.getNewLocation());
        kryo.writeClassAndObject(output, payload(record));
        output.writeBoolean(isSealed(record));
    }

    /** Whether the record is sealed: the bucket assigner seals records after setting their location. */
    private static boolean isSealed(HoodieRecord<?> record) {
        try {
            return SEALED.getBoolean(record);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot read HoodieRecord.sealed", e);
        }
    }

    /** Null once deflated after writing, as Hudi's own serialization keeps it. */
    private static Object payload(HoodieAvroRecord<?> record) {
        try {
            return record.getData();
        } catch (IllegalStateException deflated) {
            return null;
        }
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public HoodieAvroRecord<?> read(Kryo kryo, Input input, Class<HoodieAvroRecord<?>> type) {
        HoodieKey key = input.readBoolean() ? new HoodieKey(input.readString(), input.readString()) : null;
        byte op = input.readByte();
        HoodieRecordLocation current = (HoodieRecordLocation) kryo.readClassAndObject(input);
        HoodieRecordLocation next = (HoodieRecordLocation) kryo.readClassAndObject(input);
        Object payload = kryo.readClassAndObject(input);
        HoodieAvroRecord record =
                new HoodieAvroRecord(key, (HoodieRecordPayload) payload, op < 0 ? null : OPERATIONS[op], current, next);
        if (input.readBoolean()) {
            record.seal();
        }
        return record;
    }

    /** What a serialization round trip gives (payloads and locations are not changed once sent, so they are shared). */
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public HoodieAvroRecord<?> copy(Kryo kryo, HoodieAvroRecord<?> original) {
        HoodieKey key = original.getKey();
        HoodieAvroRecord copy = new HoodieAvroRecord(
                key == null ? null : new HoodieKey(key.getRecordKey(), key.getPartitionPath()),
                (HoodieRecordPayload) payload(original),
                original.getOperation(),
                original.getCurrentLocation(),
                original.getNewLocation());
        if (isSealed(original)) {
            copy.seal();
        }
        return copy;
    }

    /** Hudi's {@link Option}: present or not, then the value with its class. */
    public static final class OptionSerializer extends Serializer<Option<?>> implements Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void write(Kryo kryo, Output output, Option<?> option) {
            output.writeBoolean(option.isPresent());
            if (option.isPresent()) {
                kryo.writeClassAndObject(output, option.get());
            }
        }

        @Override
        public Option<?> read(Kryo kryo, Input input, Class<Option<?>> type) {
            return input.readBoolean() ? Option.ofNullable(kryo.readClassAndObject(input)) : Option.empty();
        }

        @Override
        public Option<?> copy(Kryo kryo, Option<?> original) {
            return original; // immutable; its value is not changed once sent
        }
    }
}
