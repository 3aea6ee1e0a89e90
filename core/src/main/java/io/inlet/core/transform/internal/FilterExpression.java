package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A row filter condition in a small SQL subset, parsed once and bound to each table's columns.
 * Evaluation follows SQL's three-valued logic: a comparison with a NULL value is unknown, and a
 * row passes only when the whole condition is true.
 *
 * <pre>{@code
 * status <> 'cancelled' AND (amount >= 10.5 OR vip = TRUE) AND region IN ('EU', 'US')
 * name LIKE 'A%' AND deleted_at IS NULL AND created >= '2024-01-01 00:00:00'
 * }</pre>
 */
@Internal
public abstract class FilterExpression implements Serializable {

    private static final long serialVersionUID = 1L;

    /** A condition bound to one table's row layout. Returns TRUE, FALSE or null (unknown). */
    public interface RowPredicate extends Serializable {
        Boolean test(RowData row);
    }

    /** The columns the condition names. */
    public abstract Set<String> columns();

    /**
     * Binds the condition to a table.
     *
     * @throws InletValidationException when a column does not exist or cannot be compared with its
     *     literal
     */
    public abstract RowPredicate bind(TableDescriptor table);

    /**
     * Parses a condition.
     *
     * @throws InletValidationException with the position and what was expected there
     */
    public static FilterExpression parse(String text) {
        Parser p = new Parser(text);
        FilterExpression e = p.parseOr();
        p.expectEnd();
        return e;
    }

    // ------------------------------------------------------------------ tree

    /** AND or OR of parts, with SQL's three-valued logic. */
    private static final class Junction extends FilterExpression {
        private final List<FilterExpression> parts;
        private final boolean and;

        Junction(List<FilterExpression> parts, boolean and) {
            this.parts = parts;
            this.and = and;
        }

        @Override
        public Set<String> columns() {
            Set<String> s = new LinkedHashSet<>();
            parts.forEach(p -> s.addAll(p.columns()));
            return s;
        }

        @Override
        public RowPredicate bind(TableDescriptor table) {
            RowPredicate[] bound = parts.stream().map(p -> p.bind(table)).toArray(RowPredicate[]::new);
            // AND is decided by the first FALSE, OR by the first TRUE; otherwise any unknown wins.
            boolean decisive = !and;
            return row -> {
                boolean unknown = false;
                for (RowPredicate b : bound) {
                    Boolean r = b.test(row);
                    if (r == null) {
                        unknown = true;
                    } else if (r == decisive) {
                        return decisive;
                    }
                }
                return unknown ? null : !decisive;
            };
        }
    }

    private static final class Not extends FilterExpression {
        private final FilterExpression inner;

        Not(FilterExpression inner) {
            this.inner = inner;
        }

        @Override
        public Set<String> columns() {
            return inner.columns();
        }

        @Override
        public RowPredicate bind(TableDescriptor table) {
            RowPredicate b = inner.bind(table);
            return row -> {
                Boolean r = b.test(row);
                return r == null ? null : !r;
            };
        }
    }

    private static final class IsNull extends FilterExpression {
        private final String column;
        private final boolean negated;

        IsNull(String column, boolean negated) {
            this.column = column;
            this.negated = negated;
        }

        @Override
        public Set<String> columns() {
            return Set.of(column);
        }

        @Override
        public RowPredicate bind(TableDescriptor table) {
            int pos = position(table, column);
            return negated ? row -> !row.isNullAt(pos) : row -> row.isNullAt(pos);
        }
    }

    private enum Op {
        EQ("="),
        NE("<>"),
        LT("<"),
        LE("<="),
        GT(">"),
        GE(">=");

        final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        boolean holds(int cmp) {
            switch (this) {
                case EQ:
                    return cmp == 0;
                case NE:
                    return cmp != 0;
                case LT:
                    return cmp < 0;
                case LE:
                    return cmp <= 0;
                case GT:
                    return cmp > 0;
                default:
                    return cmp >= 0;
            }
        }
    }

    /** A literal as written: a string, a number or a boolean. */
    private static final class Literal implements Serializable {
        private static final long serialVersionUID = 1L;

        enum Kind {
            STRING,
            NUMBER,
            BOOLEAN
        }

        final Kind kind;
        final String text;

        Literal(Kind kind, String text) {
            this.kind = kind;
            this.text = text;
        }

        @Override
        public String toString() {
            return kind == Kind.STRING ? "'" + text.replace("'", "''") + "'" : text;
        }
    }

    private static final class Compare extends FilterExpression {
        private final String column;
        private final Op op;
        private final Literal literal;

