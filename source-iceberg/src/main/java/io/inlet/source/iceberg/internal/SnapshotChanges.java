package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.encryption.InputFilesDecryptor;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The changes one Iceberg snapshot made to a format-v2 table, as a changelog: per key the net change
 * between the table at the snapshot's parent and at the snapshot, {@code +I}, {@code -U}/{@code +U}
 * with the full before-image, or {@code -D}; nothing for a key whose row ends as it began (an insert
 * and a delete within the snapshot, a key deleted and written again with the same values, files
 * rewritten by a compaction).
 *
 * <p>How, with the rules of Iceberg's sequence numbers (an equality delete applies to data files of
 * lower sequence numbers only, a position delete also to its own snapshot's files): the rows the
 * snapshot added are its own data files read with its deletes; the rows it removed are, in each older
 * data file that one of its delete files reaches, the rows live without those deletes and gone with
 * them, and every row of a data file it removed whole. Added and removed rows pair by the table's
 * identifier fields (the whole row for a table without them). Equality deletes of keys that had no
 * row (an upsert writer deletes every key it inserts) remove nothing and cost no read.
 *
 * <p>A snapshot this cannot read as changes fails with the snapshot, its operation and the engine that
 * wrote it named: one that removed delete files without being a {@code replace}, which would bring
 * rows back.
 */
@Internal
public final class SnapshotChanges {

    private final Table table;
    private final Schema schema;
    private final RowType rowType;
    private final RowDataSerializer copier;
    private final RowDataFileScanTaskReader reader;
    /** The identifier fields' getters, or every field's for a table without identifier fields. */
    private final RowData.FieldGetter[] key;

