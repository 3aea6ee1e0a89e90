package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.RowKeys;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.SchemaDifference;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.ColumnDefaults;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Decodes Debezium envelopes in the Confluent wire format (magic byte 0, a 4-byte schema id, Avro
 * binary) straight into change events: {@code c} and {@code r} to {@code +I}, {@code u} to {@code
 * -U}/{@code +U}, {@code d} to {@code -D}. Writer schemas come from the registry once per id; the
 * plan that reads each writer schema into its table's row is kept per topic and id. Not thread-safe:
 * one per task. {@link DebeziumDecodeFunction} runs it in a job; benchmarks and tests use it alone.
 */
@Internal
public final class DebeziumRecordDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRecordDecoder.class);

    /** What a record turned out to be. */
    public enum Outcome {
        /** One or two change events were emitted. */
        DECODED,
        /** A tombstone (null value, or a null envelope): no change. */
        TOMBSTONE
    }

    /** A record that cannot be decoded; its message is the reason. */
    public static final class BadRecord extends Exception {
        private static final long serialVersionUID = 1L;

        BadRecord(String reason, @Nullable Throwable cause) {
            super(reason, cause);
        }
    }

    /** How the decoder treats what it reads; fixed when the job is built. */
    public static final class Settings implements Serializable {
        private static final long serialVersionUID = 1L;

        /** Null: every record counts as written before the build (decoding alone, no shape checks). */
        @Nullable
        final HashMap<String, Long> buildOffsets;

        @Nullable
        final String excludeColumns;

        final TimePrecisionMode timeMode;
        final SchemaChangePolicy schemaChanges;

        /**
         * Per topic, the defaults of columns added since older records were written ({@link
         * EnvelopeSchemas#addedDefaults}).
         */
        final HashMap<String, HashMap<String, String>> addedDefaults = new HashMap<>();

        /**
         * @param buildOffsets per {@code topic:partition}, its end offset when the pipeline was built
         *     (the tables' shapes are those of then): records from there on must have them
         */
        public Settings(
                @Nullable Map<String, Long> buildOffsets,
                @Nullable String excludeColumns,
                TimePrecisionMode timeMode,
                SchemaChangePolicy schemaChanges) {
            this.buildOffsets = buildOffsets == null ? null : new HashMap<>(buildOffsets);
            this.excludeColumns = excludeColumns;
            this.timeMode = timeMode;
            this.schemaChanges = schemaChanges;
        }

        /**
         * The same settings, where a record lacks a column of the table its topic's schemas added since, with
         * the default the source gave the rows that existed before: per topic, by column.
         */
        public Settings withAddedDefaults(Map<String, ? extends Map<String, String>> byTopic) {
            Settings out = new Settings(buildOffsets, excludeColumns, timeMode, schemaChanges);
            byTopic.forEach((topic, d) -> out.addedDefaults.put(topic, new HashMap<>(d)));
            return out;
        }

        Map<String, String> addedDefaults(String topic) {
            Map<String, String> d = addedDefaults.get(topic);
            return d == null ? Map.of() : d;
        }

        /** Every record as one written before the pipeline was built (tests and benchmarks of decoding alone). */
        public static Settings lenient() {
            return new Settings(null, null, TimePrecisionMode.TIME, SchemaChangePolicy.of(SchemaChangeBehavior.FAIL));
        }
    }

    private final SchemaRegistryClient client;
    private final Map<String, TableDescriptor> tablesByTopic;
    private final Settings settings;
    private final Pattern excluded;
    private final Map<String, Map<Integer, Plan>> decoders = new HashMap<>();
    private final Map<TableId, RowKeys> keys = new HashMap<>();
    /** Per topic, its value subject's schemas, oldest first, as last read (one GET per version). */
    private final Map<String, List<SchemaRegistryClient.Registered>> histories = new HashMap<>();
    /** Per topic, under a policy that follows schema changes: the table's version now. */
    private final Map<String, Followed> followed = new HashMap<>();

    private final EnvelopeDecoder.Envelope envelope = new EnvelopeDecoder.Envelope();
    private BinaryDecoder decoder;
    private long schemaChanges;

    public DebeziumRecordDecoder(SchemaRegistryClient client, Map<String, TableDescriptor> tablesByTopic) {
        this(client, tablesByTopic, Settings.lenient());
    }

    public DebeziumRecordDecoder(
            SchemaRegistryClient client, Map<String, TableDescriptor> tablesByTopic, Settings settings) {
        this.client = client;
        this.tablesByTopic = new HashMap<>(tablesByTopic);
        this.settings = settings;
        this.excluded = settings.excludeColumns == null ? null : Pattern.compile(settings.excludeColumns);
        tablesByTopic.values().forEach(t -> keys.put(t.tableId(), RowKeys.of(t)));
    }

    /** The table a topic's records belong to. */
    public TableDescriptor table(String topic) {
        TableDescriptor table = tablesByTopic.get(topic);
        if (table == null) {
            throw new IllegalStateException(
                    "A record of topic " + topic + ", which the pipeline was not built for, reached the decoder.");
        }
        return table;
    }

    /**
     * Writer schemas seen so far whose added columns 'ignore-added-columns' left out (each reported once, in the log).
     */
    public long schemaChangesIgnored() {
        return schemaChanges;
    }

    /**
     * Decodes one record into the collector. Registry failures are IOExceptions (no fault of the
     * record); everything wrong with the record itself is a {@link BadRecord}.
     */
    public Outcome decode(KafkaRawRecord raw, Collector<ChangeEvent> out) throws BadRecord, IOException {
        TableDescriptor table = table(raw.topic);
        if (raw.value == null) {
            return Outcome.TOMBSTONE; // Debezium's tombstone after a delete, for log compaction: no change
        }
        return decode(raw, table, out);
    }

    private Outcome decode(KafkaRawRecord raw, TableDescriptor table, Collector<ChangeEvent> out)
            throws BadRecord, IOException {
        byte[] v = raw.value;
        if (v.length < 5) {
            throw new BadRecord(
                    "the value has " + v.length + " bytes, fewer than the 5 of the Confluent wire format's header",
                    null);
        }
        if (v[0] != 0) {
            throw new BadRecord(
                    "the value starts with the byte " + (v[0] & 0xFF)
                            + ", not the Confluent wire format's magic byte 0",
                    null);
        }
        int id = ((v[1] & 0xFF) << 24) | ((v[2] & 0xFF) << 16) | ((v[3] & 0xFF) << 8) | (v[4] & 0xFF);
        TableDescriptor built = table;
        Followed f = settings.schemaChanges.sendsChanges()
                ? followed.computeIfAbsent(raw.topic, t -> new Followed(built, settings.addedDefaults(t)))
                : null;
        if (f != null) {
            table = f.current;
            Plan plan = planFor(raw, id, table);
            if (!plan.differences.isEmpty() && !plan.judged && current(raw)) {
                // The writer schema's rows differ from the version now: a change to follow, unless the record
                // is older than the change that made the version now (another partition, read later).
                long order = Long.MIN_VALUE;
                if (plan.decoder != null) {
                    try {
                        read(plan.decoder, raw, id);
                        order = logOrder();
                    } catch (BadRecord e) {
                        // A value the version now cannot hold (a widened decimal): the record is judged by its id.
                    }
                }
                // Records of one partition come in order: one that has reached the version now cannot be behind it.
                boolean stale = !f.partitionsAtCurrent.contains(raw.partition)
                        && (order != Long.MIN_VALUE && f.changeOrder != Long.MIN_VALUE
                                ? order < f.changeOrder
                                : id < f.schemaId);
                if (stale && !plan.reportedStale) {
                    plan.reportedStale = true;
                    LOG.info(
                            "Topic {} partition {}: records of schema id {} from before the change to version {}"
                                    + " (at {}) are read into that version by column name.",
                            raw.topic,
                            raw.partition,
                            id,
                            f.current.schemaVersion(),
                            raw.where());
                }
                if (!stale) {
                    plan.judged = true;
                    SchemaChange change = follow(raw, id, f, plan);
                    if (change != null) {
                        out.collect(ChangeEvent.schemaChange(change, raw.timestamp, changePosition(raw, order)));
                        f.moveTo(change, id, order);
                        keys.put(table.tableId(), RowKeys.of(f.current));
                        decoders.remove(raw.topic); // the plans read into the earlier version
                        table = f.current;
                    }
                }
            }
        }
        read(decoderFor(raw, id, table), raw, id);
        if (f != null && !f.partitionsAtCurrent.contains(raw.partition)) {
            Plan now = decoders.get(raw.topic).get(id);
            if (now != null && now.differences.isEmpty()) {
                f.partitionsAtCurrent.add(raw.partition);
            }
        }
        if (envelope.empty) {
            return Outcome.TOMBSTONE; // an Avro null in place of the envelope: no change, like a tombstone
        }
        long ts = envelope.sourceTimestamp > 0 ? envelope.sourceTimestamp : raw.timestamp;
        SourcePosition position = position(raw);
        int version = table.schemaVersion();
        // Rows of a version born while the job runs say their type.
        RowType type = f == null ? null : f.runtimeType;
        switch (envelope.op) {
            case 'c':
            case 'r':
                out.collect(typed(
                        ChangeEvent.of(table.tableId(), version, require(envelope.after, "after", id), ts, position),
                        type));
                break;
            case 'u':
                GenericRowData after = require(envelope.after, "after", id);
                GenericRowData before = envelope.before != null ? envelope.before : keyOnly(after, table);
                boolean sameKey = keys.get(table.tableId()).sameKey(before, after);
                // A changed key: a delete of the old key and an insert of the new one, for sinks that upsert by key.
                before.setRowKind(sameKey ? RowKind.UPDATE_BEFORE : RowKind.DELETE);
                after.setRowKind(sameKey ? RowKind.UPDATE_AFTER : RowKind.INSERT);
                out.collect(typed(
                        envelope.before != null
                                ? ChangeEvent.of(table.tableId(), version, before, ts, position)
                                : ChangeEvent.keyOnly(table.tableId(), version, before, ts, position),
                        type));
                out.collect(typed(ChangeEvent.of(table.tableId(), version, after, ts, position), type));
                break;
            case 'd':
                GenericRowData deleted = require(envelope.before, "before", id);
                deleted.setRowKind(RowKind.DELETE);
                out.collect(typed(ChangeEvent.of(table.tableId(), version, deleted, ts, position), type));
                break;
            case 't':
                throw new BadRecord("op 't' (a TRUNCATE) cannot be applied row by row", null);
            default:
                throw new BadRecord(
                        "the op '" + (envelope.op == 0 ? "" : String.valueOf(envelope.op)) + "' is none of c, r, u, d",
                        null);
        }
        return Outcome.DECODED;
    }

    private static ChangeEvent typed(ChangeEvent event, @Nullable RowType type) {
        return type == null ? event : event.withRowType(type);
    }

    /** Decodes the record's body with the plan into {@link #envelope}. */
    private void read(EnvelopeDecoder plan, KafkaRawRecord raw, int id) throws BadRecord {
        byte[] v = raw.value;
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
    }

    /**
     * The change's place in the database's log (MySQL binlog order, PostgreSQL LSN) as the Debezium
     * source block says it, or {@link Long#MIN_VALUE}: one order across all partitions of a topic.
     */
    private long logOrder() {
        EnvelopeDecoder.Envelope e = envelope;
        if (e.empty) {
            return Long.MIN_VALUE;
        }
        if (e.sourceFile != null && !e.sourceFile.isEmpty() && e.sourcePosition >= 0) {
            return SourcePosition.binlogOrder(e.sourceFile, e.sourcePosition, e.sourceRow);
        }
        return e.sourceLsn > 0 ? e.sourceLsn : Long.MIN_VALUE;
    }

    /**
     * Where a schema change followed from Kafka is: the binlog position of the first record of the new
     * shape where the record says it, so that sinks order the changes that every reader of the topic's
     * partitions meets on its own (the Iceberg sink applies each once, and none after a later one); the
     * Kafka record otherwise.
     */
    private SourcePosition changePosition(KafkaRawRecord raw, long order) {
        EnvelopeDecoder.Envelope e = envelope;
        if (order != Long.MIN_VALUE && e.sourceFile != null && !e.sourceFile.isEmpty()) {
            return SourcePosition.binlog(e.sourceFile, e.sourcePosition, e.sourceRow);
        }
        return SourcePosition.kafka(raw.topic, raw.partition, raw.offset);
    }

    /**
     * The change from the version now to the writer schema's columns, as far as the policy follows
     * (the key stays; without a DDL a rename is a drop and an add). Null when nothing followed changed.
     *
     * @throws InletStopException naming the column when the writer schema has one Inlet cannot map, or
     *     the shape is no table
     */
    @Nullable
    private SchemaChange follow(KafkaRawRecord raw, int id, Followed f, Plan plan) throws IOException {
        TableDescriptor now;
        try {
            now = EnvelopeSchemas.describe(
                    f.current.tableId(), raw.topic, client.schemaById(id), null, excluded, settings.timeMode);
        } catch (InletValidationException e) {
            throw new InletStopException("Table " + f.current.tableId() + " changed in the source (topic " + raw.topic
                    + ", schema id " + id + ", at " + raw.where() + ") into a shape Inlet cannot read: "
                    + String.join(" ", e.problems()) + " Leave the column out with 'exclude-columns' and restart"
                    + " the job from its last checkpoint.");
        }
        try {
            SchemaChange change =
                    settings.schemaChanges.follow(f.current, now.columns(), f.current.primaryKey(), Map.of(), null);
            if (change != null) {
                change = withDefaults(change, raw.topic, id, f);
            }
            LOG.info(
                    "Table {} changed in the source (topic {}, schema id {}, at {}): {}; following it as"
                            + " version {}.",
                    f.current.tableId(),
                    raw.topic,
                    id,
                    raw.where(),
                    change == null ? plan.differences + " (nothing the lake follows)" : change.changes(),
                    change == null ? f.current.schemaVersion() : change.newVersion());
            return change;
        } catch (IllegalArgumentException e) {
            throw new InletStopException("Table " + f.current.tableId() + " changed in the source (topic " + raw.topic
                    + ", schema id " + id + ", at " + raw.where() + ") into a shape the pipeline cannot follow: "
                    + e.getMessage());
        }
    }

    /**
     * The change, its added columns carrying the default the writer schema gives them: Debezium writes a
     * column's DDL default into the schema, and the rows that existed before have it in the source.
     */
    private SchemaChange withDefaults(SchemaChange change, String topic, int id, Followed f) throws IOException {
        // The subject's schemas up to the writer's: the one that added a column has the default its rows took,
        // and tells a rename-like step (a column lost at once) apart. A writer schema not in the subject's
        // history (another naming strategy) is taken alone.
        List<SchemaRegistryClient.Registered> history = histories.get(topic);
        if (history == null || history.stream().noneMatch(r -> r.id == id)) {
            history = client.history(topic + "-value"); // read again only for a schema registered since
            histories.put(topic, history);
        }
        List<Schema> values = new ArrayList<>();
        boolean found = false;
        for (SchemaRegistryClient.Registered r : history) {
            values.add(r.schema);
            if (r.id == id) {
                found = true;
                break;
            }
        }
        if (!found) {
            values = List.of(client.schemaById(id));
        }
        List<Schema> rows = EnvelopeSchemas.rows(values, topic);
        Map<String, String> defaults = new HashMap<>();
        for (ColumnChange c : change.changes()) {
            Schema.Field field = c.kind() != ColumnChange.Kind.ADDED
                    ? null
                    : rows.size() == 1
                            ? rows.get(0).getField(c.column())
                            : EnvelopeSchemas.addingField(rows, c.column());
            String text = field == null ? null : AvroSemantics.defaultText(field);
            if (text == null) {
                continue;
            }
            try {
                ColumnDefaults.parse(text, c.newType().orElseThrow());
                defaults.put(c.column(), text);
            } catch (IllegalArgumentException e) {
                LOG.warn(
                        "Table {}: column '{}' was added with the default '{}', which Inlet cannot give the rows"
                                + " that existed before ({}); they keep NULL in the lake until each changes.",
                        f.current.tableId(),
                        c.column(),
                        text,
                        e.getMessage());
            }
        }
        return defaults.isEmpty() ? change : change.withDefaultValues(defaults);
    }

    /**
     * Where the change was: the Kafka record, ordered by the change's place in the database's log
     * where the Debezium source block says it (MySQL's binlog file, position and row; PostgreSQL's
     * LSN), so that a record delivered twice orders as the change it holds; by the offset otherwise.
     * Snapshot rows order just before the log position their snapshot started at.
     */
    private SourcePosition position(KafkaRawRecord raw) {
        EnvelopeDecoder.Envelope e = envelope;
        if (e.sourceFile != null && !e.sourceFile.isEmpty() && e.sourcePosition >= 0) {
            long order = e.snapshot
                    ? SourcePosition.binlogOrder(e.sourceFile, e.sourcePosition, 0) - 1
                    : SourcePosition.binlogOrder(e.sourceFile, e.sourcePosition, e.sourceRow);
            return SourcePosition.kafka(raw.topic, raw.partition, raw.offset, order);
        }
        if (e.sourceLsn > 0) {
            return SourcePosition.kafka(
                    raw.topic, raw.partition, raw.offset, e.snapshot ? e.sourceLsn - 1 : e.sourceLsn);
        }
        return SourcePosition.kafka(raw.topic, raw.partition, raw.offset);
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

    static final String SCHEMA_WHAT_TO_DO = SchemaDifference.whatToDo("records of older schema ids");

    /** How the records of one writer schema are read, and how that schema differs from the table. */
    private static final class Plan {
        @Nullable
        final EnvelopeDecoder decoder;

        @Nullable
        final String unreadable;

        final List<SchemaDifference> differences;
        final List<SchemaDifference> blocking;
        /** Whether the left-out columns were said in the log (and counted), once per schema. */
        boolean reported;

        /** Following changes: whether the writer schema was judged against the version now already. */
        boolean judged;

        /** Following changes: whether records from before the version now were said in the log. */
        boolean reportedStale;

        Plan(
                @Nullable EnvelopeDecoder decoder,
                @Nullable String unreadable,
                List<SchemaDifference> differences,
                List<SchemaDifference> blocking) {
            this.decoder = decoder;
            this.unreadable = unreadable;
            this.differences = differences;
            this.blocking = blocking;
        }
    }

    /**
     * Whether a record was written after the pipeline was built (at or past the partition's end
     * offset then): its rows must have the table's shape. Earlier records may have older shapes.
     * By offset, not schema id: a registry gives a schema that returns to an earlier shape its earlier id.
     */
    private boolean current(KafkaRawRecord raw) {
        if (settings.buildOffsets == null) {
            return false;
        }
        Long end = settings.buildOffsets.get(raw.topic + ":" + raw.partition);
        return end == null || raw.offset >= end;
    }

    private Plan planFor(KafkaRawRecord raw, int id, TableDescriptor table) throws BadRecord, IOException {
        Map<Integer, Plan> byId = decoders.computeIfAbsent(raw.topic, t -> new HashMap<>());
        Plan plan = byId.get(id);
        if (plan == null) {
            Schema writer;
            try {
                writer = client.schemaById(id);
            } catch (SchemaRegistryClient.NotFoundException e) {
                throw new BadRecord("the schema registry has no schema id " + id, e);
            }
            List<SchemaDifference> differences =
                    EnvelopeSchemas.differences(writer, table, excluded, settings.timeMode);
            EnvelopeDecoder d = null;
            String unreadable = null;
            try {
                Followed f = followed.get(raw.topic);
                d = new EnvelopeDecoder(
                        writer,
                        table,
                        excluded,
                        settings.timeMode,
                        f == null ? settings.addedDefaults(raw.topic) : f.defaults);
            } catch (IllegalArgumentException e) {
                unreadable = "schema id " + id + " cannot be read as table " + table.tableId() + ": " + e.getMessage();
            }
            plan = new Plan(d, unreadable, differences, SchemaDifference.blocking(differences, settings.schemaChanges));
            byId.put(id, plan);
        }
        return plan;
    }

    private EnvelopeDecoder decoderFor(KafkaRawRecord raw, int id, TableDescriptor table)
            throws BadRecord, IOException {
        String topic = raw.topic;
        Plan plan = planFor(raw, id, table);
        // Once the left-out columns are reported, every later record of the schema is read as it is. Following
        // changes, the differences left are those of older records and of columns the policy leaves alone.
        if (!plan.differences.isEmpty() && !plan.reported && current(raw) && !settings.schemaChanges.sendsChanges()) {
            if (!plan.blocking.isEmpty()) {
                throw new InletStopException("Table " + table.tableId() + " changed in the source: "
                        + plan.blocking.stream().map(Object::toString).collect(Collectors.joining(", "))
                        + " (topic " + topic + ", schema id " + id
                        + ", in a record written after the pipeline was built, at "
                        + raw.where() + ")." + SCHEMA_WHAT_TO_DO);
            }
            plan.reported = true;
            schemaChanges++;
            LOG.warn(
                    "Schema id {} of topic {}: {}. 'schema-change.behavior' = 'ignore-added-columns' leaves them out.",
                    id,
                    topic,
                    plan.differences);
        }
        if (plan.decoder == null) {
            throw new BadRecord(
                    plan.unreadable
                            + (plan.differences.isEmpty()
                                    ? ""
                                    : " (the record was written before the pipeline was built, when the" + " table had"
                                            + " another shape: a NOT NULL"
                                            + " column added since cannot be filled for it; start the job"
                                            + " without its state at" + " the topic's end,"
                                            + " or add such columns as nullable)"),
                    null);
        }
        return plan.decoder;
    }

    /** A topic's table as the decoder follows its schema changes. */
    private static final class Followed {
        TableDescriptor current;

        /** The rows' type where the version was born while the job runs, else null. */
        @Nullable
        RowType runtimeType;

        /** The writer schema id the version now came from; -1 for the version the job was built with. */
        int schemaId = -1;

        /** The log order of the first record of the version now; {@link Long#MIN_VALUE} when not known. */
        long changeOrder = Long.MIN_VALUE;

        /** The partitions that had a record of the version now's shape since it came. */
        final Set<Integer> partitionsAtCurrent = new HashSet<>();

        /**
         * The defaults of the columns changes added with one, by name: what a record from before such a change
         * (a partition read behind the others) has in the column, as in the source.
         */
        final Map<String, String> defaults = new HashMap<>();

        Followed(TableDescriptor built, Map<String, String> addedDefaults) {
            this.current = built;
            this.defaults.putAll(addedDefaults);
        }

        void moveTo(SchemaChange change, int id, long order) {
            for (ColumnChange c : change.changes()) {
                switch (c.kind()) {
                    case ADDED:
                        if (c.defaultValue().isPresent()) {
                            defaults.put(c.column(), c.defaultValue().get());
                        } else {
                            defaults.remove(c.column()); // added again without one: no earlier default holds
                        }
                        break;
                    case DROPPED:
                        defaults.remove(c.column());
                        break;
                    case RENAMED:
                        String d = defaults.remove(c.column());
                        if (d != null) {
                            defaults.put(c.newName().orElseThrow(), d);
                        }
                        break;
                    default:
                        break;
                }
            }
            TableDescriptor next = change.after();
            current = next;
            partitionsAtCurrent.clear();
            runtimeType = next.toRowType();
            schemaId = Math.max(schemaId, id);
            if (order != Long.MIN_VALUE) {
                changeOrder = order;
            }
        }
    }
}