        Compare(String column, Op op, Literal literal) {
            this.column = column;
            this.op = op;
            this.literal = literal;
        }

        @Override
        public Set<String> columns() {
            return Set.of(column);
        }

        @Override
        public RowPredicate bind(TableDescriptor table) {
            int pos = position(table, column);
            ValueComparator cmp = comparator(table, pos, literal);
            Op o = op;
            return row -> row.isNullAt(pos) ? null : o.holds(cmp.compare(row));
        }
    }

    private static final class Like extends FilterExpression {
        private final String column;
        private final String pattern;
        private final boolean negated;

        Like(String column, String pattern, boolean negated) {
            this.column = column;
            this.pattern = pattern;
            this.negated = negated;
        }

        @Override
        public Set<String> columns() {
            return Set.of(column);
        }

        @Override
        public RowPredicate bind(TableDescriptor table) {
            int pos = position(table, column);
            LogicalType type = table.columns().get(pos).type().getLogicalType();
            switch (type.getTypeRoot()) {
                case CHAR:
                case VARCHAR:
                    break;
                default:
                    throw new InletValidationException("filter: LIKE needs a string column, but "
                            + table.tableId()
                            + "."
                            + column
                            + " is "
                            + type.asSummaryString()
                            + ".");
            }
            Pattern regex = likeToRegex(pattern);
            boolean neg = negated;
            return row -> row.isNullAt(pos)
                    ? null
                    : regex.matcher(row.getString(pos).toString()).matches() != neg;
        }

        private static Pattern likeToRegex(String like) {
            StringBuilder sb = new StringBuilder();
            for (char c : like.toCharArray()) {
                if (c == '%') {
                    sb.append(".*");
                } else if (c == '_') {
                    sb.append('.');
                } else {
                    sb.append(Pattern.quote(String.valueOf(c)));
                }
            }
            return Pattern.compile(sb.toString(), Pattern.DOTALL);
        }
    }

    private static int position(TableDescriptor table, String column) {
        int pos = table.indexOf(column);
        if (pos < 0) {
            throw new InletValidationException("filter: the column '"
                    + column
                    + "' does not exist in table "
                    + table.tableId()
                    + " (columns: "
                    + String.join(", ", table.columnNames())
                    + "). Fix the condition, or narrow 'source-table' to tables that have the column.");
        }
        return pos;
    }

    // ------------------------------------------------------------------ comparing values

    /** Compares a non-null column value of a row with a literal bound at build time. */
    private interface ValueComparator extends Serializable {
        int compare(RowData row);
    }

    private static ValueComparator comparator(TableDescriptor table, int pos, Literal lit) {
        Column col = table.columns().get(pos);
        LogicalType type = col.type().getLogicalType();
        String where = table.tableId() + "." + col.name() + " (" + type.asSummaryString() + ")";
        try {
            switch (type.getTypeRoot()) {
                case TINYINT:
                case SMALLINT:
                case INTEGER:
                case BIGINT: {
                    BigDecimal n = number(lit, where);
                    LongGetter g = longGetter(type, pos);
                    if (n.stripTrailingZeros().scale() <= 0
                            && n.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
                        long v = n.longValueExact();
                        return row -> Long.compare(g.get(row), v);
                    }
                    return row -> BigDecimal.valueOf(g.get(row)).compareTo(n);
                }
                case FLOAT: {
                    double v = number(lit, where).doubleValue();
                    return row -> Double.compare(row.getFloat(pos), v);
                }
                case DOUBLE: {
                    double v = number(lit, where).doubleValue();
                    return row -> Double.compare(row.getDouble(pos), v);
                }
                case DECIMAL: {
                    BigDecimal v = number(lit, where);
                    DecimalType d = (DecimalType) type;
                    int p = d.getPrecision();
                    int s = d.getScale();
                    return row -> row.getDecimal(pos, p, s).toBigDecimal().compareTo(v);
                }
                case CHAR:
                case VARCHAR: {
                    String v = string(lit, where);
                    return row -> row.getString(pos).toString().compareTo(v);
                }
                case BOOLEAN: {
                    if (lit.kind != Literal.Kind.BOOLEAN) {
                        throw new InletValidationException(
                                "filter: compare " + where + " with TRUE or FALSE, not " + lit + ".");
                    }
                    boolean v = Boolean.parseBoolean(lit.text);
                    return row -> Boolean.compare(row.getBoolean(pos), v);
                }
                case DATE: {
                    int v = (int) LocalDate.parse(string(lit, where)).toEpochDay();
                    return row -> Integer.compare(row.getInt(pos), v);
                }
                case TIME_WITHOUT_TIME_ZONE: {
                    int v = (int) (LocalTime.parse(string(lit, where)).toNanoOfDay() / 1_000_000L);
                    return row -> Integer.compare(row.getInt(pos), v);
                }
                case TIMESTAMP_WITHOUT_TIME_ZONE: {
                    int p = ((TimestampType) type).getPrecision();
                    TimestampData v = TimestampData.fromLocalDateTime(localDateTime(string(lit, where)));
                    return row -> row.getTimestamp(pos, p).compareTo(v);
                }
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                    int p = ((LocalZonedTimestampType) type).getPrecision();
                    TimestampData v = TimestampData.fromInstant(instant(string(lit, where)));
                    return row -> row.getTimestamp(pos, p).compareTo(v);
                }
                default:
                    throw new InletValidationException(
                            "filter: cannot compare " + where + " with a literal; filter on another column.");
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new InletValidationException(
                    "filter: the literal " + lit + " does not fit " + where + ": " + e.getMessage() + ".");
        }
    }

