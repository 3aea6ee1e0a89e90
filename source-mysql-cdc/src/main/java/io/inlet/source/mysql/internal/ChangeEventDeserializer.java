package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import com.ververica.cdc.debezium.DebeziumDeserializationSchema;
import io.debezium.data.Envelope;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.annotation.Nullable;

/**
 * Turns Debezium's change records straight into {@link ChangeEvent}s: no JSON in between. Snapshot
 * reads and inserts become {@code +I}, updates {@code -U} and {@code +U}, deletes {@code -D}; the
 * binlog position and the source timestamp travel along (snapshot rows have neither).
 *
 * <p>Fields are matched to the table's columns by name, so a column added to the table while the
 * job runs does not shift values: it is reported once and left out until the pipeline is rebuilt,
 * and a dropped nullable column reads as NULL.
 */
@Internal
public final class ChangeEventDeserializer implements DebeziumDeserializationSchema<ChangeEvent> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ChangeEventDeserializer.class);

    private final List<TableDescriptor> tables;
    private final ChangeEventTypeInfo typeInfo;
    @Nullable private final String excludeColumns;

    private transient Map<TableId, TableDescriptor> byId;
    private transient Map<Schema, StructConverter> converters;

    /**
     * @param excludeColumns the regular expression over {@code database.table.column} of columns
     *     left out on purpose (not reported as unexpected)
     */
    public ChangeEventDeserializer(List<TableDescriptor> tables, ChangeEventTypeInfo typeInfo, @Nullable String excludeColumns) {
        this.tables = new ArrayList<>(tables);
        this.typeInfo = typeInfo;
        this.excludeColumns = excludeColumns;
    }

    @Override
    public TypeInformation<ChangeEvent> getProducedType() {
        return typeInfo;
    }

    @Override
    public void deserialize(SourceRecord record, Collector<ChangeEvent> out) {
        if (byId == null) {
            byId = new HashMap<>();
            tables.forEach(t -> byId.put(t.tableId(), t));
            converters = new IdentityHashMap<>();
        }
        Struct value = (Struct) record.value();
        if (value == null || value.schema().field(Envelope.FieldName.OPERATION) == null) {
            return; // not a row change (schema changes and heartbeats are not sent here)
        }
        Struct source = value.getStruct(Envelope.FieldName.SOURCE);
        TableId id = TableId.of(source.getString("db"), source.getString("table"));
        TableDescriptor table = byId.get(id);
        if (table == null) {
            throw new IllegalStateException(
                    "A change of table " + id + ", which the pipeline did not capture when it was built, reached the"
                            + " source. Rebuild the pipeline to capture it.");
        }
        long ts = source.getInt64("ts_ms");
        long timestamp = ts > 0 ? ts : ChangeEvent.UNKNOWN_TIMESTAMP; // snapshot rows carry 0
        SourcePosition position = position(source);
        Envelope.Operation op = Envelope.Operation.forCode(value.getString(Envelope.FieldName.OPERATION));
        try {
            switch (op) {
                case READ:
                case CREATE:
                    emit(out, table, RowKind.INSERT, value.getStruct(Envelope.FieldName.AFTER), timestamp, position);
                    break;
                case UPDATE:
                    emit(out, table, RowKind.UPDATE_BEFORE, value.getStruct(Envelope.FieldName.BEFORE), timestamp, position);
                    emit(out, table, RowKind.UPDATE_AFTER, value.getStruct(Envelope.FieldName.AFTER), timestamp, position);
                    break;
                case DELETE:
                    emit(out, table, RowKind.DELETE, value.getStruct(Envelope.FieldName.BEFORE), timestamp, position);
                    break;
                default:
                    throw new IllegalStateException("Unexpected Debezium operation " + op);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Cannot read a change of " + id + (position.kind() == SourcePosition.Kind.NONE ? " (snapshot)" : " at binlog " + position)
                            + ": " + e.getMessage(),
                    e);
        }
    }

    private static SourcePosition position(Struct source) {
        String file = source.schema().field("file") == null ? null : source.getString("file");
        if (file == null || file.isEmpty() || "true".equals(sourceSnapshot(source))) {
            return SourcePosition.none();
        }
        Long pos = source.getInt64("pos");
        Integer row = source.schema().field("row") == null ? null : source.getInt32("row");
        return SourcePosition.binlog(file, pos == null ? -1L : pos, row == null ? 0 : row);
    }

    private static String sourceSnapshot(Struct source) {
        return source.schema().field("snapshot") == null ? null : String.valueOf(source.get("snapshot"));
    }

    private void emit(
            Collector<ChangeEvent> out, TableDescriptor table, RowKind kind, Struct row, long ts, SourcePosition position) {
        if (row == null) {
            throw new IllegalArgumentException(
                    "the " + kind.shortString() + " change has no row image. Set binlog_row_image=FULL on the server.");
        }
        StructConverter c = converters.get(row.schema());
        if (c == null) {
            c = new StructConverter(table, row.schema(), excludeColumns == null ? null : Pattern.compile(excludeColumns));
            converters.put(row.schema(), c);
        }
        out.collect(ChangeEvent.of(table.tableId(), table.schemaVersion(), c.convert(row, kind), ts, position));
    }

    /** Converts the structs of one table at one Connect schema. */
    private static final class StructConverter {
        private final TableDescriptor table;
        private final Field[] fields;
        private final DebeziumFieldConverters.FieldConverter[] converters;

        StructConverter(TableDescriptor table, Schema schema, @Nullable Pattern excluded) {
            this.table = table;
            List<Column> columns = table.columns();
            this.fields = new Field[columns.size()];
            this.converters = new DebeziumFieldConverters.FieldConverter[columns.size()];
            for (int i = 0; i < columns.size(); i++) {
                Column col = columns.get(i);
                Field f = schema.field(col.name());
                if (f == null && !col.isNullable()) {
                    throw new IllegalArgumentException(
                            "the NOT NULL column '" + col.name() + "' is missing from the row; the table changed since the"
                                    + " pipeline was built. Rebuild the pipeline.");
                }
                fields[i] = f;
                converters[i] = f == null ? null : DebeziumFieldConverters.create(col.type().getLogicalType(), f.schema());
            }
            List<String> added = schema.fields().stream()
                    .map(Field::name)
                    .filter(n -> table.indexOf(n) < 0)
                    .filter(n -> excluded == null
                            || !excluded.matcher(table.tableId().database() + "." + table.tableId().table() + "." + n).matches())
                    .collect(Collectors.toList());
            List<String> dropped = new ArrayList<>();
            for (int i = 0; i < fields.length; i++) {
                if (fields[i] == null) {
                    dropped.add(columns.get(i).name());
                }
            }
            if (!added.isEmpty() || !dropped.isEmpty()) {
                LOG.warn(
                        "The rows of {} no longer match the schema the pipeline was built with: columns {} are not captured,"
                                + " columns {} read as NULL. Rebuild the pipeline to follow the new schema.",
                        table.tableId(), added, dropped);
            }
        }

        GenericRowData convert(Struct struct, RowKind kind) {
            GenericRowData row = new GenericRowData(kind, fields.length);
            for (int i = 0; i < fields.length; i++) {
                if (fields[i] == null) {
                    continue;
                }
                Object v = struct.get(fields[i]);
                if (v != null) {
                    try {
                        row.setField(i, converters[i].convert(v));
                    } catch (RuntimeException e) {
                        throw new IllegalArgumentException(
                                "column '" + fields[i].name() + "' (" + table.columns().get(i).type() + "): " + e.getMessage(), e);
                    }
                }
            }
            return row;
        }
    }
}
