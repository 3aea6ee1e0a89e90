package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.event.RowKeys;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.source.BadRecordAction;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.SchemaDifference;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import io.debezium.data.Envelope;
import io.debezium.document.Array;
import io.debezium.document.Document;
import io.debezium.document.DocumentReader;
import io.debezium.document.Value;
import io.debezium.relational.history.JsonTableChangeSerializer;
import io.debezium.relational.history.TableChanges;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns Debezium's change records straight into {@link ChangeEvent}s: no JSON in between. Snapshot
 * reads and inserts become {@code +I}, updates {@code -U} and {@code +U} (or {@code -D} and {@code
 * +I} when the key changed), deletes {@code -D}; the binlog position and the source timestamp travel
 * along.
 *
 * <p>Positions order the versions of a row ({@link SourcePosition#order()}): binlog rows by their
 * binlog position; snapshot rows as of the binlog position read when the pipeline was built, the
 * point from which the schemas hold ({@code snapshotFile:snapshotPosition}), so they order after
 * every change written before the job and before every change the binlog phase then reads.
 *
 * <p>Schema changes never corrupt silently. A DDL record (binlog phase) that changes a captured
 * table, or a row from that point on whose columns differ from the table's, stops the job ({@link
 * InletStopException}) before any row of the new shape is emitted, unless {@code
 * schema-change.behavior} = {@code ignore-added-columns} lets added nullable columns through (left
 * out). Rows from before that point (a job restored from an older checkpoint) may have older shapes:
 * they are read by column name, a column they lack as NULL.
 *
 * <p>A value that cannot be converted is a bad record: the job stops once ({@code
 * bad-record.action} = {@code fail}) or the record goes to the dead-letter output as JSON with its
 * table, position, reason and raw values ({@code dead-letter}), on the {@link SideChannel}.
 *
 * <p>It knows Debezium's records only, not Flink CDC: {@link FlinkCdc}, compiled against the Flink CDC
 * line of the build, hands it to Flink CDC's source as that line's deserialization schema.
 */
@Internal
public final class ChangeEventDeserializer implements Serializable {

    private static final long serialVersionUID = 2L;
    private static final Logger LOG = LoggerFactory.getLogger(ChangeEventDeserializer.class);

    private static final String SCHEMA_CHANGE_KEY = "io.debezium.connector.mysql.SchemaChangeKey";

    static final String WHAT_TO_DO = SchemaDifference.whatToDo("rows from before the change");

    /** How the deserializer treats what it reads; fixed when the job is built. */
    public static final class Settings implements Serializable {
        private static final long serialVersionUID = 1L;

        @Nullable
        final String excludeColumns;

        final String snapshotFile;
        final long snapshotPosition;
        final SchemaChangePolicy schemaChanges;
        final BadRecordAction badRecords;
        final TimePrecisionMode timeMode;
        final HashMap<String, Integer> timePrecisions;
        final boolean tinyInt1IsBoolean;

        public Settings(
                @Nullable String excludeColumns,
                String snapshotFile,
                long snapshotPosition,
                SchemaChangePolicy schemaChanges,
                BadRecordAction badRecords,
                TimePrecisionMode timeMode,
                Map<String, Integer> timePrecisions,
                boolean tinyInt1IsBoolean) {
            this.excludeColumns = excludeColumns;
            this.snapshotFile = snapshotFile;
            this.snapshotPosition = snapshotPosition;
            this.schemaChanges = schemaChanges;
            this.badRecords = badRecords;
            this.timeMode = timeMode;
            this.timePrecisions = new HashMap<>(timePrecisions);
            this.tinyInt1IsBoolean = tinyInt1IsBoolean;
        }
    }

    private final List<TableDescriptor> tables;
    private final ChangeEventTypeInfo typeInfo;
    private final Settings settings;

    /** Each table as it is now: the one the job was built with, or its version after schema changes followed. */
    private transient Map<TableId, TableDescriptor> byId;
    /** The row types of tables at versions born while the job runs (one instance each: the serializer caches it). */
    private transient Map<TableId, RowType> runtimeTypes;

