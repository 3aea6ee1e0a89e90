package io.inlet.sink.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;

import java.util.Locale;

/** How the sink applies the changelog to an Iceberg v2 table; see {@link IcebergSinkOptions#WRITE_MODE}. */
@PublicEvolving
public enum WriteMode {
    /**
     * Upsert for sources that may deliver a change twice; otherwise changelog, with the rows of a
     * snapshot upserted when the table already held rows (so a new snapshot over old data converges,
     * whatever the job restored).
     */
    AUTO,
    /** Every insert deletes its key first: idempotent, an equality delete per row. */
    UPSERT,
    /** Deletes for -U/-D, plain inserts for +I/+U. */
    CHANGELOG;

    public static WriteMode of(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InletValidationException(
                    "'write-mode' = '" + text + "' is unknown; use auto, upsert or changelog.");
        }
    }
}