    /** Reads the table in its current schema. */
    public SnapshotChanges(Table table) {
        this.table = table;
        this.schema = table.schema();
        this.rowType = FlinkSchemaUtil.convert(schema);
        this.copier = new RowDataSerializer(rowType);
        this.reader = new RowDataFileScanTaskReader(schema, schema, null, true, Collections.emptyList());
        Set<Integer> ids = schema.identifierFieldIds();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < schema.columns().size(); i++) {
            if (ids.contains(schema.columns().get(i).fieldId())) {
                positions.add(i);
            }
        }
        if (positions.isEmpty()) {
            for (int i = 0; i < rowType.getFieldCount(); i++) {
                positions.add(i);
            }
        }
        this.key = new RowData.FieldGetter[positions.size()];
        for (int i = 0; i < key.length; i++) {
            key[i] = RowData.createFieldGetter(rowType.getTypeAt(positions.get(i)), positions.get(i));
        }
    }

    /** The table's rows as the changes carry them. */
    public RowType rowType() {
        return rowType;
    }

    /** The changes of the snapshot, in no particular order across keys. */
    public List<RowData> of(Snapshot snapshot) {
        String operation = snapshot.operation();
        if (DataOperations.REPLACE.equals(operation)) {
            // Files rewritten (compaction) or manifests regrouped: the same rows.
            return List.of();
        }
        List<DeleteFile> removedDeletes = list(snapshot.removedDeleteFiles(table.io()));
        if (!removedDeletes.isEmpty()) {
            throw new IllegalStateException("Cannot read snapshot " + snapshot.snapshotId() + " of Iceberg table "
                    + table.name() + " (operation " + operation + ", written by " + writer(snapshot) + ") as changes:"
                    + " it removes " + removedDeletes.size() + " delete file(s) without being a replace, which"
                    + " brings deleted rows back.");
        }
        Set<String> added = paths(snapshot.addedDataFiles(table.io()));
        Set<String> newDeletes = paths(snapshot.addedDeleteFiles(table.io()));
        Set<String> removedFiles = paths(snapshot.removedDataFiles(table.io()));

        Map<Key, RowData> after = new LinkedHashMap<>();
        Map<Key, RowData> before = new LinkedHashMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                String path = task.file().path().toString();
                if (added.contains(path)) {
                    read(task, after);
                    continue;
                }
                List<DeleteFile> older = new ArrayList<>();
                boolean reached = false;
                for (DeleteFile d : task.deletes()) {
                    if (newDeletes.contains(d.path().toString())) {
                        reached = true;
                    } else {
                        older.add(d);
                    }
                }
                if (reached) {
                    // Live before the snapshot, minus live after it: what its deletes removed from this file.
                    Map<Key, RowData> was = new LinkedHashMap<>();
                    read(withDeletes(task, older), was);
                    Map<Key, RowData> is = new LinkedHashMap<>();
                    read(task, is);
                    was.keySet().removeAll(is.keySet());
                    before.putAll(was);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Planning snapshot " + snapshot.snapshotId() + " of " + table.name(), e);
        }
        if (!removedFiles.isEmpty() && snapshot.parentId() != null) {
            // Files the snapshot removed whole: every row they held at the parent is gone.
            try (CloseableIterable<FileScanTask> tasks =
                    table.newScan().useSnapshot(snapshot.parentId()).planFiles()) {
                for (FileScanTask task : tasks) {
                    if (removedFiles.contains(task.file().path().toString())) {
                        read(task, before);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Planning the parent of snapshot " + snapshot.snapshotId(), e);
            }
        }
        return pair(before, after);
    }

    /** Every row of the table at the snapshot, as an insert: the table scan a read may start with. */
    public List<RowData> rows(Snapshot snapshot) {
        Map<Key, RowData> rows = new LinkedHashMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                read(task, rows);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Planning snapshot " + snapshot.snapshotId() + " of " + table.name(), e);
        }
        return pair(Map.of(), rows);
    }

    private List<RowData> pair(Map<Key, RowData> before, Map<Key, RowData> after) {
        List<RowData> out = new ArrayList<>();
        for (Map.Entry<Key, RowData> b : before.entrySet()) {
            RowData a = after.remove(b.getKey());
            if (a == null) {
                out.add(kind(b.getValue(), RowKind.DELETE));
            } else if (!b.getValue().equals(a)) {
                out.add(kind(b.getValue(), RowKind.UPDATE_BEFORE));
                out.add(kind(a, RowKind.UPDATE_AFTER));
            }
        }
        for (RowData a : after.values()) {
            out.add(kind(a, RowKind.INSERT));
        }
        return out;
    }

    private static RowData kind(RowData row, RowKind kind) {
        row.setRowKind(kind);
        return row;
    }

    private void read(FileScanTask task, Map<Key, RowData> into) {
        InputFilesDecryptor decryptor =
                new InputFilesDecryptor(new BaseCombinedScanTask(task), table.io(), table.encryption());
        try (CloseableIterator<RowData> rows = reader.open(task, decryptor)) {
            while (rows.hasNext()) {
                // The readers reuse their rows.
                RowData row = copier.copy(rows.next());
                into.put(key(row), row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Reading " + task.file().path() + " of " + table.name(), e);
        }
    }

    private static FileScanTask withDeletes(FileScanTask task, List<DeleteFile> deletes) {
        return new BaseFileScanTask(
                (DataFile) task.file(),
                deletes.toArray(new DeleteFile[0]),
                SchemaParser.toJson(task.schema()),
                PartitionSpecParser.toJson(task.spec()),
                ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
    }

    private Key key(RowData row) {
        Object[] values = new Object[key.length];
        for (int i = 0; i < key.length; i++) {
            values[i] = key[i].getFieldOrNull(row);
        }
        return new Key(values);
    }

    /** A row's key: its identifier fields' values, compared by value (arrays by content). */
    private static final class Key {
        private final Object[] values;
        private final int hash;

        Key(Object[] values) {
            this.values = values;
            this.hash = Arrays.deepHashCode(values);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && hash == ((Key) o).hash && Arrays.deepEquals(values, ((Key) o).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static <F extends ContentFile<F>> List<F> list(Iterable<F> files) {
        List<F> out = new ArrayList<>();
        files.forEach(out::add);
        return out;
    }

    private static <F extends ContentFile<F>> Set<String> paths(Iterable<F> files) {
        Set<String> out = new HashSet<>();
        files.forEach(f -> out.add(f.path().toString()));
        return out;
    }

    /** Who wrote a snapshot, from its summary: Inlet's sink, Iceberg's Flink sink, or the engine it names. */
    static String writer(Snapshot snapshot) {
        Map<String, String> summary = snapshot.summary();
        if (summary.containsKey("inlet.job-lineage")) {
            return "Inlet's Iceberg sink (lineage " + summary.get("inlet.job-lineage") + ")";
        }
        if (summary.containsKey("flink.job-id")) {
            return "Iceberg's Flink sink (job " + summary.get("flink.job-id") + ")";
        }
        String engine = summary.get("engine-name");
        return engine != null ? engine + " " + summary.getOrDefault("engine-version", "") : "an unknown engine";
    }
}
