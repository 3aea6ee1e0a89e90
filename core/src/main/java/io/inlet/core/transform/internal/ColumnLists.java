package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** Parses comma-separated column lists with optional {@code AS} aliases and back-tick quoting. */
@Internal
public final class ColumnLists {

    private ColumnLists() {}

    /** One entry: a column (or {@code *}) and the name it gets. */
    public static final class Item implements Serializable {
        private static final long serialVersionUID = 1L;

        public final String name;
        public final String alias;
        public final boolean star;

        Item(String name, String alias, boolean star) {
            this.name = name;
            this.alias = alias;
            this.star = star;
        }
    }

    /**
     * Parses {@code a, b AS c, *}.
     *
     * @throws InletValidationException naming the option and the entry that cannot be parsed
     */
    public static List<Item> parse(String what, String option, String text) {
        List<Item> items = new ArrayList<>();
        for (String raw : splitTopLevel(text)) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                throw new InletValidationException(what + ": '" + option + "' = '" + text
                        + "' has an empty entry; separate columns with single commas.");
            }
            List<String> words = words(what, option, entry);
            if (words.size() == 1) {
                boolean star = "*".equals(entry);
                items.add(new Item(words.get(0), words.get(0), star));
            } else if (words.size() == 3 && "AS".equalsIgnoreCase(words.get(1))) {
                items.add(new Item(words.get(0), words.get(2), false));
            } else {
                throw new InletValidationException(what
                        + ": cannot read '"
                        + entry
                        + "' in '"
                        + option
                        + "'; write 'column' or 'column AS new_name' (quote names with back-ticks).");
            }
        }
        return items;
    }

    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char c : text.toCharArray()) {
            if (c == '`') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                parts.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        parts.add(cur.toString());
        return parts;
    }

    private static List<String> words(String what, String option, String entry) {
        List<String> words = new ArrayList<>();
        int i = 0;
        while (i < entry.length()) {
            char c = entry.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '`') {
                StringBuilder sb = new StringBuilder();
                i++;
                while (true) {
                    if (i >= entry.length()) {
                        throw new InletValidationException(
                                what + ": a back-tick is not closed in '" + entry + "' of '" + option + "'.");
                    }
                    char d = entry.charAt(i);
                    if (d == '`') {
                        if (i + 1 < entry.length() && entry.charAt(i + 1) == '`') {
                            sb.append('`');
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    sb.append(d);
                    i++;
                }
                words.add(sb.toString());
            } else {
                int start = i;
                while (i < entry.length() && !Character.isWhitespace(entry.charAt(i)) && entry.charAt(i) != '`') {
                    i++;
                }
                words.add(entry.substring(start, i));
            }
        }
        return words;
    }
}
