package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.table.ColumnDefaults;

import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * One typed change to a table's columns, as part of a {@link SchemaChange}: a column added (with its
 * type and place), dropped, renamed, or given another type (which includes a column that became
 * nullable). Sinks apply these to their tables; schema-change policies judge them by {@link #kind()}.
 * Immutable.
 *
 * <pre>{@code
 * ColumnChange.added("note", new VarCharType(true, 200), "name"); // ADD COLUMN note ... AFTER name
 * ColumnChange.retyped("qty", new IntType(false), new BigIntType(false)); // widening
 * ColumnChange.renamed("descr", "description");
 * }</pre>
 */
@PublicEvolving
public final class ColumnChange implements Serializable {

    private static final long serialVersionUID = 1L;

    /** What happened to the column. */
    public enum Kind {
        ADDED,
        DROPPED,
        RENAMED,
        RETYPED
    }

    private final Kind kind;
    private final String column;

    @Nullable
    private final String newName;

    @Nullable
    private final LogicalType oldType;

    @Nullable
    private final LogicalType newType;

    @Nullable
    private final String after;

    /** For an added column, the value the source gives the rows that existed before, as text. */
    @Nullable
    private final String defaultValue;

    private ColumnChange(
            Kind kind,
            String column,
            @Nullable String newName,
            @Nullable LogicalType oldType,
            @Nullable LogicalType newType,
            @Nullable String after) {
        this(kind, column, newName, oldType, newType, after, null);
    }

    private ColumnChange(
            Kind kind,
            String column,
            @Nullable String newName,
            @Nullable LogicalType oldType,
            @Nullable LogicalType newType,
            @Nullable String after,
            @Nullable String defaultValue) {
        if (column == null || column.isEmpty()) {
            throw new IllegalArgumentException("A column change needs the column's name.");
        }
        this.kind = kind;
        this.column = column;
        this.newName = newName;
        this.oldType = oldType;
        this.newType = newType;
        this.after = after;
        this.defaultValue = defaultValue;
    }

    /**
     * A column added to the table.
     *
     * @param after the column it follows in the new schema, or null when it is the first column
     */
    public static ColumnChange added(String column, LogicalType type, @Nullable String after) {
        return new ColumnChange(Kind.ADDED, column, null, null, Objects.requireNonNull(type, "type"), after);
    }

    /**
     * The added column with the value the source gives the rows that existed before the change (MySQL's
     * {@code ADD COLUMN ... DEFAULT 'x'} fills them without writing them to the binlog), in the text
     * {@link ColumnDefaults#parse} reads for the column's type.
     *
     * @throws IllegalArgumentException when this is not an added column, or the text is not a value of its type
     */
    public ColumnChange withDefaultValue(@Nullable String text) {
        if (kind != Kind.ADDED) {
            throw new IllegalArgumentException("Only an added column has a default for the rows before: " + this);
        }
        if (text != null) {
            ColumnDefaults.parse(text, newType);
        }
        return new ColumnChange(kind, column, null, null, newType, after, text);
    }

    /** A column dropped from the table. */
    public static ColumnChange dropped(String column) {
        return new ColumnChange(Kind.DROPPED, column, null, null, null, null);
    }

    /** A column renamed; its values and type stay. */
    public static ColumnChange renamed(String column, String newName) {
        if (newName == null || newName.isEmpty()) {
            throw new IllegalArgumentException("A renamed column needs its new name.");
        }
        return new ColumnChange(Kind.RENAMED, column, newName, null, null, null);
    }

    /** A column whose type (or nullability) changed. */
    public static ColumnChange retyped(String column, LogicalType oldType, LogicalType newType) {
        if (oldType.equals(newType)) {
            throw new IllegalArgumentException("Column " + column + " keeps its type " + oldType + ": no change.");
        }
        return new ColumnChange(
                Kind.RETYPED,
                column,
                null,
                Objects.requireNonNull(oldType, "oldType"),
                Objects.requireNonNull(newType, "newType"),
                null);
    }

    /**
     * For an added column, the value the rows that existed before the change have in the source, as
     * text ({@link ColumnDefaults#parse} turns it into a value of the column's
     * type); empty when they have NULL, or the source does not say.
     */
    public Optional<String> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    public Kind kind() {
        return kind;
    }

    /** The column's name before the change (for {@link Kind#ADDED}: its name). */
    public String column() {
        return column;
    }

    /** For {@link Kind#RENAMED}: the new name. */
    public Optional<String> newName() {
        return Optional.ofNullable(newName);
    }

    /** For {@link Kind#RETYPED}: the type before the change. */
    public Optional<LogicalType> oldType() {
        return Optional.ofNullable(oldType);
    }

    /** For {@link Kind#ADDED} and {@link Kind#RETYPED}: the column's type after the change. */
    public Optional<LogicalType> newType() {
        return Optional.ofNullable(newType);
    }

    /** For {@link Kind#ADDED}: the column it follows, empty when it is the first. */
    public Optional<String> after() {
        return Optional.ofNullable(after);
    }

    /**
     * Whether every value of the old type is a value of the new one, so rows written before stay
     * valid: a nullable column stays nullable, and the type is the same or one of INT to BIGINT,
     * FLOAT to DOUBLE, DECIMAL(p, s) to DECIMAL(p', s) with p' &gt;= p, or CHAR/VARCHAR/BINARY/VARBINARY
     * to a longer length of the same family. Only for {@link Kind#RETYPED}; false for the others.
     */
    public boolean isWidening() {
        if (kind != Kind.RETYPED) {
            return false;
        }
        if (oldType.isNullable() && !newType.isNullable()) {
            return false;
        }
        LogicalType from = oldType.copy(true);
        LogicalType to = newType.copy(true);
        if (from.equals(to)) {
            return true;
        }
        LogicalTypeRoot a = from.getTypeRoot();
        LogicalTypeRoot b = to.getTypeRoot();
        if (a == LogicalTypeRoot.INTEGER || a == LogicalTypeRoot.SMALLINT || a == LogicalTypeRoot.TINYINT) {
            return b == LogicalTypeRoot.BIGINT
                    || (b == LogicalTypeRoot.INTEGER && a != LogicalTypeRoot.INTEGER)
                    || (b == LogicalTypeRoot.SMALLINT && a == LogicalTypeRoot.TINYINT);
        }
        if (a == LogicalTypeRoot.FLOAT) {
            return b == LogicalTypeRoot.DOUBLE;
        }
        if (a == LogicalTypeRoot.DECIMAL && b == LogicalTypeRoot.DECIMAL) {
            DecimalType d1 = (DecimalType) from;
            DecimalType d2 = (DecimalType) to;
            return d1.getScale() == d2.getScale() && d2.getPrecision() >= d1.getPrecision();
        }
        if (isCharacterString(a) && isCharacterString(b)) {
            return b == LogicalTypeRoot.VARCHAR && length(from) <= length(to);
        }
        if (isBinaryString(a) && isBinaryString(b)) {
            return b == LogicalTypeRoot.VARBINARY && length(from) <= length(to);
        }
        return false;
    }

    private static boolean isCharacterString(LogicalTypeRoot root) {
        return root == LogicalTypeRoot.CHAR || root == LogicalTypeRoot.VARCHAR;
    }

    private static boolean isBinaryString(LogicalTypeRoot root) {
        return root == LogicalTypeRoot.BINARY || root == LogicalTypeRoot.VARBINARY;
    }

    private static int length(LogicalType type) {
        // CHAR(n), VARCHAR(n), BINARY(n), VARBINARY(n): the length is the one parameter of the type.
        return LogicalTypeChecks.getLength(type);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ColumnChange)) {
            return false;
        }
        ColumnChange that = (ColumnChange) o;
        return kind == that.kind
                && column.equals(that.column)
                && Objects.equals(newName, that.newName)
                && Objects.equals(oldType, that.oldType)
                && Objects.equals(newType, that.newType)
                && Objects.equals(after, that.after)
                && Objects.equals(defaultValue, that.defaultValue);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, column, newName, oldType, newType, after, defaultValue);
    }

    /** The change in words, e.g. {@code column 'qty' changed its type from INT to BIGINT}. */
    @Override
    public String toString() {
        switch (kind) {
            case ADDED:
                return "column '" + column + "' was added (" + newType.asSummaryString() + ", "
                        + (after == null ? "first" : "after '" + after + "'")
                        + (defaultValue == null ? "" : ", default '" + defaultValue + "'") + ")";
            case DROPPED:
                return "column '" + column + "' was dropped";
            case RENAMED:
                return "column '" + column + "' was renamed to '" + newName + "'";
            default:
                return "column '" + column + "' changed its type from " + oldType.asSummaryString() + " to "
                        + newType.asSummaryString();
        }
    }
}
