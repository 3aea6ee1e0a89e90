package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import java.io.Serializable;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/** Selects tables by a regular expression over the whole {@code database.table} id. */
@Internal
public final class TableSelector implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String regex;
    // Transient: Flink's ClosureCleaner would otherwise walk into java.util.regex internals, which
    // JDK 17 does not open.
    private transient Pattern pattern;

    private TableSelector(String regex, Pattern pattern) {
        this.regex = regex;
        this.pattern = pattern;
    }

    private Pattern pattern() {
        if (pattern == null) {
            pattern = Pattern.compile(regex);
        }
        return pattern;
    }

    /**
     * @throws InletValidationException naming the option and the syntax error
     */
    public static TableSelector of(String what, String regex) {
        try {
            return new TableSelector(regex, Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
            throw new InletValidationException(what + ": 'source-table' is not a valid regular expression: "
                    + e.getMessage().replace('\n', ' '));
        }
    }

    public String regex() {
        return regex;
    }

    public boolean matches(TableId id) {
        return pattern().matcher(id.identifier()).matches();
    }

    /** A matcher that has matched the whole id, or null. */
    public Matcher match(TableId id) {
        Matcher m = pattern().matcher(id.identifier());
        return m.matches() ? m : null;
    }

    /**
     * The tables this selector matches.
     *
     * @throws InletValidationException when it matches none, listing the tables there are
     */
    public List<TableDescriptor> select(String what, List<TableDescriptor> tables) {
        List<TableDescriptor> selected =
                tables.stream().filter(t -> matches(t.tableId())).collect(Collectors.toList());
        if (selected.isEmpty()) {
            throw new InletValidationException(what
                    + ": 'source-table' = '"
                    + regex
                    + "' matches none of the tables "
                    + tables.stream().map(t -> t.tableId().identifier()).collect(Collectors.toList())
                    + ". Fix the expression (it must match the whole 'database.table' id; escape dots"
                    + " as '\\.') or remove the transform.");
        }
        return selected;
    }
}
