package io.inlet.core.source;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a source does with each kind of schema change: its {@link SchemaChangeBehavior} and, for the
 * behaviors that follow changes ({@code evolve}, {@code try-evolve}), the kinds of column change the
 * lake follows, chosen with Flink CDC's keys {@value #INCLUDE_OPTION} and {@value #EXCLUDE_OPTION}
 * and tags ({@code add.column}, {@code drop.column}, {@code rename.column}, {@code alter.column.type},
 * or {@code column} for all four). A kind the lake does not follow never costs it a value:
 *
 * <ul>
 *   <li>an added column not followed is left out of the lake;
 *   <li>a dropped column not followed stays in the lake (nullable) with the values it had, and the
 *       rows after the drop leave it NULL;
 *   <li>a renamed column not followed stays under its old name with the values it had, and the new
 *       name is added as a new column (when added columns are followed);
 *   <li>a type change cannot be left out (the lake's column might not hold the new values): excluding
 *       {@code alter.column.type} is refused when the job is built.
 * </ul>
 *
 * <p>{@code lenient} is {@code evolve} without {@code drop.column} and {@code rename.column}.
 *
 * <pre>{@code
 * SchemaChangePolicy p = SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, null, "drop.column");
 * p.follows(ColumnChange.Kind.DROPPED); // false: dropped columns stay in the lake
 * }</pre>
 */
