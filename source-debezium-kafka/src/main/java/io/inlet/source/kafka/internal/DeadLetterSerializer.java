package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;

/**
 * Writes an undecodable record to the dead-letter topic as it was (key and value bytes), with why
 * and where in headers: {@code inlet.error}, {@code inlet.topic}, {@code inlet.partition}, {@code
 * inlet.offset}, {@code inlet.timestamp}.
 */
@Internal
public final class DeadLetterSerializer implements KafkaRecordSerializationSchema<KafkaRawRecord> {

    private static final long serialVersionUID = 1L;

    private final String topic;

    public DeadLetterSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(KafkaRawRecord r, KafkaSinkContext context, Long timestamp) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("inlet.error", utf8(r.error == null ? "" : r.error));
        headers.add("inlet.topic", utf8(r.topic));
        headers.add("inlet.partition", utf8(String.valueOf(r.partition)));
        headers.add("inlet.offset", utf8(String.valueOf(r.offset)));
        headers.add("inlet.timestamp", utf8(String.valueOf(r.timestamp)));
        return new ProducerRecord<>(topic, null, r.timestamp, r.key, r.value, headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
