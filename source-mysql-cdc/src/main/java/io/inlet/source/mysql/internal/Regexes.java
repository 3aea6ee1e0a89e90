package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;

/** Regular expressions that match a name literally, in the form Debezium's include lists accept. */
@Internal
public final class Regexes {

    private Regexes() {}

    /**
     * The name with every character other than a letter, digit or underscore escaped by a
     * backslash. Unlike {@code \Q...\E}, this survives Debezium splitting its lists at commas.
     */
    public static String literal(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 8);
        for (char c : name.toCharArray()) {
            if (!(Character.isLetterOrDigit(c) || c == '_')) {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }
}
