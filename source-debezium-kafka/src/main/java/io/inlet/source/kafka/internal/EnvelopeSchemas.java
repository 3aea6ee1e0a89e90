package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.source.SchemaDifference;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.Column;
import io.inlet.core.table.ColumnDefaults;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.avro.Schema;
import org.apache.flink.table.types.DataType;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Table descriptors from the value (envelope) and key schemas Debezium registered for a topic. */
@Internal
public final class EnvelopeSchemas {

    private EnvelopeSchemas() {}

    /**
     * The table of a topic: the columns of the envelope's {@code after} row, the key schema's fields
     * as primary key.
     *
     * @throws InletValidationException naming the topic and each field that cannot be mapped
     */
    public static TableDescriptor describe(TableId id, String topic, Schema value, @Nullable Schema key) {
        return describe(id, topic, value, key, null, TimePrecisionMode.TIME);
    }

    /**
     * As {@link #describe(TableId, String, Schema, Schema)}, leaving out the columns whose {@code
     * database.table.column} the exclusion matches, and typing TIME columns as the mode says.
     */
    public static TableDescriptor describe(
            TableId id,
            String topic,
            Schema value,
            @Nullable Schema key,
            @Nullable Pattern excluded,
            TimePrecisionMode timeMode) {
        Schema row = rowSchema(value, topic);
        List<String> problems = new ArrayList<>();
        TableDescriptor.Builder b = TableDescriptor.builder(id).comment(row.getDoc());
        for (Schema.Field f : row.getFields()) {
            if (isExcluded(id, f.name(), excluded)) {
                if (key != null && key.getType() == Schema.Type.RECORD && key.getField(f.name()) != null) {
                    problems.add(
                            "The key column " + id + "." + f.name() + " is excluded by 'exclude-columns'; keep it.");
                }
                continue;
            }
            try {
                b.column(
                        f.name(),
                        AvroSemantics.flinkType(AvroSemantics.of(f.schema()), timeMode),
                        AvroSemantics.doc(f));
            } catch (IllegalArgumentException e) {
                problems.add("Field '" + f.name() + "' of topic " + topic + " is " + e.getMessage()
                        + ", which Inlet cannot map to a column.");
            }
        }
        if (key != null) {
            if (key.getType() != Schema.Type.RECORD) {
                problems.add("The key schema of topic " + topic + " is a "
                        + key.getType().getName() + ", not a record of key columns as Debezium writes it.");
            } else {
                List<String> pk = new ArrayList<>();
                for (Schema.Field f : key.getFields()) {
                    if (row.getField(f.name()) == null) {
                        problems.add(
                                "The key field '" + f.name() + "' of topic " + topic + " is no column of its rows.");
                    }
                    pk.add(f.name());
                }
                b.primaryKey(pk);
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return b.build();
    }

    /**
     * What the rows written before each of the table's columns was added have in it, as the source
     * gives it them: per column that an older value schema of the topic lacks, the default (as {@link
     * ColumnDefaults} text) of the oldest schema since that has it. That is the schema of the {@code ADD
     * COLUMN ... DEFAULT}, into which Debezium writes the column's default; a later schema may carry a
     * default set after, which those rows do not have. Columns every schema has, or that came without a
     * default Inlet carries ({@link AvroSemantics#defaultText}), have none.
     *
     * <pre>{@code
     * Map<String, String> d = EnvelopeSchemas.addedDefaults(List.of(v1, v2), topic, table); // {grade=3}
     * }</pre>
     *
     * @param history the topic's value schemas, oldest first
     */
    public static Map<String, String> addedDefaults(List<Schema> history, String topic, TableDescriptor table) {
        List<Schema> rows = rows(history, topic);
        Map<String, String> out = new LinkedHashMap<>();
        for (Column c : table.columns()) {
            Schema.Field added = addingField(rows, c.name());
            String text = added == null ? null : AvroSemantics.defaultText(added);
            if (text == null) {
                continue;
            }
            try {
                ColumnDefaults.parse(text, c.type().getLogicalType());
                out.put(c.name(), text);
            } catch (IllegalArgumentException e) {
                // Not a constant of the column's type: the rows before keep NULL, as the live path leaves them.
            }
        }
        return out;
    }

    /** The row schemas of the value schemas, oldest first, from the last one that is no envelope on. */
    public static List<Schema> rows(List<Schema> history, String topic) {
        List<Schema> rows = new ArrayList<>();
        for (Schema value : history) {
            try {
                rows.add(rowSchema(value, topic));
            } catch (InletValidationException e) {
                rows.clear(); // not an envelope: what came before it tells nothing of the table's columns
            }
        }
        return rows;
    }

    /**
     * The column's field in the row schema that added it last: the oldest of the newest run of schemas
     * that have it, when a schema before lacks it. Null when every schema has it, when none does, or when
     * the schema that added it lost another column at once: a value schema says no DDL, and that may be a
     * rename, whose rows hold the old column's values, not the new one's default.
     *
     * @param rows row schemas, oldest first
     */
    @Nullable
    public static Schema.Field addingField(List<Schema> rows, String column) {
        int added = -1;
        for (int i = rows.size() - 1; i >= 0 && rows.get(i).getField(column) != null; i--) {
            added = i;
        }
        if (added <= 0) {
            return null;
        }
        Schema before = rows.get(added - 1);
        Schema at = rows.get(added);
        return before.getFields().stream().anyMatch(f -> at.getField(f.name()) == null) ? null : at.getField(column);
    }

    /** Whether exclude-columns leaves the column out. */
    public static boolean isExcluded(TableId id, String column, @Nullable Pattern excluded) {
        return excluded != null
                && excluded.matcher(id.identifier() + "." + column).matches();
    }

    /**
     * How a writer schema's rows differ from the table: columns added, dropped or typed differently;
     * empty when its rows have the table's shape.
     */
    public static List<SchemaDifference> differences(
            Schema writerValue, TableDescriptor table, @Nullable Pattern excluded, TimePrecisionMode timeMode) {
        List<SchemaDifference> out = new ArrayList<>();
        Schema row;
        try {
            row = rowSchema(writerValue, table.tableId().identifier());
        } catch (InletValidationException e) {
            out.add(SchemaDifference.unreadable("its values are no Debezium envelope any more"));
            return out;
        }
        for (Column c : table.columns()) {
            Schema.Field f = row.getField(c.name());
            if (f == null) {
                out.add(SchemaDifference.dropped(c.name()));
                continue;
            }
            DataType now;
            try {
                now = AvroSemantics.flinkType(AvroSemantics.of(f.schema()), timeMode);
            } catch (IllegalArgumentException e) {
                out.add(SchemaDifference.unreadable("column '" + c.name() + "' is now " + e.getMessage()));
                continue;
            }
            SchemaDifference retyped =
                    SchemaDifference.retyped(c.name(), c.type().getLogicalType(), now.getLogicalType());
            if (retyped != null) {
                out.add(retyped);
            }
        }
        for (Schema.Field f : row.getFields()) {
            if (table.indexOf(f.name()) < 0 && !isExcluded(table.tableId(), f.name(), excluded)) {
                boolean nullable;
                try {
                    nullable = AvroSemantics.of(f.schema()).nullable;
                } catch (IllegalArgumentException e) {
                    nullable = false;
                }
                out.add(SchemaDifference.added(f.name(), null, nullable));
            }
        }
        return out;
    }

    /**
     * The envelope record of a value schema: the schema itself, or the record branch of a nullable
     * union (Flink's debezium-avro-confluent format writes the envelope as ["null", record]).
     */
    public static Schema envelopeRecord(Schema value) {
        if (value.getType() == Schema.Type.UNION) {
            for (Schema branch : value.getTypes()) {
                if (branch.getType() == Schema.Type.RECORD) {
                    return branch;
                }
            }
        }
        return value;
    }

    /** The record type of the envelope's row images. */
    static Schema rowSchema(Schema value, String topic) {
        Schema envelope = envelopeRecord(value);
        if (envelope.getType() != Schema.Type.RECORD || envelope.getField("op") == null) {
            throw new InletValidationException("The value schema of topic " + topic + " (" + envelope.getFullName()
                    + ") is no Debezium envelope with"
                    + " 'before', 'after' and 'op'. Point the source at Debezium change topics.");
        }
        Schema.Field f = envelope.getField("after") != null ? envelope.getField("after") : envelope.getField("before");
        if (f == null) {
            throw new InletValidationException(
                    "The value schema of topic " + topic + " has neither 'after' nor 'before'.");
        }
        Schema s = f.schema();
        if (s.getType() == Schema.Type.UNION) {
            for (Schema branch : s.getTypes()) {
                if (branch.getType() == Schema.Type.RECORD) {
                    return branch;
                }
            }
        }
        if (s.getType() != Schema.Type.RECORD) {
            throw new InletValidationException("The 'after' field of topic " + topic + " holds no record.");
        }
        return s;
    }
}
