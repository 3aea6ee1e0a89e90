package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;

import io.debezium.document.Document;
import io.debezium.document.DocumentWriter;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;

/**
 * The JSON of a dead letter, one line per record: {@code {"table": "shop.orders", "kind": "+I",
 * "position": "mysql-bin.000003:4711#0", "reason": "...", "before": {...}, "after": {...}, "at":
 * "2026-12-01T10:00:00Z"}}, the row images as Debezium gave them, every value as text. Written
 * with Debezium's own JSON writer, which the source has at hand.
 */
@Internal
final class DeadLetterJson {

    private DeadLetterJson() {}

    static String of(
            TableId table,
            String kind,
            SourcePosition position,
            String reason,
            @Nullable Map<String, String> before,
            @Nullable Map<String, String> after) {
        Document d = Document.create();
        d.setString("table", table.identifier());
        d.setString("kind", kind);
        d.setString("position", position.toString());
        d.setString("reason", reason);
        row(d, "before", before);
        row(d, "after", after);
        d.setString("at", Instant.now().toString());
        return write(d);
    }

    static String notice(TableId table, SourcePosition position, String what) {
        Document d = Document.create();
        d.setString("table", table.identifier());
        d.setString("position", position.toString());
        d.setString("change", what);
        return write(d);
    }

    private static void row(Document d, String name, @Nullable Map<String, String> values) {
        if (values == null) {
            d.setNull(name);
            return;
        }
        Document row = Document.create();
        values.forEach((k, v) -> {
            if (v == null) {
                row.setNull(k);
            } else {
                row.setString(k, v);
            }
        });
        d.setDocument(name, row);
    }

    private static String write(Document d) {
        try {
            return DocumentWriter.defaultWriter().write(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
