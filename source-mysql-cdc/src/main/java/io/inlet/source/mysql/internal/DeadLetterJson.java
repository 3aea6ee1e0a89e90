package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;

import javax.annotation.Nullable;

import java.time.Instant;
import java.util.Map;

/**
 * The JSON of a dead letter, one line per record: {@code {"table": "shop.orders", "kind": "+I",
 * "position": "mysql-bin.000003:4711#0", "reason": "...", "before": {...}, "after": {...}, "at":
 * "2026-12-01T10:00:00Z"}}, the row images as Debezium gave them, every value as text.
 */
@Internal
final class DeadLetterJson {

    private DeadLetterJson() {}

    static String of(TableId table, String kind, SourcePosition position, String reason,
            @Nullable Map<String, String> before, @Nullable Map<String, String> after) {
        StringBuilder sb = new StringBuilder(256).append('{');
        field(sb, "table", table.identifier()).append(',');
        field(sb, "kind", kind).append(',');
        field(sb, "position", position.toString()).append(',');
        field(sb, "reason", reason).append(',');
        row(sb, "before", before).append(',');
        row(sb, "after", after).append(',');
        field(sb, "at", Instant.now().toString());
        return sb.append('}').toString();
    }

    static String notice(TableId table, SourcePosition position, String what) {
        StringBuilder sb = new StringBuilder(128).append('{');
        field(sb, "table", table.identifier()).append(',');
        field(sb, "position", position.toString()).append(',');
        field(sb, "change", what);
        return sb.append('}').toString();
    }

    private static StringBuilder row(StringBuilder sb, String name, @Nullable Map<String, String> values) {
        quote(sb, name).append(':');
        if (values == null) {
            return sb.append("null");
        }
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            quote(sb, e.getKey()).append(':');
            if (e.getValue() == null) {
                sb.append("null");
            } else {
                quote(sb, e.getValue());
            }
        }
        return sb.append('}');
    }

    private static StringBuilder field(StringBuilder sb, String name, String value) {
        return quote(quote(sb, name).append(':'), value);
    }

    static StringBuilder quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
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
        return sb.append('"');
    }
}