    private transient Map<TableId, RowKeys> keys;
    /** Schema changes found in a restored split, sent ahead of the next record's events. */
    private transient List<ChangeEvent> pending;

    private transient Map<Schema, StructConverter> converters;
    private transient Pattern excluded;
    private transient long schemaOrder;
    private transient SourcePosition snapshot;

    /**
     * @param typeInfo the type of the source's own stream: the tables and the {@link SideChannel}
     */
    public ChangeEventDeserializer(List<TableDescriptor> tables, ChangeEventTypeInfo typeInfo, Settings settings) {
        this.tables = new ArrayList<>(tables);
        this.typeInfo = typeInfo;
        this.settings = settings;
    }

    /** The type of the events it emits: the source's tables and its side channel. */
    public TypeInformation<ChangeEvent> getProducedType() {
        return typeInfo;
    }

    private void init() {
        byId = new HashMap<>();
        runtimeTypes = new HashMap<>();
        pending = new ArrayList<>();
        keys = new HashMap<>();
        for (TableDescriptor t : tables) {
            byId.put(t.tableId(), t);
            keys.put(t.tableId(), RowKeys.of(t));
        }
        converters = new IdentityHashMap<>();
        excluded = settings.excludeColumns == null ? null : Pattern.compile(settings.excludeColumns);
        schemaOrder = SourcePosition.binlogOrder(settings.snapshotFile, settings.snapshotPosition, 0);
        snapshot = SourcePosition.snapshot(settings.snapshotFile, settings.snapshotPosition);
    }

    /** Emits the events of one Debezium record; a DDL record is checked against the captured tables. */
    public void deserialize(SourceRecord record, Collector<ChangeEvent> out) {
        if (byId == null) {
            init();
        }
        if (!pending.isEmpty()) {
            pending.forEach(out::collect);
            pending.clear();
        }
        if (record.keySchema() != null
                && SCHEMA_CHANGE_KEY.equals(record.keySchema().name())) {
            schemaChange(record, out);
            return;
        }
        Struct value = (Struct) record.value();
        if (value == null || value.schema().field(Envelope.FieldName.OPERATION) == null) {
            return; // not a row change
        }
        Struct source = value.getStruct(Envelope.FieldName.SOURCE);
        TableId id = TableId.of(source.getString("db"), source.getString("table"));
        TableDescriptor table = byId.get(id);
        if (table == null) {
            throw new InletStopException(
                    "A change of table " + id + ", which the pipeline did not capture when it was built, reached the"
                            + " source. Rebuild the pipeline to capture it.");
        }
        Envelope.Operation op = Envelope.Operation.forCode(value.getString(Envelope.FieldName.OPERATION));
        long ts = source.getInt64("ts_ms");
        long timestamp = ts > 0 ? ts : ChangeEvent.UNKNOWN_TIMESTAMP; // snapshot rows carry 0
        SourcePosition position = position(source, op);
        Struct before = value.getStruct(Envelope.FieldName.BEFORE);
        Struct after = value.getStruct(Envelope.FieldName.AFTER);
        GenericRowData oldRow;
        GenericRowData newRow;
        try {
            switch (op) {
                case READ:
                case CREATE:
                    oldRow = null;
                    newRow = convert(table, RowKind.INSERT, after, position);
                    break;
                case UPDATE:
                    oldRow = convert(table, RowKind.UPDATE_BEFORE, before, position);
                    newRow = convert(table, RowKind.UPDATE_AFTER, after, position);
                    break;
                case DELETE:
                    oldRow = convert(table, RowKind.DELETE, before, position);
                    newRow = null;
                    break;
                default:
                    throw new BadValue("the Debezium operation " + op + " is not a row change Inlet can apply");
            }
        } catch (BadValue e) {
            badRecord(out, table, op, position, e.getMessage(), before, after);
            return;
        }
        if (oldRow != null && newRow != null && !keys.get(id).sameKey(oldRow, newRow)) {
            // The key changed: a delete of the old key and an insert of the new one, for sinks that upsert by key.
            oldRow.setRowKind(RowKind.DELETE);
            newRow.setRowKind(RowKind.INSERT);
        }
        RowType runtimeType = runtimeTypes.get(id);
        if (oldRow != null) {
            ChangeEvent e = ChangeEvent.of(id, table.schemaVersion(), oldRow, timestamp, position);
            out.collect(runtimeType == null ? e : e.withRowType(runtimeType));
        }
        if (newRow != null) {
            ChangeEvent e = ChangeEvent.of(id, table.schemaVersion(), newRow, timestamp, position);
            out.collect(runtimeType == null ? e : e.withRowType(runtimeType));
        }
    }

