package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.table.TableDescriptor;

import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Iceberg schemas and partition specs from table descriptors, and checks of existing tables. */
@Internal
public final class IcebergTables {

    private static final Pattern TRANSFORM =
            Pattern.compile("\\s*(\\w+)\\s*\\(\\s*`?([^`,()]+?)`?\\s*(?:,\\s*(\\d+)\\s*)?\\)\\s*");

    private IcebergTables() {}

    /**
     * The Iceberg schema of a descriptor: columns with comments, the primary key as identifier
     * fields.
     *
     * @throws InletValidationException when Iceberg cannot take the schema (for example a FLOAT key)
     */
    public static Schema schema(TableDescriptor t) {
        try {
            return FlinkSchemaUtil.convert(t.toResolvedSchema());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            throw new InletValidationException("Iceberg cannot hold table " + t.tableId() + ": " + e.getMessage()
                    + ". Leave the offending column out at the source, or project it away.");
        }
    }

    /**
     * The partition spec: the descriptor's partition columns (identity), or a spec text such as
     * {@code day(created), bucket(id, 16), truncate(name, 4), customer}.
     */
    public static PartitionSpec spec(Schema schema, TableDescriptor t, @Nullable String specText) {
        PartitionSpec.Builder b = PartitionSpec.builderFor(schema);
        try {
            if (specText == null || specText.trim().isEmpty()) {
                t.partitionKeys().forEach(b::identity);
                return b.build();
            }
            for (String part : splitTopLevel(specText)) {
                Matcher m = TRANSFORM.matcher(part);
                if (!m.matches()) {
                    String col = part.trim().replace("`", "");
                    if (col.isEmpty()) {
                        throw new IllegalArgumentException("empty entry");
                    }
                    b.identity(col);
                    continue;
                }
                String fn = m.group(1).toLowerCase(Locale.ROOT);
                String col = m.group(2).trim();
                Integer n = m.group(3) == null ? null : Integer.valueOf(m.group(3));
                switch (fn) {
                    case "identity":
                        b.identity(col);
                        break;
                    case "year":
                    case "years":
                        b.year(col);
                        break;
                    case "month":
                    case "months":
                        b.month(col);
                        break;
                    case "day":
                    case "days":
                        b.day(col);
                        break;
                    case "hour":
                    case "hours":
                        b.hour(col);
                        break;
                    case "bucket":
                        b.bucket(col, required(n, part));
                        break;
                    case "truncate":
                        b.truncate(col, required(n, part));
                        break;
                    default:
                        throw new IllegalArgumentException("unknown transform '" + fn + "'");
                }
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new InletValidationException(
                    "The partition spec '" + specText + "' of table " + t.tableId() + " is invalid: " + e.getMessage()
                            + ". Write entries like 'day(created)', 'bucket(id, 16)', 'truncate(name, 4)'" + " or a"
                            + " column name.");
        }
    }

    private static int required(Integer n, String part) {
        if (n == null) {
            throw new IllegalArgumentException("'" + part.trim() + "' needs a number, e.g. bucket(id, 16)");
        }
        return n;
    }

    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        StringBuilder cur = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                parts.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        parts.add(cur.toString());
        return parts;
    }

    /**
     * Upserts delete by key within a partition, so every partition source column must be a key
     * column; returns the problem, or null.
     */
    @Nullable
    public static String upsertPartitionProblem(
            String tableName, PartitionSpec spec, Schema schema, List<String> primaryKey) {
        Set<String> outside = new TreeSet<>();
        for (PartitionField f : spec.fields()) {
            String source = schema.findColumnName(f.sourceId());
            if (!primaryKey.contains(source)) {
                outside.add(source);
            }
        }
        if (outside.isEmpty()) {
            return null;
        }
        return "Table " + tableName + " is partitioned by " + outside + ", which are not part of its primary key "
                + primaryKey + ". In upsert mode Iceberg deletes a key within one partition, so a row whose partition"
                + " value changes would stay behind in its old partition. Partition by key columns"
                + " (e.g. bucket(id, 16)),"
                + " or set 'write-mode' = 'changelog'.";
    }

