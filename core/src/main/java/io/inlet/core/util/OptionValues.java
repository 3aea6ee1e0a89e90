package io.inlet.core.util;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads the value of an enum-valued option by the key each constant is written with in options
 * ({@code dead-letter}, {@code ignore-added-columns}), so that every such option accepts and names its
 * values the same way: case and surrounding blanks do not matter, and an unknown value is refused
 * with the option's name and the values it takes.
 *
 * <pre>{@code
 * BadRecordAction a = OptionValues.parse("bad-record.action", "Dead-Letter", BadRecordAction.values(),
 * BadRecordAction::key);
 * }</pre>
 */
@PublicEvolving
public final class OptionValues {

    private OptionValues() {}

    /**
     * The constant whose key is the value.
     *
     * @throws InletValidationException naming the option and its values
     */
    public static <E> E parse(String option, String value, E[] constants, Function<E, String> key) {
        String v = value.trim();
        for (E c : constants) {
            if (key.apply(c).equalsIgnoreCase(v)) {
                return c;
            }
        }
        throw unknown(option, value, constants, key);
    }

    /** The error for a value that is none of the constants' keys. */
    public static <E> InletValidationException unknown(
            String option, String value, E[] constants, Function<E, String> key) {
        return new InletValidationException("'" + option + "' = '" + value + "' is unknown; use one of "
                + Arrays.stream(constants).map(key).collect(Collectors.joining(", ")) + ".");
    }
}