    private interface LongGetter extends Serializable {
        long get(RowData row);
    }

    private static LongGetter longGetter(LogicalType type, int pos) {
        switch (type.getTypeRoot()) {
            case TINYINT:
                return row -> row.getByte(pos);
            case SMALLINT:
                return row -> row.getShort(pos);
            case INTEGER:
                return row -> row.getInt(pos);
            default:
                return row -> row.getLong(pos);
        }
    }

    private static BigDecimal number(Literal lit, String where) {
        if (lit.kind == Literal.Kind.BOOLEAN) {
            throw new InletValidationException("filter: compare " + where + " with a number, not " + lit + ".");
        }
        try {
            return new BigDecimal(lit.text.trim());
        } catch (NumberFormatException e) {
            throw new InletValidationException("filter: compare " + where + " with a number; " + lit + " is not one.");
        }
    }

    private static String string(Literal lit, String where) {
        if (lit.kind != Literal.Kind.STRING) {
            throw new InletValidationException(
                    "filter: compare " + where + " with a quoted literal ('...'), not " + lit + ".");
        }
        return lit.text;
    }

    private static LocalDateTime localDateTime(String s) {
        return LocalDateTime.parse(s.trim().replace(' ', 'T'));
    }

    /** An ISO instant or offset date-time; without an offset, UTC. */
    private static Instant instant(String s) {
        String t = s.trim().replace(' ', 'T');
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException e) {
            return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
        }
    }

    // ------------------------------------------------------------------ parsing

    private static final class Parser {
        private final String text;
        private int pos;

        Parser(String text) {
            this.text = text;
        }

        FilterExpression parseOr() {
            List<FilterExpression> parts = new ArrayList<>();
            parts.add(parseAnd());
            while (acceptKeyword("OR")) {
                parts.add(parseAnd());
            }
            return parts.size() == 1 ? parts.get(0) : new Junction(parts, false);
        }

        FilterExpression parseAnd() {
            List<FilterExpression> parts = new ArrayList<>();
            parts.add(parseNot());
            while (acceptKeyword("AND")) {
                parts.add(parseNot());
            }
            return parts.size() == 1 ? parts.get(0) : new Junction(parts, true);
        }

        FilterExpression parseNot() {
            if (acceptKeyword("NOT")) {
                return new Not(parseNot());
            }
            if (accept("(")) {
                FilterExpression e = parseOr();
                expect(")");
                return e;
            }
            return parseComparison();
        }

        FilterExpression parseComparison() {
            String column = identifier();
            if (acceptKeyword("IS")) {
                boolean negated = acceptKeyword("NOT");
                expectKeyword("NULL");
                return new IsNull(column, negated);
            }
            boolean negated = acceptKeyword("NOT");
            if (acceptKeyword("IN")) {
                expect("(");
                List<FilterExpression> options = new ArrayList<>();
                do {
                    options.add(new Compare(column, Op.EQ, literal()));
                } while (accept(","));
                expect(")");
                FilterExpression in = options.size() == 1 ? options.get(0) : new Junction(options, false);
                return negated ? new Not(in) : in;
            }
            if (acceptKeyword("LIKE")) {
                Literal l = literal();
                if (l.kind != Literal.Kind.STRING) {
                    throw error("a quoted LIKE pattern");
                }
                return new Like(column, l.text, negated);
            }
            if (negated) {
                throw error("IN or LIKE after NOT");
            }
            Op op = operator();
            return new Compare(column, op, literal());
        }

        Op operator() {
            skipSpace();
            String[] symbols = {"<>", "!=", "<=", ">=", "=", "<", ">"};
            for (String s : symbols) {
                if (text.startsWith(s, pos)) {
                    pos += s.length();
                    switch (s) {
                        case "<>":
                        case "!=":
                            return Op.NE;
                        case "<=":
                            return Op.LE;
                        case ">=":
                            return Op.GE;
                        case "=":
                            return Op.EQ;
                        case "<":
                            return Op.LT;
                        default:
                            return Op.GT;
                    }
                }
            }
            throw error("a comparison (=, <>, !=, <, <=, >, >=), IS [NOT] NULL, [NOT] IN or [NOT] LIKE");
        }

        Literal literal() {
            skipSpace();
            if (pos >= text.length()) {
                throw error("a literal");
            }
            char c = text.charAt(pos);
            if (c == '\'') {
                StringBuilder sb = new StringBuilder();
                pos++;
                while (true) {
                    if (pos >= text.length()) {
                        throw error("the closing quote of a string literal");
                    }
                    char d = text.charAt(pos++);
                    if (d == '\'') {
                        if (pos < text.length() && text.charAt(pos) == '\'') {
                            sb.append('\'');
                            pos++;
                            continue;
                        }
                        return new Literal(Literal.Kind.STRING, sb.toString());
                    }
                    sb.append(d);
                }
            }
            if (c == '-' || c == '+' || c == '.' || Character.isDigit(c)) {
                int start = pos++;
                while (pos < text.length()
                        && (Character.isDigit(text.charAt(pos))
                                || ".eE".indexOf(text.charAt(pos)) >= 0
                                || ((text.charAt(pos) == '-' || text.charAt(pos) == '+')
                                        && "eE".indexOf(text.charAt(pos - 1)) >= 0))) {
                    pos++;
                }
                String n = text.substring(start, pos);
                try {
                    new BigDecimal(n);
                } catch (NumberFormatException e) {
                    pos = start;
                    throw error("a number");
                }
                return new Literal(Literal.Kind.NUMBER, n);
            }
            if (acceptKeyword("TRUE")) {
                return new Literal(Literal.Kind.BOOLEAN, "true");
            }
            if (acceptKeyword("FALSE")) {
                return new Literal(Literal.Kind.BOOLEAN, "false");
            }
            if (peekKeyword("NULL")) {
                throw error("a literal; to test for NULL write 'column IS NULL'");
            }
            throw error("a literal ('text', a number, TRUE or FALSE)");
        }

        String identifier() {
            skipSpace();
            if (pos < text.length() && text.charAt(pos) == '`') {
                StringBuilder sb = new StringBuilder();
                pos++;
                while (true) {
                    if (pos >= text.length()) {
                        throw error("the closing back-tick of a column name");
                    }
                    char d = text.charAt(pos++);
                    if (d == '`') {
                        if (pos < text.length() && text.charAt(pos) == '`') {
                            sb.append('`');
                            pos++;
                            continue;
                        }
                        return sb.toString();
                    }
                    sb.append(d);
                }
            }
            int start = pos;
            while (pos < text.length()
                    && (Character.isLetterOrDigit(text.charAt(pos))
                            || text.charAt(pos) == '_'
                            || text.charAt(pos) == '$')) {
                pos++;
            }
            if (start == pos) {
                throw error("a column name");
            }
            return text.substring(start, pos);
        }

        boolean accept(String symbol) {
            skipSpace();
            if (text.startsWith(symbol, pos)) {
                pos += symbol.length();
                return true;
            }
            return false;
        }

        void expect(String symbol) {
            if (!accept(symbol)) {
                throw error("'" + symbol + "'");
            }
        }

        boolean peekKeyword(String kw) {
            skipSpace();
            int end = pos + kw.length();
            return end <= text.length()
                    && text.substring(pos, end).toUpperCase(Locale.ROOT).equals(kw)
                    && (end == text.length()
                            || !(Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_'));
        }

        boolean acceptKeyword(String kw) {
            if (peekKeyword(kw)) {
                pos += kw.length();
                return true;
            }
            return false;
        }

        void expectKeyword(String kw) {
            if (!acceptKeyword(kw)) {
                throw error(kw);
            }
        }

        void expectEnd() {
            skipSpace();
            if (pos < text.length()) {
                throw error("AND, OR or the end of the condition");
            }
        }

        void skipSpace() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        InletValidationException error(String expected) {
            String rest = pos < text.length()
                    ? "'" + text.substring(pos, Math.min(text.length(), pos + 20)) + "'"
                    : "the end";
            return new InletValidationException("filter: cannot parse '"
                    + text
                    + "': expected "
                    + expected
                    + " at position "
                    + (pos + 1)
                    + ", found "
                    + rest
                    + ".");
        }
    }
}
