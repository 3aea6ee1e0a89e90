package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableDescriptor;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Decodes Debezium envelopes in the Confluent wire format (magic byte 0, a 4-byte schema id, Avro
 * binary) into change events: {@code c} and {@code r} to {@code +I}, {@code u} to {@code -U}/{@code
 * +U}, {@code d} to {@code -D}; tombstones are skipped and counted. A record that cannot be decoded
 * fails the job naming topic, partition and offset, or goes to the dead-letter output with the
 * reason. A registry that cannot be reached fails the job (it is no fault of the record; a restart
 * retries).
 */
@Internal
public final class DebeziumDecodeFunction extends ProcessFunction<KafkaRawRecord, ChangeEvent> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumDecodeFunction.class);

    private final RegistrySettings registry;
    private final HashMap<String, TableDescriptor> tablesByTopic;
    @Nullable private final OutputTag<KafkaRawRecord> deadLetters;

    private transient SchemaRegistryClient client;
    private transient Map<String, Map<Integer, EnvelopeDecoder>> decoders;
    private transient BinaryDecoder decoder;
    private transient EnvelopeDecoder.Envelope envelope;
    private transient Counter tombstones;
    private transient Counter badRecords;
    private transient Counter schemaChanges;

    public DebeziumDecodeFunction(
            RegistrySettings registry, Map<String, TableDescriptor> tablesByTopic, @Nullable OutputTag<KafkaRawRecord> deadLetters) {
        this.registry = registry;
        this.tablesByTopic = new HashMap<>(tablesByTopic);
        this.deadLetters = deadLetters;
    }

    @Override
    public void open(Configuration parameters) {
        client = new SchemaRegistryClient(registry);
        decoders = new HashMap<>();
        envelope = new EnvelopeDecoder.Envelope();
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("inlet");
        tombstones = g.counter("numTombstonesSkipped");
        badRecords = g.counter("numBadRecords");
        schemaChanges = g.counter("numSchemaChangesReported");
    }

    /** A record that cannot be decoded; its message is the reason. */
    private static final class BadRecord extends Exception {
        private static final long serialVersionUID = 1L;

        BadRecord(String reason, @Nullable Throwable cause) {
            super(reason, cause);
        }
    }

    @Override
    public void processElement(KafkaRawRecord raw, Context ctx, Collector<ChangeEvent> out) throws Exception {
        TableDescriptor table = tablesByTopic.get(raw.topic);
        if (table == null) {
            throw new IllegalStateException("A record of topic " + raw.topic + ", which the pipeline was not built for, reached the decoder.");
        }
        if (raw.value == null) {
            tombstones.inc(); // Debezium's tombstone after a delete, for log compaction: no change
            return;
        }
        try {
            decode(raw, table, out);
        } catch (BadRecord e) {
            badRecords.inc();
            String reason = e.getMessage();
            if (deadLetters != null) {
                ctx.output(deadLetters, raw.withError(reason));
                return;
            }
            throw new IllegalArgumentException(
                    "Cannot decode the Debezium record at " + raw.where() + " (table " + table.tableId() + "): " + reason
                            + ". Fix the producer, or set 'bad-record.action' = 'dead-letter' and 'dead-letter.topic' to set such"
                            + " records aside.",
                    e.getCause());
        }
    }

    private void decode(KafkaRawRecord raw, TableDescriptor table, Collector<ChangeEvent> out) throws BadRecord, IOException {
        byte[] v = raw.value;
        if (v.length < 5) {
            throw new BadRecord("the value has " + v.length + " bytes, fewer than the 5 of the Confluent wire format's header", null);
        }
        if (v[0] != 0) {
            throw new BadRecord("the value starts with the byte " + (v[0] & 0xFF) + ", not the Confluent wire format's magic byte 0", null);
        }
        int id = ((v[1] & 0xFF) << 24) | ((v[2] & 0xFF) << 16) | ((v[3] & 0xFF) << 8) | (v[4] & 0xFF);
        EnvelopeDecoder plan = decoderFor(raw.topic, id, table);
        decoder = DecoderFactory.get().binaryDecoder(v, 5, v.length - 5, decoder);
        try {
            plan.decode(decoder, envelope);
            if (!decoder.isEnd()) {
                throw new BadRecord("bytes are left after the Avro record of schema id " + id, null);
            }
        } catch (IOException e) {
            throw new BadRecord("the Avro body does not match schema id " + id + " (" + e + ")", e);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new BadRecord("a value cannot be read: " + e.getMessage(), e);
        }
        if (envelope.empty) {
            tombstones.inc(); // an Avro null in place of the envelope: no change, like a tombstone
            return;
        }
        long ts = envelope.sourceTimestamp > 0 ? envelope.sourceTimestamp : raw.timestamp;
        SourcePosition position = SourcePosition.kafka(raw.topic, raw.partition, raw.offset);
        int version = table.schemaVersion();
        switch (envelope.op) {
            case 'c':
            case 'r':
                out.collect(ChangeEvent.of(table.tableId(), version, require(envelope.after, "after", id), ts, position));
                break;
            case 'u':
                GenericRowData after = require(envelope.after, "after", id);
                GenericRowData before = envelope.before != null ? envelope.before : keyOnly(after, table);
                before.setRowKind(RowKind.UPDATE_BEFORE);
                after.setRowKind(RowKind.UPDATE_AFTER);
                out.collect(ChangeEvent.of(table.tableId(), version, before, ts, position));
                out.collect(ChangeEvent.of(table.tableId(), version, after, ts, position));
                break;
            case 'd':
                GenericRowData deleted = require(envelope.before, "before", id);
                deleted.setRowKind(RowKind.DELETE);
                out.collect(ChangeEvent.of(table.tableId(), version, deleted, ts, position));
                break;
            case 't':
                throw new BadRecord("op 't' (a TRUNCATE) cannot be applied row by row", null);
            default:
                throw new BadRecord("the op '" + (envelope.op == 0 ? "" : String.valueOf(envelope.op)) + "' is none of c, r, u, d", null);
        }
    }

    private static GenericRowData require(@Nullable GenericRowData row, String which, int id) throws BadRecord {
        if (row == null) {
            throw new BadRecord("the '" + which + "' image is missing (schema id " + id + ")", null);
        }
        return row;
    }

    /**
     * The old row of an update without a before image (for example PostgreSQL without REPLICA
     * IDENTITY FULL): the key, which is what deletes by key need.
     */
    private static GenericRowData keyOnly(GenericRowData after, TableDescriptor table) {
        GenericRowData before = new GenericRowData(after.getArity());
        for (int k : table.primaryKeyIndexes()) {
            before.setField(k, after.getField(k));
        }
        return before;
    }

    private EnvelopeDecoder decoderFor(String topic, int id, TableDescriptor table) throws BadRecord, IOException {
        Map<Integer, EnvelopeDecoder> byId = decoders.computeIfAbsent(topic, t -> new HashMap<>());
        EnvelopeDecoder d = byId.get(id);
        if (d != null) {
            return d;
        }
        Schema writer;
        try {
            writer = client.schemaById(id);
        } catch (SchemaRegistryClient.NotFoundException e) {
            throw new BadRecord("the schema registry has no schema id " + id, e);
        }
        try {
            d = new EnvelopeDecoder(writer, table);
        } catch (IllegalArgumentException e) {
            throw new BadRecord("schema id " + id + " cannot be read as table " + table.tableId() + ": " + e.getMessage(), e);
        }
        if (!d.addedColumns().isEmpty()) {
            schemaChanges.inc();
            LOG.warn(
                    "Schema id {} of topic {} has columns {} that table {} does not have; they are not captured until the"
                            + " pipeline is rebuilt with the new schema.",
                    id, topic, d.addedColumns(), table.tableId());
        }
        byId.put(id, d);
        return d;
    }
}