    private SourcePosition position(Struct source, Envelope.Operation op) {
        String file = source.schema().field("file") == null ? null : source.getString("file");
        Long pos = source.schema().field("pos") == null ? null : source.getInt64("pos");
        Integer row = source.schema().field("row") == null ? null : source.getInt32("row");
        boolean known = file != null && !file.isEmpty() && pos != null;
        if (op == Envelope.Operation.READ) {
            // A snapshot row; one the snapshot took from the binlog while it read (a change during the
            // snapshot) carries that binlog event, the others nothing.
            return known ? SourcePosition.snapshot(file, pos, row == null ? 0 : row) : snapshot;
        }
        if (!known) {
            return snapshot;
        }
        return SourcePosition.binlog(file, pos, row == null ? 0 : row);
    }

    /** Whether rows at this position must have the shape the pipeline was built with. */
    private boolean current(SourcePosition position) {
        return position.kind() != SourcePosition.Kind.BINLOG || position.order() >= schemaOrder;
    }

    private GenericRowData convert(TableDescriptor table, RowKind kind, @Nullable Struct row, SourcePosition position)
            throws BadValue {
        if (row == null) {
            throw new InletStopException("A " + kind.shortString() + " change of " + table.tableId() + " at " + position
                    + " has no row image. Set binlog_row_image=FULL on the server, then restart the job.");
        }
        StructConverter c = converters.get(row.schema());
        if (c == null) {
            c = new StructConverter(table, row.schema(), excluded, settings);
            converters.put(row.schema(), c);
        }
        if (!c.differences.isEmpty()) {
            shapeDiffers(table, c, position);
        }
        try {
            return c.convert(row, kind);
        } catch (BadValue e) {
            if (!c.differences.isEmpty() && !current(position)) {
                throw new BadValue(
                        e.getMessage() + " (the row is from before the pipeline read the table's schema, binlog "
                                + position + " < " + settings.snapshotFile + ":" + settings.snapshotPosition
                                + ", when the table had"
                                + " another shape: a NOT NULL column added since cannot be filled for it;" + " start"
                                + " the job without its"
                                + " state, for a new snapshot, or add such columns as NULL)");
            }
            throw e;
        }
    }

    /** A row whose columns differ from the table's: allowed before the schemas were read, a change after. */
    private void shapeDiffers(TableDescriptor table, StructConverter c, SourcePosition position) {
        if (!current(position)) {
            if (!c.reportedOlder) {
                c.reportedOlder = true;
                LOG.info(
                        "Rows of {} from before the pipeline read its schema (binlog {} < {}:{}) have an"
                                + " older shape ({});" + " they are read by column name, columns they lack as NULL.",
                        table.tableId(),
                        position,
                        settings.snapshotFile,
                        settings.snapshotPosition,
                        c.differences);
            }
            return;
        }
        if (!c.blocking.isEmpty()) {
            throw new InletStopException("Table " + table.tableId() + " changed in the source: "
                    + c.blocking.stream().map(Object::toString).collect(Collectors.joining(", "))
                    + " (seen in a row at " + position + ")." + WHAT_TO_DO);
        }
        if (!c.reportedIgnored) {
            c.reportedIgnored = true;
            if (settings.schemaChanges.sendsChanges()) {
                LOG.info(
                        "Rows of {} differ from the lake's table: {}; 'schema-change.behavior' = '{}' keeps the"
                                + " lake's columns the rows lack (NULL in these rows) and leaves out those it lacks.",
                        table.tableId(),
                        c.differences,
                        settings.schemaChanges);
            } else {
                LOG.warn(
                        "Table {} has columns the pipeline does not capture ({});"
                                + " 'schema-change.behavior' = 'ignore-added-columns'" + " leaves them out.",
                        table.tableId(),
                        c.differences);
            }
        }
    }