@PublicEvolving
public final class SchemaChangePolicy implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The kinds of column change the lake follows (Flink CDC's sink key); default all. */
    public static final String INCLUDE_OPTION = "include.schema.changes";

    /** The kinds of column change the lake does not follow (Flink CDC's sink key); default none. */
    public static final String EXCLUDE_OPTION = "exclude.schema.changes";

    private static final Map<String, ColumnChange.Kind> TAGS = new LinkedHashMap<>();

    static {
        TAGS.put("add.column", ColumnChange.Kind.ADDED);
        TAGS.put("alter.column.type", ColumnChange.Kind.RETYPED);
        TAGS.put("drop.column", ColumnChange.Kind.DROPPED);
        TAGS.put("rename.column", ColumnChange.Kind.RENAMED);
    }

    private final SchemaChangeBehavior behavior;
    private final EnumSet<ColumnChange.Kind> followed;

    private SchemaChangePolicy(SchemaChangeBehavior behavior, EnumSet<ColumnChange.Kind> followed) {
        this.behavior = behavior;
        this.followed = followed;
    }

    /** The behavior with the kinds it follows by itself: all for {@code evolve}/{@code try-evolve}. */
    public static SchemaChangePolicy of(SchemaChangeBehavior behavior) {
        return of(behavior, null, null);
    }

    /**
     * The behavior, following the included kinds of column change that are not excluded.
     *
     * @param include comma-separated tags, or null for all ({@code [a, b]} as Flink CDC's YAML writes it
     *     is read too)
     * @param exclude comma-separated tags, or null for none
     * @throws InletValidationException naming the option and the fix: an unknown tag, a table-level tag,
     *     {@code alter.column.type} left out, or either option with a behavior that follows no change
     */
    public static SchemaChangePolicy of(
            SchemaChangeBehavior behavior, @Nullable String include, @Nullable String exclude) {
        Objects.requireNonNull(behavior, "behavior");
        boolean chosen = !blank(include) || !blank(exclude);
        if (chosen && behavior != SchemaChangeBehavior.EVOLVE && behavior != SchemaChangeBehavior.TRY_EVOLVE) {
            throw new InletValidationException("'" + (blank(include) ? EXCLUDE_OPTION : INCLUDE_OPTION)
                    + "' chooses the schema changes a job follows, but '" + SchemaChangeBehavior.OPTION + "' = '"
                    + behavior + "' follows none"
                    + (behavior == SchemaChangeBehavior.LENIENT
                            ? " but its own (lenient is evolve with 'exclude.schema.changes' = 'drop.column,"
                                    + " rename.column')"
                            : "")
                    + ". Set '" + SchemaChangeBehavior.OPTION + "' = 'evolve' or 'try-evolve', or remove the option.");
        }
        EnumSet<ColumnChange.Kind> followed;
        switch (behavior) {
            case EVOLVE:
            case TRY_EVOLVE:
                followed = blank(include) ? EnumSet.allOf(ColumnChange.Kind.class) : tags(INCLUDE_OPTION, include);
                break;
            case LENIENT:
                followed = EnumSet.of(ColumnChange.Kind.ADDED, ColumnChange.Kind.RETYPED);
                break;
            default:
                followed = EnumSet.noneOf(ColumnChange.Kind.class);
        }
        if (!blank(exclude)) {
            followed.removeAll(tags(EXCLUDE_OPTION, exclude));
        }
        if (behavior.follows() && !followed.contains(ColumnChange.Kind.RETYPED)) {
            throw new InletValidationException("'alter.column.type' cannot be left out of the schema changes a job"
                    + " follows ('" + INCLUDE_OPTION + "' = '" + Objects.toString(include, "") + "', '"
                    + EXCLUDE_OPTION + "' = '" + Objects.toString(exclude, "") + "'): the lake's column would keep a"
                    + " type that may not hold the new values. Follow it (the Iceberg sink widens the column), or"
                    + " use 'try-evolve', which keeps the lake's column where it holds every value of the new type.");
        }
        return new SchemaChangePolicy(behavior, followed);
    }

    private static boolean blank(@Nullable String s) {
        return s == null || s.trim().isEmpty() || s.trim().equals("[]");
    }

    private static EnumSet<ColumnChange.Kind> tags(String option, String value) {
        String v = value.trim();
        if (v.startsWith("[") && v.endsWith("]")) {
            v = v.substring(1, v.length() - 1);
        }
        EnumSet<ColumnChange.Kind> kinds = EnumSet.noneOf(ColumnChange.Kind.class);
        for (String raw : v.split(",")) {
            String tag = raw.trim().toLowerCase(Locale.ROOT);
            if (tag.equals("column")) {
                kinds.addAll(TAGS.values());
            } else if (TAGS.containsKey(tag)) {
                kinds.add(TAGS.get(tag));
            } else if (tag.equals("table") || tag.endsWith(".table")) {
                throw new InletValidationException("'" + option + "' = '" + value + "': '" + tag + "' is a change of a"
                        + " whole table, which Inlet does not follow (the captured tables are fixed when the job is"
                        + " built). Use column tags: " + String.join(", ", TAGS.keySet()) + ", or column for all.");
            } else {
                throw new InletValidationException("'" + option + "' = '" + value + "': '" + tag + "' is unknown; use"
                        + " comma-separated tags from " + String.join(", ", TAGS.keySet()) + ", or column for all.");
            }
        }
        return kinds;
    }

    public SchemaChangeBehavior behavior() {
        return behavior;
    }

    /** Whether the source sends schema changes downstream for the sinks to follow. */
    public boolean sendsChanges() {
        return behavior.follows();
    }

    /** Whether the lake follows this kind of column change (else the source keeps its values as above). */
    public boolean follows(ColumnChange.Kind kind) {
        return followed.contains(kind);
    }

    /**
     * Whether the source sends schema changes and a dropped or renamed column stays in the lake (not
     * followed): {@code lenient}, or {@code drop.column} or {@code rename.column} left out.
     */
    public boolean keepsDroppedColumns() {
        return sendsChanges() && (!follows(ColumnChange.Kind.DROPPED) || !follows(ColumnChange.Kind.RENAMED));
    }

    /** The kinds the lake follows. */
    public Set<ColumnChange.Kind> followed() {
        return Collections.unmodifiableSet(followed);
    }

    /**
     * Whether a sink that cannot apply a change goes on without it where that stays correct ({@code
     * try-evolve}): it keeps a column whose type holds every value of the new type.
     */
    public boolean bestEffort() {
        return behavior == SchemaChangeBehavior.TRY_EVOLVE;
    }

    /**
     * The change that takes a table to the columns its source has now, as far as this policy follows:
     * the next version of {@code current} (partitioning, properties and comment stay) with the columns
     * of {@code now} in their order, except an added column the policy leaves out; a column of {@code
     * current} that {@code now} lacks stays (made nullable) when the policy does not follow its drop or
     * rename. Null when nothing the lake follows changed.
     *
     * @param now the source's columns now, in its order
     * @param primaryKey the source's primary key now
     * @param renames renames the source reported (old name to new), as far as the columns confirm them;
     *     without them a rename is a drop and an add
     * @param statement the source's statement, for messages
     * @throws IllegalArgumentException when the result is no valid table (no column left, a key or
     *     partition column missing)
     */
    @Nullable
    public SchemaChange follow(
            TableDescriptor current,
            List<Column> now,
            List<String> primaryKey,
            Map<String, String> renames,
            @Nullable String statement) {
        Map<String, String> renamed = new LinkedHashMap<>();
        renames.forEach((from, to) -> {
            if (current.column(from).isPresent()
                    && now.stream().anyMatch(c -> c.name().equals(to))
                    && now.stream().noneMatch(c -> c.name().equals(from))) {
                renamed.put(from, to);
            }
        });
        boolean followsRenames = follows(ColumnChange.Kind.RENAMED);
        List<Column> columns = new ArrayList<>();
        for (Column c : now) {
            boolean isNew = current.column(c.name()).isEmpty();
            boolean renameTarget = renamed.containsValue(c.name());
            if (isNew && !(renameTarget && followsRenames) && !follows(ColumnChange.Kind.ADDED)) {
                continue; // an added column the lake does not follow: left out
            }
            columns.add(c);
        }
        for (Column old : current.columns()) {
            if (columns.stream().anyMatch(c -> c.name().equals(old.name()))) {
                continue;
            }
            boolean keep = renamed.containsKey(old.name()) ? !followsRenames : !follows(ColumnChange.Kind.DROPPED);
            if (keep) {
                // Kept with the values it has in the lake; the rows after the change leave it NULL.
                columns.add(old.isNullable() ? old : old.withType(old.type().nullable()));
            }
        }
        TableDescriptor next = current.toBuilder()
                .columns(columns)
                .primaryKey(primaryKey)
                .schemaVersion(current.schemaVersion() + 1)
                .build();
        Map<String, String> followedRenames = new LinkedHashMap<>();
        if (followsRenames) {
            renamed.forEach((from, to) -> {
                if (next.column(to).isPresent() && next.column(from).isEmpty()) {
                    followedRenames.put(from, to);
                }
            });
        }
        SchemaChange change =
                SchemaChange.between(current, next, followedRenames, statement).withBestEffort(bestEffort());
        return change.changes().isEmpty() && !change.primaryKeyChanged() ? null : change;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SchemaChangePolicy)) {
            return false;
        }
        SchemaChangePolicy that = (SchemaChangePolicy) o;
        return behavior == that.behavior && followed.equals(that.followed);
    }

    @Override
    public int hashCode() {
        return Objects.hash(behavior, followed);
    }

    @Override
    public String toString() {
        if (!behavior.follows() || followed.size() == ColumnChange.Kind.values().length) {
            return behavior.key();
        }
        List<String> left = new ArrayList<>();
        TAGS.forEach((tag, kind) -> {
            if (!followed.contains(kind)) {
                left.add(tag);
            }
        });
        return behavior.key() + " (not following " + String.join(", ", left) + ")";
    }
}
