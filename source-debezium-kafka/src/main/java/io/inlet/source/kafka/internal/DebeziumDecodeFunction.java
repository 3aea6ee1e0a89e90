package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * Decodes Debezium envelopes in the Confluent wire format into change events with {@link
 * DebeziumRecordDecoder}; tombstones are skipped and counted. A record that cannot be decoded fails
 * the job naming topic, partition and offset, or goes to the dead-letter output with the reason. A
 * registry that cannot be reached fails the job (it is no fault of the record; a restart retries).
 */
@Internal
public final class DebeziumDecodeFunction extends ProcessFunction<KafkaRawRecord, ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final RegistrySettings registry;
    private final HashMap<String, TableDescriptor> tablesByTopic;
    private final DebeziumRecordDecoder.Settings settings;

    @Nullable
    private final OutputTag<KafkaRawRecord> deadLetters;

    private transient DebeziumRecordDecoder decoder;
    private transient Counter tombstones;
    private transient Counter badRecords;
    private transient Counter schemaChanges;

    public DebeziumDecodeFunction(
            RegistrySettings registry,
            Map<String, TableDescriptor> tablesByTopic,
            DebeziumRecordDecoder.Settings settings,
            @Nullable OutputTag<KafkaRawRecord> deadLetters) {
        this.registry = registry;
        this.tablesByTopic = new HashMap<>(tablesByTopic);
        this.settings = settings;
        this.deadLetters = deadLetters;
    }

    @Override
    public void open(Configuration parameters) {
        decoder = new DebeziumRecordDecoder(new SchemaRegistryClient(registry), tablesByTopic, settings);
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("inlet");
        tombstones = g.counter("numTombstonesSkipped");
        badRecords = g.counter("numBadRecords");
        schemaChanges = g.counter("numSchemaChangesIgnored");
    }

    @Override
    public void processElement(KafkaRawRecord raw, Context ctx, Collector<ChangeEvent> out) throws Exception {
        try {
            if (decoder.decode(raw, out) == DebeziumRecordDecoder.Outcome.TOMBSTONE) {
                tombstones.inc();
            }
        } catch (DebeziumRecordDecoder.BadRecord e) {
            badRecords.inc();
            String reason = e.getMessage();
            if (deadLetters != null) {
                ctx.output(deadLetters, raw.withError(reason));
                return;
            }
            // The record fails the same way after every restart: stop the job instead of restarting it forever.
            throw new InletStopException(
                    "Cannot decode the Debezium record at " + raw.where() + " (table "
                            + decoder.table(raw.topic).tableId() + "): " + reason
                            + ". The record fails the same way on every restart, so the job stops. Fix the"
                            + " producer, or set"
                            + " 'bad-record.action' = 'dead-letter' and 'dead-letter.topic' to set such records aside.",
                    e.getCause());
        } finally {
            long reported = decoder.schemaChangesIgnored();
            if (reported > schemaChanges.getCount()) {
                schemaChanges.inc(reported - schemaChanges.getCount());
            }
        }
    }
}