    private void schemaChange(SourceRecord record, Collector<ChangeEvent> out) {
        Struct value = (Struct) record.value();
        if (value == null || value.schema().field("historyRecord") == null) {
            return;
        }
        Struct source = value.schema().field("source") == null ? null : value.getStruct("source");
        SourcePosition position = SourcePosition.none();
        if (source != null && source.schema().field("file") != null && source.getString("file") != null) {
            position = SourcePosition.binlog(source.getString("file"), source.getInt64("pos"), 0);
        }
        if (position.kind() == SourcePosition.Kind.BINLOG
                && !current(position)
                && !settings.schemaChanges.sendsChanges()) {
            return; // a DDL from before the schemas were read: they already reflect it
        }
        // Following changes, a DDL from before the schemas were read is followed too: the tables are then
        // as Debezium knows them at that point of the binlog (a split restored from a savepoint taken before
        // the DDL), and a DDL that the current version already reflects changes nothing.
        Document history;
        try {
            history = DocumentReader.defaultReader().read(value.getString("historyRecord"));
        } catch (IOException e) {
            throw new InletStopException(
                    "Cannot read the schema change at " + position + " (" + e.getMessage()
                            + "); the job stops rather than guess. " + WHAT_TO_DO,
                    e);
        }
        String ddl = history.getString("ddl");
        Array changes = history.getArray("tableChanges");
        if (changes == null) {
            return;
        }
        for (int i = 0; i < changes.size(); i++) {
            Value v = changes.get(i);
            if (v == null || !v.isDocument()) {
                continue;
            }
            Document change = v.asDocument();
            TableId id = tableId(change.getString("id"));
            TableDescriptor table = id == null ? null : byId.get(id);
            if (table == null) {
                continue; // a table the pipeline does not capture
            }
            String type = change.getString("type");
            String where = " (" + (ddl == null ? type : ddl.trim()) + ", at binlog " + position + ")";
            if ("DROP".equalsIgnoreCase(type)) {
                throw new InletStopException("Table " + table.tableId() + " changed in the source: it was dropped"
                        + where + "." + WHAT_TO_DO);
            }
            Document after = change.getDocument("table");
            if (after == null) {
                continue;
            }
            if (settings.schemaChanges.sendsChanges()) {
                evolve(table, after, ddl, source, position, out::collect);
                continue;
            }
            List<SchemaDifference> differences =
                    SchemaChanges.compare(table, after, ddl, excluded, settings.tinyInt1IsBoolean, settings.timeMode);
            if (differences.isEmpty()) {
                continue;
            }
            List<SchemaDifference> blocking = SchemaDifference.blocking(differences, settings.schemaChanges);
            if (!blocking.isEmpty()) {
                throw new InletStopException("Table " + table.tableId() + " changed in the source: "
                        + blocking.stream().map(Object::toString).collect(Collectors.joining(", ")) + where + "."
                        + WHAT_TO_DO);
            }
            LOG.warn(
                    "Table {} changed in the source: {}{}. 'schema-change.behavior' = 'ignore-added-columns': the added"
                            + " columns are left out.",
                    table.tableId(),
                    differences,
                    where);
            out.collect(SideChannel.event(
                    SideChannel.SCHEMA_CHANGE_IGNORED,
                    DeadLetterJson.notice(table.tableId(), position, differences.toString())));
        }
    }

