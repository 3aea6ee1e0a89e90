package io.inlet.core.source;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ColumnChange;

import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One way a table's rows in the source differ from the table the pipeline was built with, in words
 * a user can act on. Both sources judge a schema change with these, so {@code
 * schema-change.behavior} means the same for each: which differences it lets through, which stop
 * the job, and what the message says to do.
 */
@PublicEvolving
public final class SchemaDifference {

    /** What changed. */
    public enum Kind {
        ADDED,
        DROPPED,
        RENAMED,
        RETYPED,
        UNREADABLE
    }

    private final Kind kind;
    private final boolean nullable;
    private final String text;

    private SchemaDifference(Kind kind, boolean nullable, String text) {
        this.kind = kind;
        this.nullable = nullable;
        this.text = text;
    }

    /** A column the table lacks; {@code nullable} when rows without it stay valid. */
    public static SchemaDifference added(String column, @Nullable LogicalType type, boolean nullable) {
        return new SchemaDifference(
                Kind.ADDED,
                nullable,
                "column '" + column + "' was added" + (type == null ? "" : " (" + type.asSummaryString() + ")"));
    }

    public static SchemaDifference dropped(String column) {
        return dropped(column, false);
    }

    /** A column the rows lack; {@code nullable} when the table may hold NULL there. */
    public static SchemaDifference dropped(String column, boolean nullable) {
        return new SchemaDifference(Kind.DROPPED, nullable, "column '" + column + "' was dropped");
    }

    public static SchemaDifference renamed(String from, String to) {
        return new SchemaDifference(Kind.RENAMED, false, "column '" + from + "' was renamed to '" + to + "'");
    }

    /**
     * The column's type change, or null when it has none: a column that became NOT NULL takes every
     * row it took before, anything else is a change.
     */
    @Nullable
    public static SchemaDifference retyped(String column, LogicalType was, LogicalType is) {
        boolean sameType = was.copy(true).equals(is.copy(true));
        boolean nowNullable = is.isNullable() && !was.isNullable();
        if (sameType && !nowNullable) {
            return null;
        }
        return new SchemaDifference(
                Kind.RETYPED,
                false,
                "column '" + column + "' changed its type from " + was.asSummaryString() + " to "
                        + is.asSummaryString());
    }

    /** Rows of a shape Inlet cannot read at all, e.g. a column of a type it does not map. */
    public static SchemaDifference unreadable(String what) {
        return new SchemaDifference(Kind.UNREADABLE, false, what);
    }

    /** The differences that stop the job under the behavior; the others it lets through. */
    public static List<SchemaDifference> blocking(List<SchemaDifference> differences, SchemaChangeBehavior behavior) {
        return blocking(differences, SchemaChangePolicy.of(behavior));
    }

    /**
     * The differences between a row and its table's version that stop the job under the policy; the
     * others it lets through: an added nullable column under {@code ignore-added-columns}, and under a
     * policy that follows changes, the columns it chose not to follow (an added column left out, a
     * dropped or renamed one kept, NULL in the rows after).
     */
    public static List<SchemaDifference> blocking(List<SchemaDifference> differences, SchemaChangePolicy policy) {
        SchemaChangeBehavior behavior = policy.behavior();
        boolean leavesAddedOut = behavior.follows() && !policy.follows(ColumnChange.Kind.ADDED);
        boolean keepsColumns = behavior.follows()
                && (!policy.follows(ColumnChange.Kind.DROPPED) || !policy.follows(ColumnChange.Kind.RENAMED));
        return differences.stream()
                .filter(d -> !(d.kind == Kind.ADDED
                                && (leavesAddedOut
                                        || (behavior == SchemaChangeBehavior.IGNORE_ADDED_COLUMNS && d.nullable)))
                        && !(keepsColumns && d.kind == Kind.DROPPED && d.nullable))
                .collect(Collectors.toList());
    }

    /**
     * What the user can do once a schema change stopped the job, for a message.
     *
     * @param olderRows the rows that keep being read, e.g. "rows from before the change"
     */
    public static String whatToDo(String olderRows) {
        return " Inlet follows no schema change in a running job yet, so the job stops before"
                + " any row of the new shape is"
                + " written (restarting would meet the change again). To go on: bring the lake table to the new shape"
                + " (Iceberg: ALTER TABLE ... ADD/DROP/ALTER COLUMN), then start the job again"
                + " from its last checkpoint; "
                + olderRows + " are read in their old shape. Or set 'schema-change.behavior' ="
                + " 'ignore-added-columns' to leave added nullable columns out.";
    }

    /** The difference in words, e.g. {@code column 'note' was dropped}. */
    @Override
    public String toString() {
        return text;
    }
}
