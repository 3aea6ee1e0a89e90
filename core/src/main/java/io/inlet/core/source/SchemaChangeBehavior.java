package io.inlet.core.source;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.util.OptionValues;

/**
 * What a source does when a captured table's schema changes while the job runs (option {@code
 * schema-change.behavior}). Inlet fixes every table's row type when the job is built, so a change
 * it cannot follow must never reach the lake as NULLs written over existing values, shifted columns
 * or truncated numbers.
 */
@PublicEvolving
public enum SchemaChangeBehavior {
    /**
     * Stop the job once, before any row of the new shape is written, with a message that names the
     * table, the column and the change (the default). No restart loop: restarting would meet the same
     * change again.
     */
    FAIL("fail"),
    /**
     * Leave added nullable columns out and go on (said once in the log, counted in {@code
     * numSchemaChangesIgnored}); stop on every other change, as {@link #FAIL} does.
     */
    IGNORE_ADDED_COLUMNS("ignore-added-columns"),
    /**
     * Follow the change while the job runs (MySQL source): the source sends the table's new version
     * ahead of its first row, and the Iceberg sink brings its table to it live, without a restart
     * (columns added, widened, made optional, renamed, dropped as Iceberg allows; anything else stops
     * the job naming the column). Sinks and transforms that do not follow schema changes yet (Hudi,
     * the built-in transforms on the changed table) stop the job when one reaches them.
     */
    EVOLVE("evolve"),
    /**
     * As {@link #EVOLVE}; where a sink cannot apply a change it goes on without it when that stays
     * correct, and says so in the log: the Iceberg sink keeps a column whose type holds every value of
     * the new type (a column narrowed in the source, {@code BIGINT} to {@code INT}, stays {@code long})
     * and keeps a dropped column that partitions the table. Anything else stops the job as with {@link
     * #EVOLVE}.
     */
    TRY_EVOLVE("try-evolve"),
    /**
     * As {@link #EVOLVE}, but only adding: a dropped column stays in the lake, nullable, and the rows after
     * the drop leave it NULL; a renamed column stays under its old name (no longer filled) and the new
     * name is added as a new column. Type changes are followed as with {@link #EVOLVE}.
     */
    LENIENT("lenient");

    /** Whether the source sends schema changes downstream for the sinks to follow. */
    public boolean follows() {
        return this == EVOLVE || this == TRY_EVOLVE || this == LENIENT;
    }

    /** The option key both sources use. */
    public static final String OPTION = "schema-change.behavior";

    private final String key;

    SchemaChangeBehavior(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** @throws InletValidationException naming the option and its values */
    public static SchemaChangeBehavior of(String value) {
        return OptionValues.parse(OPTION, value, values(), SchemaChangeBehavior::key);
    }

    @Override
    public String toString() {
        return key;
    }
}
