package io.inlet.core.util;

import io.inlet.annotation.PublicEvolving;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for schema registry answers and managed runtimes' application properties:
 * objects, arrays, strings, numbers, booleans and null, into Maps, Lists, Strings, Doubles/Longs,
 * Booleans and null. Keeps Inlet free of a JSON library that a Flink cluster does not bring
 * unshaded. Shared by the modules that read such documents (sources, job jars, test harness).
 *
 * <pre>{@code
 * Map<?, ?> schema = (Map<?, ?>) MiniJson.parse("{\"id\": 1, \"schema\": \"...\"}");
 * String text = MiniJson.quote("a \"quoted\" name");
 * }</pre>
 */
@PublicEvolving
public final class MiniJson {

    private final String text;
    private int pos;

    private MiniJson(String text) {
        this.text = text;
    }

    /** Parses a JSON document; throws IllegalArgumentException naming the position on bad input. */
    public static Object parse(String text) {
        MiniJson p = new MiniJson(text);
        Object v = p.value();
        p.space();
        if (p.pos != text.length()) {
            throw p.error("the end of the document");
        }
        return v;
    }

    private Object value() {
        space();
        if (pos >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        pos++;
        space();
        if (peek('}')) {
            pos++;
            return m;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw error("a quoted key");
            }
            String key = string();
            space();
            expect(':');
            m.put(key, value());
            space();
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        pos++;
        space();
        if (peek(']')) {
            pos++;
            return l;
        }
        while (true) {
            l.add(value());
            space();
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return l;
            }
        }
    }

    private String string() {
        pos++; // opening quote
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("the closing quote of a string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("an escaped character");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n':
                    sb.append('\n');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'r':
                    sb.append('\r');
                    break;
                case 'b':
                    sb.append('\b');
                    break;
                case 'f':
                    sb.append('\f');
                    break;
                case 'u':
                    if (pos + 4 > text.length()) {
                        throw error("four hex digits");
                    }
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                    break;
                default:
                    sb.append(e); // \" \\ \/
            }
        }
    }

    private Object number() {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String n = text.substring(start, pos);
        if (n.isEmpty()) {
            throw error("a value");
        }
        try {
            return n.contains(".") || n.contains("e") || n.contains("E")
                    ? (Object) Double.valueOf(n)
                    : (Object) Long.valueOf(n);
        } catch (NumberFormatException e) {
            pos = start;
            throw error("a number");
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("a value");
        }
        pos += word.length();
        return value;
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        pos++;
    }

    private void space() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("Malformed JSON: expected " + expected + " at position " + pos);
    }

    /** A JSON string literal of the text, quotes included. */
    public static String quote(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"').toString();
    }
}