    /** The schema's top-level column names, in order. */
    public static List<String> names(Schema schema) {
        List<String> names = new ArrayList<>();
        schema.columns().forEach(c -> names.add(c.name()));
        return names;
    }

    /** Problems that keep the existing table from taking the descriptor's rows; empty when none. */
    public static List<String> compatibility(Table table, Schema wanted, TableDescriptor t) {
        return compatibility(table, wanted, t, false);
    }

    /**
     * As {@link #compatibility(Table, Schema, TableDescriptor)}; {@code schemaChangesFollowed}: the job
     * brings the table along ({@link IcebergSchemaUpdates#union}), so only a column whose type neither
     * holds the rows' values nor can be widened to, and the identifier fields, are problems.
     */
    public static List<String> compatibility(
            Table table, Schema wanted, TableDescriptor t, boolean schemaChangesFollowed) {
        List<String> problems = new ArrayList<>();
        String name = table.name();
        List<String> tableColumns = names(table.schema());
        List<String> rowColumns = names(wanted);
        List<String> missing = new ArrayList<>(rowColumns);
        missing.removeAll(tableColumns);
        List<String> extra = new ArrayList<>(tableColumns);
        extra.removeAll(rowColumns);
        if (schemaChangesFollowed) {
            for (Types.NestedField w : wanted.columns()) {
                Types.NestedField have = table.schema().findField(w.name());
                if (have != null && !IcebergSchemaUpdates.canTake(have.type(), w.type())) {
                    problems.add("The existing Iceberg table " + name + " has the column " + w.name() + " as "
                            + have.type() + ", which cannot take the " + w.type() + " values of " + t.tableId()
                            + " nor be widened to it. Align the table (ALTER TABLE) or write to another table.");
                }
            }
        } else if (!missing.isEmpty() || !extra.isEmpty()) {
            problems.add("The existing Iceberg table " + name + " has the columns " + tableColumns + ", the rows of "
                    + t.tableId()
                    + " have " + rowColumns + (missing.isEmpty() ? "" : "; missing in the table: " + missing)
                    + (extra.isEmpty() ? "" : "; only in the table: " + extra)
                    + ". Align the table (ALTER TABLE ... ADD/DROP COLUMN) or write to another table.");
        } else {
            try {
                // Ids by name, as Iceberg's FlinkSink does before it validates.
                TypeUtil.validateWriteSchema(table.schema(), TypeUtil.reassignIds(wanted, table.schema()), true, true);
            } catch (IllegalArgumentException e) {
                problems.add("The existing Iceberg table " + name + " cannot take the rows of " + t.tableId() + ": "
                        + e.getMessage().replaceAll("\\s+", " ")
                        + " Align the table (ALTER TABLE) or write to another table.");
            }
        }
        Set<String> ids = new TreeSet<>(table.schema().identifierFieldNames());
        Set<String> pk = new TreeSet<>(t.primaryKey());
        if (!ids.equals(pk)) {
            problems.add(
                    "The existing Iceberg table " + name + " has the identifier fields " + ids + " but " + t.tableId()
                            + " has the primary key " + pk + ". Set them to match (ALTER TABLE " + name
                            + " SET IDENTIFIER FIELDS ...) or write to another table.");
        }
        if (table instanceof HasTableOperations) {
            int version = ((HasTableOperations) table).operations().current().formatVersion();
            if (version < 2) {
                problems.add("The existing Iceberg table " + name + " is format version " + version
                        + "; updates and deletes" + " need version 2. Upgrade it: ALTER TABLE " + name
                        + " SET TBLPROPERTIES ('format-version'='2').");
            }
        }
        return problems;
    }
}
