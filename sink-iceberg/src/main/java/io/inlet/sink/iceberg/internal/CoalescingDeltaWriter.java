package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;

import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One table's delta writer for one checkpoint (or part of one) that holds back the latest change of
 * each recently changed key and writes only the net change of a key to Iceberg's delta writer: a
 * key inserted and updated three times before the barrier becomes one equality delete and one row,
 * not four rows, three position deletes and a delete. Iceberg's {@code BaseDeltaTaskWriter} writes
 * every change into the data file and deletes the replaced rows by position, which for keys that
 * change often costs more than the rows that stay (its position deletes repeat the file path per
 * row and are sorted at close).
 *
 * <p>The table ends up with the same rows: within one snapshot only the last change of a key is
 * visible, and the equality delete of a key (upsert mode, or a changelog delete of a row from an
 * earlier snapshot) applies to earlier snapshots whatever the rows of this one. At most {@code
 * maxHeldKeys} keys are held, least recently changed written out first, so memory is bounded and a
 * key changed after it was written out is deleted by position as Iceberg's writer does. Snapshot
 * rows whose key is not held go straight to the delta writer: snapshot keys arrive once.
 *
 * <p>Changes of one key must arrive in order, as the stream keyed by primary key guarantees.
 */
@Internal
final class CoalescingDeltaWriter {

    /** A key's net change since it was first held. */
    private static final class Net {
        /** The row to delete by equality, written before {@link #after}: the key's delete, or an earlier row. */
        RowData delete;
        /** The key's row now, or {@code null} when it has none from this checkpoint. */
        RowData after;
    }

    private final TaskWriter<RowData> writer;
    private final RowKeys keys;
    private final boolean upsert;
    private final int maxHeldKeys;
    /** Least recently changed first. */
    private final LinkedHashMap<Object, Net> held = new LinkedHashMap<>(64, 0.75f, true);

    private long coalesced;

    /**
     * @param writer Iceberg's delta writer of the table (upsert or not, as {@code upsert})
     * @param keys the primary key of the rows the writer takes; {@code null} for a table without one, whose
     *     changes are all written as they come
     */
    CoalescingDeltaWriter(TaskWriter<RowData> writer, RowKeys keys, boolean upsert, int maxHeldKeys) {
        this.writer = writer;
        this.keys = keys;
        this.upsert = upsert;
        this.maxHeldKeys = maxHeldKeys;
    }

    /** Writes a change; {@code snapshotRow} for a row a snapshot read, which may skip the holding. */
    void write(RowData row, boolean snapshotRow) throws IOException {
        RowKind kind = row.getRowKind();
        // Upsert mode keeps a -U: its key is deleted unless an after-image of the same key follows (which
        // deletes the key itself). Iceberg's upsert writer drops every -U, which leaves the old key of an
        // update that changed the key.
        if (keys == null || (snapshotRow && held.isEmpty())) {
            if (upsert && kind == RowKind.UPDATE_BEFORE) {
                deleteKey(row);
            } else {
                writer.write(row);
            }
            return;
        }
        Object key = keys.of(row);
        Net net = held.get(key);
        if (net == null) {
            if (snapshotRow) {
                writer.write(row);
                return;
            }
            net = new Net();
            held.put(key, net);
            if (held.size() > maxHeldKeys) {
                writeEldest();
            }
        } else {
            coalesced++;
        }
        switch (kind) {
            case INSERT:
            case UPDATE_AFTER:
                // An upsert deletes the key first; a changelog row replaces the row of this checkpoint, if any.
                net.after = row;
                break;
            default: // UPDATE_BEFORE and DELETE
                if (upsert) {
                    net.after = null;
                    net.delete = row;
                } else if (net.after != null) {
                    net.after = null; // a row of this checkpoint: it never reaches a file
                } else if (net.delete == null) {
                    net.delete = row; // a row from an earlier snapshot; a second delete of the key adds nothing
                }
                break;
        }
    }

    private void writeEldest() throws IOException {
        Iterator<Map.Entry<Object, Net>> eldest = held.entrySet().iterator();
        Net net = eldest.next().getValue();
        eldest.remove();
        writeOut(net);
    }

    private void writeOut(Net net) throws IOException {
        if (upsert) {
            // The after-image deletes the key itself; without one, the delete does.
            if (net.after != null) {
                writer.write(net.after);
            } else {
                deleteKey(net.delete);
            }
        } else {
            if (net.delete != null) {
                writer.write(net.delete);
            }
            if (net.after != null) {
                writer.write(net.after);
            }
        }
    }

    /** An upsert delete of the row's key, also for a -U, which Iceberg's upsert writer would skip. */
    private void deleteKey(RowData row) throws IOException {
        RowKind kind = row.getRowKind();
        if (kind == RowKind.DELETE) {
            writer.write(row);
            return;
        }
        // The writer takes the key into its delete file as it writes: the kind can go back after.
        row.setRowKind(RowKind.DELETE);
        try {
            writer.write(row);
        } finally {
            row.setRowKind(kind);
        }
    }

    /** Writes out every held change and closes the files: what the delta writer wrote. */
    WriteResult complete() throws IOException {
        for (Net net : held.values()) {
            writeOut(net);
        }
        held.clear();
        return writer.complete();
    }

    /** Changes that replaced or cancelled a held change of their key instead of reaching a file. */
    long coalesced() {
        return coalesced;
    }

    /** Discards what is held and closes (and deletes) the delta writer's files: after a failure. */
    void abort() throws IOException {
        held.clear();
        writer.abort();
    }

    /** Closes the delta writer's files without completing them. */
    void close() throws IOException {
        held.clear();
        writer.close();
    }
}