    /**
     * The tables as Debezium knows them at the start of a binlog split (restored from a checkpoint, or handed
     * out after the snapshot). With {@code evolve}, a table that changed since the job was built (a schema
     * change followed before a failover) goes on at its new version: the change is sent ahead of the next
     * record, at the split's starting position: a sink that applied a later change (from after that
     * position, before the failover) leaves its table alone, and replayed changes follow. Without a
     * statement a rename reads as a drop and an add.
     *
     * @param tables the split's table schemas, as Flink CDC keeps them
     * @param file the binlog file the split starts reading, null or empty when its start is not a file
     *     position
     */
    public void restoreTables(
            Map<io.debezium.relational.TableId, TableChanges.TableChange> tables,
            @Nullable String file,
            long position) {
        if (!settings.schemaChanges.sendsChanges() || tables.isEmpty()) {
            return;
        }
        if (byId == null) {
            init();
        }
        SourcePosition splitStart = file == null || file.isEmpty() || position < 0
                ? SourcePosition.none()
                : SourcePosition.binlog(file, position, 0);
        JsonTableChangeSerializer json = new JsonTableChangeSerializer();
        tables.forEach((id, change) -> {
            TableDescriptor table = id.catalog() == null ? null : byId.get(TableId.of(id.catalog(), id.table()));
            if (table != null) {
                // The same document as a DDL record's table change carries.
                evolve(table, json.toDocument(change).getDocument("table"), null, null, splitStart, pending::add);
            }
        });
    }

    /**
     * Follows a DDL of a captured table: the table's next version goes downstream ahead of its rows, which
     * from here on are read with it.
     */
    private void evolve(
            TableDescriptor table,
            Document after,
            @Nullable String ddl,
            @Nullable Struct source,
            SourcePosition position,
            Consumer<ChangeEvent> out) {
        SchemaChange change = SchemaChanges.change(
                table, after, ddl, excluded, settings.tinyInt1IsBoolean, settings.timeMode, settings.schemaChanges);
        if (change == null) {
            return; // nothing the pipeline captures changed
        }
        TableDescriptor next = change.after();
        byId.put(next.tableId(), next);
        keys.put(next.tableId(), RowKeys.of(next));
        runtimeTypes.put(next.tableId(), next.toRowType());
        // Converters know the table's columns: the next rows need ones for the new version.
        converters.clear();
        Long ts = source == null || source.schema().field("ts_ms") == null ? null : source.getInt64("ts_ms");
        LOG.info(
                "Table {} changed in the source ({}, at binlog {}): {}; following it as version {}.",
                next.tableId(),
                ddl == null ? "as the restored binlog split holds it" : ddl.trim(),
                position,
                change.changes(),
                next.schemaVersion());
        out.accept(
                ChangeEvent.schemaChange(change, ts != null && ts > 0 ? ts : ChangeEvent.UNKNOWN_TIMESTAMP, position));
    }

    /** {@code "db"."t"}, Debezium's form of a table id in schema changes, to a table id. */
    @Nullable
    static TableId tableId(@Nullable String quoted) {
        io.debezium.relational.TableId id = quoted == null ? null : io.debezium.relational.TableId.parse(quoted);
        return id == null || id.catalog() == null ? null : TableId.of(id.catalog(), id.table());
    }

    private void badRecord(
            Collector<ChangeEvent> out,
            TableDescriptor table,
            Envelope.Operation op,
            SourcePosition position,
            String reason,
            @Nullable Struct before,
            @Nullable Struct after) {
        String where = position.kind() == SourcePosition.Kind.SNAPSHOT
                ? "the snapshot (" + position + ")"
                : "binlog " + position;
        if (settings.badRecords == BadRecordAction.FAIL) {
            throw new InletStopException("Cannot read a change of " + table.tableId() + " at " + where + ": " + reason
                    + ". The record fails the same way on every restart, so the job stops. Fix the"
                    + " data, choose a mapping"
                    + " that holds it ('time.precision.mode' for TIME columns), leave the column out"
                    + " with 'exclude-columns',"
                    + " or set 'bad-record.action' = 'dead-letter' and 'dead-letter.path' to set such records aside.");
        }
        String kind = op == Envelope.Operation.DELETE ? "-D" : op == Envelope.Operation.UPDATE ? "+U" : "+I";
        out.collect(SideChannel.event(
                SideChannel.DEAD_LETTER,
                DeadLetterJson.of(table.tableId(), kind, position, reason, raw(before), raw(after))));
    }

