package io.inlet.it;

import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Tables read into a canonical text form, value by value, so that a MySQL table read with JDBC and
 * an Iceberg table read with Iceberg's own generic reader compare exactly: numbers in full, decimals
 * with their scale, bytes in hex, times in ISO-8601, instants in UTC.
 */
final class Canonical {

    private Canonical() {}

    static String value(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof Short || v instanceof Byte || v instanceof Integer) {
            return String.valueOf(((Number) v).longValue());
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof byte[]) {
            StringBuilder hex = new StringBuilder("0x");
            for (byte b : (byte[]) v) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        }
        if (v instanceof ByteBuffer) {
            ByteBuffer b = ((ByteBuffer) v).duplicate();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return value(bytes);
        }
        if (v instanceof OffsetDateTime) {
            return ((OffsetDateTime) v).toInstant().toString();
        }
        if (v instanceof Timestamp) {
            return ((Timestamp) v).toInstant().toString();
        }
        if (v instanceof Instant || v instanceof LocalDate || v instanceof LocalTime || v instanceof LocalDateTime) {
            return v.toString();
        }
        return String.valueOf(v);
    }

    /** The rows of a MySQL table, each as {@code col=value} pairs in column order, sorted. */
    static List<String> mysql(Connection c, String database, String table) throws SQLException {
        Map<String, String> types = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS"
                                + " WHERE TABLE_SCHEMA = '" + database + "' AND TABLE_NAME = '" + table
                                + "' ORDER BY ORDINAL_POSITION")) {
            while (rs.next()) {
                types.put(
                        rs.getString(1),
                        rs.getString(2).toLowerCase(Locale.ROOT) + " "
                                + rs.getString(3).toLowerCase(Locale.ROOT));
            }
        }
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM `" + database + "`.`" + table + "`")) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    String name = md.getColumnName(i);
                    String type = types.get(name);
                    Object v;
                    if (type.startsWith("year ")) {
                        v = rs.getObject(i) == null ? null : rs.getInt(i);
                    } else if (type.startsWith("time ")) {
                        v = rs.getObject(i, LocalTime.class);
                    } else if (type.startsWith("datetime ")) {
                        v = rs.getObject(i, LocalDateTime.class);
                    } else if (type.startsWith("timestamp ")) {
                        Timestamp ts = rs.getTimestamp(i);
                        v = ts == null ? null : ts.toInstant();
                    } else if (type.startsWith("date ")) {
                        v = rs.getObject(i, LocalDate.class);
                    } else if (type.startsWith("bit ") && !type.endsWith("bit(1)")) {
                        v = rs.getBytes(i);
                    } else if (type.startsWith("decimal ")) {
                        v = rs.getBigDecimal(i);
                    } else if (type.startsWith("float ")) {
                        v = rs.getObject(i) == null ? null : rs.getFloat(i);
                    } else if (type.startsWith("tinyint ")
                            && type.contains("tinyint(1)")
                            && !type.contains("unsigned")) {
                        v = rs.getObject(i) == null ? null : rs.getBoolean(i);
                    } else if (type.startsWith("bigint ") && type.contains("unsigned")) {
                        v = rs.getBigDecimal(i);
                    } else {
                        v = rs.getObject(i);
                    }
                    row.append(i == 1 ? "" : ", ").append(name).append('=').append(value(v));
                }
                rows.add(row.toString());
            }
        }
        rows.sort(null);
        return rows;
    }

    /**
     * The rows of a MySQL table read as the given Flink row type says (a pipeline's view of the table,
     * e.g. through Debezium's type mapping), in the same form as {@link #iceberg} and {@link #flink}.
     */
    static List<String> mysqlAs(Connection c, String database, String table, RowType type) throws SQLException {
        String cols = type.getFieldNames().stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
        return mysqlQuery(c, "SELECT " + cols + " FROM `" + database + "`.`" + table + "`", type);
    }

    /** The rows a MySQL query returns, read as the given Flink row type says (column i as field i). */
    static List<String> mysqlQuery(Connection c, String query, RowType type) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 0; i < type.getFieldCount(); i++) {
                    int col = i + 1;
                    Object v;
                    switch (type.getTypeAt(i).getTypeRoot()) {
                        case BOOLEAN:
                            v = rs.getObject(col) == null ? null : rs.getBoolean(col);
                            break;
                        case TINYINT:
                        case SMALLINT:
                        case INTEGER:
                        case BIGINT:
                            v = rs.getObject(col) == null ? null : rs.getLong(col);
                            break;
                        case FLOAT:
                            v = rs.getObject(col) == null ? null : rs.getFloat(col);
                            break;
                        case DOUBLE:
                            // A MySQL FLOAT is a float32; Debezium hands it on as the exact double of
                            // that float, while JDBC's text protocol rounds it to a short decimal.
                            boolean float32 =
                                    "FLOAT".equalsIgnoreCase(rs.getMetaData().getColumnTypeName(col));
                            v = rs.getObject(col) == null
                                    ? null
                                    : float32 ? (double) rs.getFloat(col) : rs.getDouble(col);
                            break;
                        case DECIMAL:
                            v = rs.getBigDecimal(col);
                            break;
                        case BINARY:
                        case VARBINARY:
                            v = rs.getBytes(col);
                            break;
                        case DATE:
                            v = rs.getObject(col, LocalDate.class);
                            break;
                        case TIME_WITHOUT_TIME_ZONE:
                            v = rs.getObject(col, LocalTime.class);
                            break;
                        case TIMESTAMP_WITHOUT_TIME_ZONE:
                            v = rs.getObject(col, LocalDateTime.class);
                            break;
                        case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                            Timestamp ts = rs.getTimestamp(col);
                            v = ts == null ? null : ts.toInstant();
                            break;
                        default:
                            v = rs.getString(col);
                    }
                    row.append(i == 0 ? "" : ", ")
                            .append(type.getFieldNames().get(i))
                            .append('=')
                            .append(value(v));
                }
                rows.add(row.toString());
            }
        }
        rows.sort(null);
        return rows;
    }

    /** Flink rows (as a SQL query returns them) in the same form; columns named in skip are left out. */
    static List<String> flink(List<Row> rows, List<String> names, String... skip) {
        List<String> skipped = List.of(skip);
        List<String> out = new ArrayList<>();
        for (Row r : rows) {
            StringBuilder row = new StringBuilder();
            boolean first = true;
            for (int i = 0; i < names.size(); i++) {
                if (skipped.contains(names.get(i))) {
                    continue;
                }
                Object v = r.getField(i);
                if (v instanceof Short || v instanceof Byte || v instanceof Integer) {
                    v = ((Number) v).longValue();
                }
                row.append(first ? "" : ", ").append(names.get(i)).append('=').append(value(v));
                first = false;
            }
            out.add(row.toString());
        }
        out.sort(null);
        return out;
    }

    /** The rows of an Iceberg table, read with Iceberg's generic reader, in the same form. */
    static List<String> iceberg(Table table) {
        table.refresh();
        List<String> rows = new ArrayList<>();
        List<Types.NestedField> fields = table.schema().columns();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                StringBuilder row = new StringBuilder();
                for (int i = 0; i < fields.size(); i++) {
                    row.append(i == 0 ? "" : ", ")
                            .append(fields.get(i).name())
                            .append('=')
                            .append(value(r.get(i)));
                }
                rows.add(row.toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows.sort(null);
        return rows;
    }
}
