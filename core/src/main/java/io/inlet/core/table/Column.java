package io.inlet.core.table;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.table.types.DataType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * A column of a {@link TableDescriptor}: a name, a Flink {@link DataType} (which carries the
 * nullability) and an optional comment. Immutable.
 *
 * <pre>{@code
 * Column id = Column.of("id", DataTypes.BIGINT().notNull());
 * Column note = Column.of("note", DataTypes.STRING()).withComment("free text from the shop");
 * }</pre>
 */
@PublicEvolving
public final class Column implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final DataType type;

    @Nullable
    private final String comment;

    private Column(String name, DataType type, @Nullable String comment) {
        this.name = name;
        this.type = type;
        this.comment = comment;
    }

    /** A column without a comment. */
    public static Column of(String name, DataType type) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("A column name must not be empty.");
        }
        return new Column(name, Objects.requireNonNull(type, "type of column " + name), null);
    }

    public String name() {
        return name;
    }

    public DataType type() {
        return type;
    }

    public boolean isNullable() {
        return type.getLogicalType().isNullable();
    }

    public Optional<String> comment() {
        return Optional.ofNullable(comment);
    }

    public Column withComment(@Nullable String newComment) {
        return new Column(name, type, newComment == null || newComment.isEmpty() ? null : newComment);
    }

    public Column withName(String newName) {
        return of(newName, type).withComment(comment);
    }

    public Column withType(DataType newType) {
        return of(name, newType).withComment(comment);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Column)) {
            return false;
        }
        Column that = (Column) o;
        return name.equals(that.name)
                && type.getLogicalType().equals(that.type.getLogicalType())
                && Objects.equals(comment, that.comment);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type.getLogicalType(), comment);
    }

    /** {@code name TYPE} as in SQL DDL, with the comment when there is one. */
    @Override
    public String toString() {
        return name
                + " "
                + type.getLogicalType().asSummaryString()
                + (comment == null ? "" : " COMMENT '" + comment + "'");
    }
}
