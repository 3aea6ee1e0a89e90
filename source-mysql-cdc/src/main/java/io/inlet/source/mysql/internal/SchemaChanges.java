package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.SchemaDifference;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.Column;
import io.inlet.core.table.ColumnDefaults;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import io.debezium.document.Array;
import io.debezium.document.Document;
import io.debezium.document.Value;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares a table as the pipeline was built with the table after a DDL statement, as Debezium
 * reports it in a schema-change record ({@code historyRecord.tableChanges[].table}, the whole table
 * after the statement): columns added, dropped, renamed, or retyped, in Inlet's type mapping. Columns
 * left out with {@code exclude-columns} are not compared.
 */
@Internal
public final class SchemaChanges {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaChanges.class);

    private static final Pattern RENAME =
            Pattern.compile("(?i)\\bRENAME\\s+COLUMN\\s+`?([^`\\s]+)`?\\s+TO\\s+`?([^`\\s,;]+)`?");
    private static final Pattern CHANGE =
            Pattern.compile("(?i)\\bCHANGE\\s+(?:COLUMN\\s+)?`?([^`\\s]+)`?\\s+`?([^`\\s]+)`?\\s");

    private SchemaChanges() {}

    /**
     * The differences between the table the pipeline was built with and the table after a DDL.
     *
     * @param after the {@code table} document of a table change
     * @param ddl the statement, for telling renames from a drop and an add
     */
    public static List<SchemaDifference> compare(
            TableDescriptor built,
            Document after,
            @Nullable String ddl,
            @Nullable Pattern excluded,
            boolean tinyInt1IsBoolean,
            TimePrecisionMode timeMode) {
        // By name, the column's type now; null for a type Inlet does not map (its rows fail on their own).
        Map<String, DataType> now = new LinkedHashMap<>();
        Array columns = after.getArray("columns");
        if (columns != null) {
            for (int i = 0; i < columns.size(); i++) {
                Value v = columns.get(i);
                if (v == null || !v.isDocument()) {
                    continue;
                }
                Document c = v.asDocument();
                String name = c.getString("name");
                if (name == null || isExcluded(built, name, excluded)) {
                    continue;
                }
                now.put(name, flinkType(c, tinyInt1IsBoolean, timeMode));
            }
        }
        List<String> droppedNames = new ArrayList<>();
        for (Column c : built.columns()) {
            if (!now.containsKey(c.name())) {
                droppedNames.add(c.name());
            }
        }
        List<String> addedNames = new ArrayList<>();
        for (String n : now.keySet()) {
            if (built.indexOf(n) < 0) {
                addedNames.add(n);
            }
        }
        List<SchemaDifference> out = new ArrayList<>();
        Map<String, String> renames = renames(ddl);
        for (Map.Entry<String, String> r : renames.entrySet()) {
            if (droppedNames.contains(r.getKey()) && addedNames.contains(r.getValue())) {
                out.add(SchemaDifference.renamed(r.getKey(), r.getValue()));
                droppedNames.remove(r.getKey());
                addedNames.remove(r.getValue());
            }
        }
        droppedNames.forEach(n -> out.add(SchemaDifference.dropped(n)));
        for (String n : addedNames) {
            DataType t = now.get(n);
            out.add(SchemaDifference.added(
                    n,
                    t == null ? null : t.getLogicalType(),
                    t == null || t.getLogicalType().isNullable()));
        }
        for (Column c : built.columns()) {
            DataType t = now.get(c.name());
            if (t == null) {
                continue; // dropped, or a type Inlet does not map
            }
            SchemaDifference retyped =
                    SchemaDifference.retyped(c.name(), c.type().getLogicalType(), t.getLogicalType());
            if (retyped != null) {
                out.add(retyped);
            }
        }
        return out;
    }

    /**
     * The change a DDL made to a captured table, for a pipeline that follows every schema change
     * ({@code evolve}); see {@link #change(TableDescriptor, Document, String, Pattern, boolean,
     * TimePrecisionMode, SchemaChangePolicy)}.
     */
    @Nullable
    public static SchemaChange change(
            TableDescriptor current,
            Document after,
            @Nullable String ddl,
            @Nullable Pattern excluded,
            boolean tinyInt1IsBoolean,
            TimePrecisionMode timeMode) {
        return change(
                current,
                after,
                ddl,
                excluded,
                tinyInt1IsBoolean,
                timeMode,
                SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE));
    }

    /**
     * The change a DDL made to a captured table, for a pipeline that follows schema changes: the
     * table after the statement becomes the next version of {@code current} (columns left out with
     * {@code exclude-columns} stay out; partitioning, properties and the table comment stay), and the
     * statement's renames are told apart from a drop and an add. The kinds of change the policy does
     * not follow keep the lake's values: an added column is left out, a dropped column stays
     * (nullable, NULL in the rows after), a renamed column stays under its old name and the new name
     * is added. Null when the statement changed nothing the pipeline follows (an index, a default, an
     * excluded column, a change of a kind the policy leaves alone).
     *
     * @param after the {@code table} document of the table change
     * @throws InletStopException naming the column and the fix when a column of the table now has a
     *     type Inlet does not map, or the primary key became a column the pipeline leaves out
     */
    @Nullable
    public static SchemaChange change(
            TableDescriptor current,
            Document after,
            @Nullable String ddl,
            @Nullable Pattern excluded,
            boolean tinyInt1IsBoolean,
            TimePrecisionMode timeMode,
            SchemaChangePolicy policy) {
        TableId id = current.tableId();
        String where = " (" + (ddl == null ? "a schema change" : ddl.trim()) + ")";
        List<Column> now = new ArrayList<>();
        Array array = after.getArray("columns");
        for (int i = 0; array != null && i < array.size(); i++) {
            Value v = array.get(i);
            if (v == null || !v.isDocument()) {
                continue;
            }
            Document c = v.asDocument();
            String name = c.getString("name");
            if (name == null || isExcluded(current, name, excluded)) {
                continue;
            }
            DataType type = flinkType(c, tinyInt1IsBoolean, timeMode);
            if (type == null) {
                throw new InletStopException("Table " + id + " changed in the source" + where + ": its column '" + name
                        + "' now has the type " + c.getString("typeExpression") + ", which Inlet cannot map to a"
                        + " Flink type. Leave the column out with 'exclude-columns' = '"
                        + Regexes.literal(id.database() + "." + id.table() + "." + name)
                        + "' and restart the job from its last checkpoint.");
            }
            String comment = c.getString("comment");
            if (comment == null) {
                comment = current.column(name).flatMap(Column::comment).orElse(null);
            }
            now.add(Column.of(name, type).withComment(comment));
        }
        List<String> key = new ArrayList<>();
        Array keyColumns = after.getArray("primaryKeyColumnNames");
        for (int i = 0; keyColumns != null && i < keyColumns.size(); i++) {
            String k = keyColumns.get(i).asString();
            if (now.stream().noneMatch(c -> c.name().equals(k))) {
                throw new InletStopException("Table " + id + " changed in the source" + where + ": its primary key"
                        + " now has the column '" + k + "', which 'exclude-columns' leaves out. Keep it, and restart"
                        + " the job from its last checkpoint.");
            }
            key.add(k);
        }
        try {
            Map<String, String> renames = renames(ddl);
            SchemaChange change = policy.follow(current, now, key, renames, ddl == null ? null : ddl.trim());
            if (change != null) {
                Map<String, String> carried = new LinkedHashMap<>();
                for (Map.Entry<String, String> d : addedDefaults(change, after).entrySet()) {
                    if (renames.containsValue(d.getKey())) {
                        // A rename the lake does not follow adds the new name: MySQL's rows hold the old column's
                        // values there, not the default the statement gives (CHANGE b c INT DEFAULT 0).
                        continue;
                    }
                    LogicalType type = change.after()
                            .column(d.getKey())
                            .orElseThrow()
                            .type()
                            .getLogicalType();
                    try {
                        ColumnDefaults.parse(d.getValue(), type);
                        if (!literalIn(ddl, d.getValue())) {
                            // Debezium's parser writes CURRENT_TIMESTAMP as 1970-01-01 00:00:00 and keeps the
                            // escapes of a quoted string: only a literal the statement spells out is the value.
                            throw new IllegalArgumentException("the statement does not spell the default out as"
                                    + " a plain literal (an expression such as CURRENT_TIMESTAMP, or a string with"
                                    + " escapes or a character set)");
                        }
                        carried.put(d.getKey(), d.getValue());
                    } catch (IllegalArgumentException notAConstant) {
                        LOG.warn(
                                "Table {} changed in the source{}: column '{}' was added with the default '{}'."
                                        + " MySQL shows its value in the rows that existed before; Inlet cannot"
                                        + " give them that value ({}), so the lake has NULL in them until each"
                                        + " changes. Rows inserted or changed from here on carry their value.",
                                id,
                                where,
                                d.getKey(),
                                d.getValue(),
                                notAConstant.getMessage());
                    }
                }
                if (!carried.isEmpty()) {
                    // The sinks give the rows that existed before this value, as MySQL does without a binlog row.
                    change = change.withDefaultValues(carried);
                }
            }
            return change;
        } catch (IllegalArgumentException e) {
            // E.g. no column left, or a partition column dropped: the same on every restart.
            throw new InletStopException(
                    "Table " + id + " changed in the source" + where + " into a shape the" + " pipeline cannot follow: "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * The columns the change adds that have a default other than NULL, with Debezium's expression of
     * it ({@code hasDefaultValue}, {@code defaultValueExpression} in the table document): MySQL fills the
     * table's existing rows with it without writing them to the binlog.
     */
    static Map<String, String> addedDefaults(SchemaChange change, Document after) {
        Map<String, String> out = new LinkedHashMap<>();
        Array array = after.getArray("columns");
        for (ColumnChange c : change.changes()) {
            if (c.kind() != ColumnChange.Kind.ADDED) {
                continue;
            }
            for (int i = 0; array != null && i < array.size(); i++) {
                Value v = array.get(i);
                if (v == null
                        || !v.isDocument()
                        || !c.column().equals(v.asDocument().getString("name"))) {
                    continue;
                }
                Document d = v.asDocument();
                String expression = d.getString("defaultValueExpression");
                if (Boolean.TRUE.equals(d.getBoolean("hasDefaultValue"))
                        && expression != null
                        && !expression.equalsIgnoreCase("NULL")) {
                    out.put(c.column(), expression);
                }
            }
        }
        return out;
    }

    /**
     * Whether the statement has {@code DEFAULT <value>} or {@code DEFAULT '<value>'} with the value as it
     * is: then Debezium's text of the default is the value MySQL gives the rows.
     */
    static boolean literalIn(@Nullable String ddl, String value) {
        if (ddl == null || value.indexOf('\'') >= 0 || value.indexOf('\\') >= 0) {
            return false;
        }
        String v = Pattern.quote(value);
        return Pattern.compile("(?i)\\bDEFAULT\\s*\\(?\\s*(?:'" + v + "'|" + v + "(?![\\w.'(]))")
                .matcher(ddl)
                .find();
    }

    private static boolean isExcluded(TableDescriptor t, String column, @Nullable Pattern excluded) {
        return excluded != null
                && excluded.matcher(t.tableId().database() + "." + t.tableId().table() + "." + column)
                        .matches();
    }

    /** Renamed columns named by the statement, old name to new. */
    static Map<String, String> renames(@Nullable String ddl) {
        Map<String, String> out = new LinkedHashMap<>();
        if (ddl == null) {
            return out;
        }
        Matcher m = RENAME.matcher(ddl);
        while (m.find()) {
            out.put(m.group(1), m.group(2));
        }
        m = CHANGE.matcher(ddl + " ");
        while (m.find()) {
            if (!m.group(1).equals(m.group(2))) {
                out.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    /**
     * The Flink type Inlet maps a column to, from Debezium's description of it (type name, length,
     * scale, optional), the way {@link MySqlTypes} maps {@code information_schema}; null when there
     * is no mapping.
     */
    @Nullable
    static DataType flinkType(Document column, boolean tinyInt1IsBoolean, TimePrecisionMode timeMode) {
        String typeName = Objects.toString(column.getString("typeName"), "").trim();
        String expression = Objects.toString(column.getString("typeExpression"), typeName);
        String upper = (typeName + " " + expression).toUpperCase(Locale.ROOT);
        boolean unsigned = upper.contains("UNSIGNED");
        String base = typeName.toLowerCase(Locale.ROOT).split("[\\s(]")[0];
        Integer length = column.getInteger("length");
        Integer scale = column.getInteger("scale");
        String columnType = base + (length != null ? "(" + length + ")" : "") + (unsigned ? " unsigned" : "");
        Long charLength = null;
        Long precision = null;
        Long datetime = null;
        switch (base) {
            case "char":
            case "varchar":
            case "binary":
            case "varbinary":
                charLength = length == null ? null : length.longValue();
                break;
            case "decimal":
            case "numeric":
            case "dec":
            case "fixed":
            case "bit":
                precision = length == null ? null : length.longValue();
                break;
            case "time":
            case "datetime":
            case "timestamp":
                datetime = length == null ? 0L : length.longValue();
                break;
            default:
                break;
        }
        DataType type = MySqlTypes.toFlink(
                base,
                columnType,
                charLength,
                precision,
                scale == null ? null : scale.longValue(),
                datetime,
                tinyInt1IsBoolean,
                timeMode);
        if (type == null) {
            return null;
        }
        Boolean optional = column.getBoolean("optional");
        return optional != null && !optional ? type.notNull() : type;
    }
}