    /** The row's values as Debezium gave them, as text (bytes in base64), by column. */
    @Nullable
    private static Map<String, String> raw(@Nullable Struct row) {
        if (row == null) {
            return null;
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (Field f : row.schema().fields()) {
            Object v = row.getWithoutDefault(f.name());
            if (v instanceof byte[]) {
                v = Base64.getEncoder().encodeToString((byte[]) v);
            } else if (v instanceof ByteBuffer) {
                ByteBuffer b = ((ByteBuffer) v).duplicate();
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                v = Base64.getEncoder().encodeToString(bytes);
            } else if (v != null
                    && "io.debezium.time.MicroTime".equals(f.schema().name())) {
                v = TimePrecisionMode.format(((Number) v).longValue(), 6);
            }
            m.put(f.name(), v == null ? null : v.toString());
        }
        return m;
    }

    /** A value that cannot be converted; its message names the column and the value. */
    static final class BadValue extends Exception {
        private static final long serialVersionUID = 1L;

        BadValue(String message) {
            super(message);
        }
    }

    /** Converts the structs of one table at one Connect schema, and knows how that schema differs from the table. */
    private static final class StructConverter {
        private final TableDescriptor table;
        private final Field[] fields;
        private final DebeziumFieldConverters.FieldConverter[] converters;
        /** How the rows of this schema differ from the table's, and which of those stop the job. */
        final List<SchemaDifference> differences = new ArrayList<>();

        final List<SchemaDifference> blocking;
        /** Said once per schema in the log. */
        boolean reportedOlder;

        boolean reportedIgnored;

        StructConverter(TableDescriptor table, Schema schema, @Nullable Pattern excluded, Settings settings) {
            this.table = table;
            List<Column> columns = table.columns();
            this.fields = new Field[columns.size()];
            this.converters = new DebeziumFieldConverters.FieldConverter[columns.size()];
            String prefix = table.tableId().database() + "." + table.tableId().table() + ".";
            for (int i = 0; i < columns.size(); i++) {
                Column col = columns.get(i);
                Field f = schema.field(col.name());
                if (f == null) {
                    differences.add(SchemaDifference.dropped(col.name(), col.isNullable()));
                    continue;
                }
                fields[i] = f;
                Integer digits = settings.timePrecisions.get(prefix + col.name());
                converters[i] = DebeziumFieldConverters.create(
                        col.type().getLogicalType(), f.schema(), digits == null ? 6 : digits);
            }
            for (Field f : schema.fields()) {
                if (table.indexOf(f.name()) < 0
                        && (excluded == null
                                || !excluded.matcher(prefix + f.name()).matches())) {
                    differences.add(
                            SchemaDifference.added(f.name(), null, f.schema().isOptional()));
                }
            }
            blocking = SchemaDifference.blocking(differences, settings.schemaChanges);
        }

        GenericRowData convert(Struct struct, RowKind kind) throws BadValue {
            GenericRowData row = new GenericRowData(kind, fields.length);
            for (int i = 0; i < fields.length; i++) {
                if (fields[i] == null) {
                    if (!table.columns().get(i).isNullable()) {
                        throw new BadValue(
                                "the NOT NULL column '" + table.columns().get(i).name() + "' is missing from the row");
                    }
                    continue;
                }
                // Not get(field): Connect answers a NULL with the column's DDL default, which Debezium puts in the
                // schema (status VARCHAR NULL DEFAULT 'new' would read 'new' where the row holds NULL).
                Object v = struct.getWithoutDefault(fields[i].name());
                if (v == null) {
                    if (!table.columns().get(i).isNullable()) {
                        throw new BadValue("the NOT NULL column '" + fields[i].name() + "' holds NULL");
                    }
                    continue;
                }
                try {
                    row.setField(i, converters[i].convert(v));
                } catch (RuntimeException e) {
                    throw new BadValue("column '" + fields[i].name() + "' ("
                            + table.columns().get(i).type() + "): " + e.getMessage());
                }
            }
            return row;
        }
    }
}
