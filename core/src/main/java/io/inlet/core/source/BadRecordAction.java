package io.inlet.core.source;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.util.OptionValues;

/**
 * What a source does with a record it cannot convert (option {@code bad-record.action}): a value its
 * column's type cannot hold, a corrupt message. Such a record fails the same way every time, so it
 * never restarts the job: either the job stops once, or the record is set aside and the job goes
 * on. Records are never dropped silently; set-aside ones are counted in {@code numBadRecords}.
 */
@PublicEvolving
public enum BadRecordAction {
    /** Stop the job once, naming the table, the position, the column and what to do (the default). */
    FAIL("fail"),
    /** Write the record to the source's dead-letter output with the reason, and go on. */
    DEAD_LETTER("dead-letter");

    /** The option key both sources use. */
    public static final String OPTION = "bad-record.action";

    private final String key;

    BadRecordAction(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** @throws InletValidationException naming the option and its values */
    public static BadRecordAction of(String value) {
        return OptionValues.parse(OPTION, value, values(), BadRecordAction::key);
    }
}
