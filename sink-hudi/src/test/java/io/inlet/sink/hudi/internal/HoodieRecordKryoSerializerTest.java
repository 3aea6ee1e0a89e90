package io.inlet.sink.hudi.internal;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.hudi.common.model.EventTimeAvroPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieOperation;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieRecordGlobalLocation;
import org.apache.hudi.common.model.HoodieRecordLocation;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/** Hudi records through Flink's Kryo with the serializer registered, against Kryo's default. */
class HoodieRecordKryoSerializerTest {

    private static KryoSerializer<HoodieRecord> kryo(boolean registered) {
        ExecutionConfig config = new ExecutionConfig();
        if (registered) {
            HoodieRecordKryoSerializer.register(config);
        }
        return new KryoSerializer<>(HoodieRecord.class, config);
    }

    private static byte[] bytes(TypeSerializer<HoodieRecord> s, HoodieRecord r) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        s.serialize(r, out);
        return out.getCopyOfBuffer();
    }

    private static HoodieRecord roundTrip(TypeSerializer<HoodieRecord> s, HoodieRecord r) throws IOException {
        return s.deserialize(new DataInputDeserializer(bytes(s, r)));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static HoodieRecord record(HoodieOperation op, HoodieRecordLocation current, HoodieRecordLocation next) {
        // Option.empty(): a delete's payload; its ordering value still travels.
        EventTimeAvroPayload payload = new EventTimeAvroPayload(Option.empty());
        return new HoodieAvroRecord(new HoodieKey("id:42", "2025/01/01"), payload, op, current, next);
    }

    @Test
    void aRecordComesBackAsKryosDefaultGivesIt() throws IOException {
        HoodieRecord[] records = {
            record(HoodieOperation.INSERT, null, null),
            record(
                    HoodieOperation.UPDATE_AFTER,
                    new HoodieRecordGlobalLocation("2025/01/01", "20250101000000000", "file-1"),
                    null),
            record(
                    null,
                    new HoodieRecordLocation("20250101000000000", "file-1"),
                    new HoodieRecordLocation("20250102000000000", "file-2")),
        };
        records[1].seal(); // as the bucket assigner sends them
        for (HoodieRecord r : records) {
            HoodieRecord ours = roundTrip(kryo(true), r);
            HoodieRecord theirs = roundTrip(kryo(false), r);
            assertThat(ours).isInstanceOf(HoodieAvroRecord.class);
            assertThat(ours).usingRecursiveComparison().isEqualTo(theirs);
            assertThat(ours.getKey()).isEqualTo(r.getKey());
            assertThat(ours.getOperation()).isEqualTo(r.getOperation());
            assertThat(ours.getCurrentLocation()).isEqualTo(r.getCurrentLocation());
            assertThat(ours.getNewLocation()).isEqualTo(r.getNewLocation());
            assertThat(ours.getData()).usingRecursiveComparison().isEqualTo(r.getData());
        }
    }

    @Test
    void aCopyIsEqualAndIndependentOfTheKey() {
        HoodieRecord r = record(HoodieOperation.DELETE, new HoodieRecordLocation("20250101000000000", "file-1"), null);
        HoodieRecord copy = kryo(true).copy(r);
        assertThat(copy).usingRecursiveComparison().isEqualTo(r);
        r.seal();
        assertThat(kryo(true).copy(r)).usingRecursiveComparison().isEqualTo(r);
        assertThat(copy.getKey()).isNotSameAs(r.getKey());
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void hudiOptionsComeBackWithTheirValue() throws IOException {
        ExecutionConfig config = new ExecutionConfig();
        HoodieRecordKryoSerializer.register(config);
        KryoSerializer<Option> s = new KryoSerializer<>(Option.class, config);
        for (Option o : new Option[] {Option.empty(), Option.of(1_700_000_000_000L), Option.of("2025-01-01")}) {
            DataOutputSerializer out = new DataOutputSerializer(64);
            s.serialize(o, out);
            assertThat(s.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                    .isEqualTo(o);
            assertThat(s.copy(o)).isEqualTo(o);
        }
    }

    @Test
    void writesFarFewerBytesThanKryosDefault() throws IOException {
        HoodieRecord r = record(
                HoodieOperation.UPDATE_AFTER,
                new HoodieRecordGlobalLocation("2025/01/01", "20250101000000000", "file-1"),
                null);
        // Kryo's default writes every nested class by name, for every record.
        assertThat(bytes(kryo(true), r).length).isLessThan(bytes(kryo(false), r).length / 2);
    }
}
