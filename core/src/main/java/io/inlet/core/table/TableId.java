package io.inlet.core.table;

import io.inlet.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;

/**
 * Identifies a table: an optional database (schema or namespace) and a table name, for example
 * {@code inventory.orders}. Immutable; names are case-sensitive and kept as the source spells them.
 *
 * <pre>{@code
 * TableId orders = TableId.of("inventory", "orders");
 * TableId same = TableId.parse("inventory.orders");
 * TableId dotted = TableId.parse("`my.db`.orders"); // back-ticks quote names that contain dots
 * }</pre>
 */
@PublicEvolving
public final class TableId implements Serializable, Comparable<TableId> {

    private static final long serialVersionUID = 1L;

    @Nullable
    private final String database;

    private final String table;

    private TableId(@Nullable String database, String table) {
        this.database = database;
        this.table = table;
    }

    /** A table inside a database. */
    public static TableId of(String database, String table) {
        requireName(database, "database");
        requireName(table, "table");
        return new TableId(database, table);
    }

    /** A table without a database (for example a topic-named table). */
    public static TableId of(String table) {
        requireName(table, "table");
        return new TableId(null, table);
    }

    /**
     * Parses {@code table} or {@code database.table}. Either part may be quoted with back-ticks when
     * it contains a dot; a back-tick inside a quoted part is written twice.
     *
     * @throws IllegalArgumentException naming the input when it is not of that form
     */
    public static TableId parse(String text) {
        Objects.requireNonNull(text, "table id text");
        String[] parts = splitIdentifier(text);
        if (parts.length == 1) {
            return of(parts[0]);
        }
        if (parts.length == 2) {
            return of(parts[0], parts[1]);
        }
        throw new IllegalArgumentException("Cannot parse table id '"
                + text
                + "': expected 'table' or 'database.table'; quote names that contain a dot"
                + " with back-ticks, e.g. `my.db`.orders.");
    }

    private static String[] splitIdentifier(String text) {
        java.util.List<String> parts = new java.util.ArrayList<>(2);
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        boolean partWasQuoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '`') {
                if (quoted && i + 1 < text.length() && text.charAt(i + 1) == '`') {
                    current.append('`');
                    i++;
                } else {
                    quoted = !quoted;
                    partWasQuoted = true;
                }
            } else if (c == '.' && !quoted) {
                parts.add(checkPart(text, current.toString(), partWasQuoted));
                current.setLength(0);
                partWasQuoted = false;
            } else {
                current.append(c);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException(
                    "Cannot parse table id '" + text + "': a back-tick quote is not closed.");
        }
        parts.add(checkPart(text, current.toString(), partWasQuoted));
        return parts.toArray(new String[0]);
    }

    private static String checkPart(String text, String part, boolean quoted) {
        if (!quoted && part.trim().isEmpty()) {
            throw new IllegalArgumentException("Cannot parse table id '"
                    + text
                    + "': it has an empty part; expected 'table' or 'database.table'.");
        }
        return part;
    }

    private static void requireName(String name, String what) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("The " + what + " name of a table id must not be empty.");
        }
    }

    /** The database, schema or namespace; {@code null} when the table has none. */
    @Nullable
    public String database() {
        return database;
    }

    /** The table name. */
    public String table() {
        return table;
    }

    /** {@code database.table} with back-ticks where a part contains a dot or a back-tick. */
    public String identifier() {
        return database == null ? quote(table) : quote(database) + "." + quote(table);
    }

    private static String quote(String part) {
        if (part.indexOf('.') < 0 && part.indexOf('`') < 0) {
            return part;
        }
        return "`" + part.replace("`", "``") + "`";
    }

    @Override
    public int compareTo(TableId other) {
        int byDatabase = database == null
                ? (other.database == null ? 0 : -1)
                : (other.database == null ? 1 : database.compareTo(other.database));
        return byDatabase != 0 ? byDatabase : table.compareTo(other.table);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TableId)) {
            return false;
        }
        TableId that = (TableId) o;
        return Objects.equals(database, that.database) && table.equals(that.table);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(database) + table.hashCode();
    }

    /** The same as {@link #identifier()}. */
    @Override
    public String toString() {
        return identifier();
    }
}
