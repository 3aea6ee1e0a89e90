package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Hands Kafka records on as they are; decoding happens in the chained {@link DebeziumDecodeFunction}. */
@Internal
public final class RawRecordDeserializer implements KafkaRecordDeserializationSchema<KafkaRawRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<KafkaRawRecord> out) {
        out.collect(new KafkaRawRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value(), null));
    }

    @Override
    public TypeInformation<KafkaRawRecord> getProducedType() {
        return KafkaRawRecord.TYPE;
    }
}
