package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;

import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ThreadPools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns one snapshot of a format-v2 table into the {@link ChangeSplit}s of its changes, file by file,
 * with the rules of Iceberg's sequence numbers (an equality delete applies to data files of lower
 * sequence numbers only, a position delete also to its own snapshot's files):
 *
 * <ul>
 *   <li>each data file the snapshot added, with the snapshot's deletes: its rows are added;
 *   <li>each equality delete file of the snapshot that holds whole rows (changelog mode): its rows
 *       are removed, as the writer's before-images;
 *   <li>each older data file one of the snapshot's other delete files reaches (position deletes,
 *       equality deletes of keys only): the rows live with the older deletes and gone with those
 *       as well are removed;
 *   <li>with before-images STATE, each equality delete file of the table's keys instead: its keys
 *       are removed, their rows are in the pairing's state, and the older files they reach are not read;
 *   <li>each data file the snapshot removed whole, as it was at the parent: all its rows are removed.
 * </ul>
 *
 * A {@code replace} (compaction, manifests regrouped) keeps the rows: no splits. A snapshot that
 * removed delete files without being a replace would bring rows back; it fails, naming the snapshot,
 * its operation and the engine that wrote it. Manifests are read on Iceberg's worker pool, in parallel.
 */
@Internal
public final class SnapshotPlanner {

    private SnapshotPlanner() {}

    /**
     * The splits of the snapshot's changes; with {@code keysFromState} (before-images STATE) each
     * key-only equality delete file on the table's identifier fields is a {@link
     * ChangeSplit.Kind#KEY_DELETES} split of its own, and the older files it reaches are not read.
     */
    public static List<ChangeSplit> changes(
            Table table, Snapshot snapshot, long epoch, Schema read, boolean keysFromState) {
        return aloneIfOnlyAdded(plan(table, snapshot, epoch, read, keysFromState));
    }

    /** An epoch whose splits all add rows: they are marked, so the pairing can let them through at once. */
    private static List<ChangeSplit> aloneIfOnlyAdded(List<ChangeSplit> splits) {
        for (ChangeSplit s : splits) {
            if (s.kind() != ChangeSplit.Kind.ADDED) {
                return splits;
            }
        }
        List<ChangeSplit> alone = new ArrayList<>(splits.size());
        splits.forEach(s -> alone.add(s.alone()));
        return alone;
    }

    private static List<ChangeSplit> plan(
            Table table, Snapshot snapshot, long epoch, Schema read, boolean keysFromState) {
        String operation = snapshot.operation();
        if (DataOperations.REPLACE.equals(operation)) {
            return List.of();
        }
        List<DeleteFile> removedDeletes = list(snapshot.removedDeleteFiles(table.io()));
        if (!removedDeletes.isEmpty()) {
            throw new InletStopException("Cannot read snapshot " + snapshot.snapshotId() + " of Iceberg table "
                    + table.name() + " (operation " + operation + ", written by " + writer(snapshot) + ") as changes:"
                    + " it removes " + removedDeletes.size() + " delete file(s) without being a replace, which"
                    + " brings deleted rows back.");
        }
        Set<String> added = paths(snapshot.addedDataFiles(table.io()));
        List<DeleteFile> addedDeletes = list(snapshot.addedDeleteFiles(table.io()));
        Set<String> newDeletes = paths(addedDeletes);
        Set<String> removedFiles = paths(snapshot.removedDataFiles(table.io()));
        // Equality deletes that hold whole rows (Iceberg's changelog writer, Inlet's sink in changelog
        // mode) are the before-images themselves: the older files they reach need not be read.
        Schema schema = table.schemas().getOrDefault(snapshot.schemaId(), table.schema());
        List<DeleteFile> rowDeletes = new ArrayList<>();
        List<DeleteFile> keyDeletes = new ArrayList<>();
        for (DeleteFile d : addedDeletes) {
            // With the rows in state every delete of the read's keys is read as keys: a whole row in a
            // delete file says what a writer deleted, not that it was there.
            if (keysFromState && deletesKeys(table, d, read)) {
                keyDeletes.add(d);
            } else if (holdsWholeRows(table, d, schema)) {
                rowDeletes.add(d);
            }
        }
        Set<String> readFromDeletes = paths(rowDeletes);
        readFromDeletes.addAll(paths(keyDeletes));

        List<ChangeSplit> splits = new ArrayList<>();
        long id = snapshot.snapshotId();
        ChangeSplit.Commit commit = ChangeSplit.Commit.of(snapshot);
        if (!added.isEmpty() || !newDeletes.isEmpty()) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan()
                    .useSnapshot(id)
                    .planWith(ThreadPools.getWorkerPool())
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    if (added.contains(task.file().path().toString())) {
                        splits.add(ChangeSplit.added(epoch, splits.size(), commit, ScanTaskParser.toJson(task)));
                        continue;
                    }
                    List<DeleteFile> older = new ArrayList<>();
                    List<DeleteFile> reaching = new ArrayList<>();
                    for (DeleteFile d : task.deletes()) {
                        String path = d.path().toString();
                        if (!newDeletes.contains(path)) {
                            older.add(d);
                        } else if (!readFromDeletes.contains(path)) {
                            reaching.add(d); // position deletes, and equality deletes of keys only
                        }
                    }
                    if (!reaching.isEmpty()) {
                        List<DeleteFile> after = new ArrayList<>(older);
                        after.addAll(reaching);
                        splits.add(ChangeSplit.touched(
                                epoch,
                                splits.size(),
                                commit,
                                ScanTaskParser.toJson(withDeletes(task, after)),
                                ScanTaskParser.toJson(withDeletes(task, older))));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Planning snapshot " + id + " of " + table.name(), e);
            }
        }
        for (DeleteFile d : rowDeletes) {
            splits.add(ChangeSplit.rowDeletes(epoch, splits.size(), commit, d.format() + "\n" + d.path()));
        }
        for (DeleteFile d : keyDeletes) {
            splits.add(ChangeSplit.keyDeletes(epoch, splits.size(), commit, d.format() + "\n" + d.path()));
        }
        if (!removedFiles.isEmpty() && snapshot.parentId() != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan()
                    .useSnapshot(snapshot.parentId())
                    .planWith(ThreadPools.getWorkerPool())
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    if (removedFiles.contains(task.file().path().toString())) {
                        splits.add(ChangeSplit.removed(epoch, splits.size(), commit, ScanTaskParser.toJson(task)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Planning the parent of snapshot " + id + " of " + table.name(), e);
            }
        }
        return splits;
    }

    /** Every live row of the table at the snapshot, as added rows: the table scan a read may start with. */
    public static List<ChangeSplit> scan(Table table, Snapshot snapshot, long epoch) {
        List<ChangeSplit> splits = new ArrayList<>();
        ChangeSplit.Commit commit = ChangeSplit.Commit.of(snapshot);
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .useSnapshot(snapshot.snapshotId())
                .planWith(ThreadPools.getWorkerPool())
                .planFiles()) {
            for (FileScanTask task : tasks) {
                splits.add(ChangeSplit.added(epoch, splits.size(), commit, ScanTaskParser.toJson(task)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Planning snapshot " + snapshot.snapshotId() + " of " + table.name(), e);
        }
        return aloneIfOnlyAdded(splits);
    }

    /**
     * Whether an equality delete file holds whole rows in the snapshot's schema: it deletes by the
     * identifier fields, and its own schema (read from its footer or header) has every column. Key-only
     * ones (upsert mode), deletes by other fields, those of a table whose columns are all key columns
     * (an upsert writer's key-only deletes hold every column there too, also for keys never written)
     * and files this reader cannot open directly (encrypted, ORC) are not.
     */
    static boolean holdsWholeRows(Table table, DeleteFile d, Schema schema) {
        if (d.content() != FileContent.EQUALITY_DELETES || d.keyMetadata() != null) {
            return false;
        }
        Set<Integer> keyIds = schema.identifierFieldIds();
        if (keyIds.isEmpty()
                || !keyIds.equals(new HashSet<>(d.equalityFieldIds()))
                || keyIds.size() >= schema.columns().size()) {
            return false;
        }
        Set<Integer> needed = new HashSet<>();
        TypeUtil.indexById(schema.asStruct()).forEach((fieldId, field) -> {
            if (field.type().isPrimitiveType()) {
                needed.add(fieldId);
            }
        });
        InputFile in = table.io().newInputFile(d.path().toString());
        Set<Integer> has = new HashSet<>();
        try {
            if (d.format() == FileFormat.PARQUET) {
                Map<Integer, Long> counts =
                        ParquetUtil.fileMetrics(in, MetricsConfig.getDefault()).valueCounts();
                if (counts != null) {
                    has.addAll(counts.keySet());
                }
            } else if (d.format() == FileFormat.AVRO) {
                try (DataFileStream<Object> avro = new DataFileStream<>(in.newStream(), new GenericDatumReader<>())) {
                    TypeUtil.indexById(
                                    AvroSchemaUtil.toIceberg(avro.getSchema()).asStruct())
                            .keySet()
                            .forEach(has::add);
                }
            } else {
                return false;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Reading the schema of delete file " + d.path() + " of " + table.name(), e);
        }
        return has.containsAll(needed);
    }

    /**
     * Whether an equality delete file deletes by the read's identifier fields, all top-level columns,
     * in a format this reader opens directly, and reaches every row of its keys: it is global
     * (unpartitioned spec), or the table has one spec, whose partition columns are all key columns (so
     * a key's rows are in the delete's partition). Its keys are then the changelog's keys.
     */
    static boolean deletesKeys(Table table, DeleteFile d, Schema schema) {
        if (d.content() != FileContent.EQUALITY_DELETES
                || d.keyMetadata() != null
                || (d.format() != FileFormat.PARQUET && d.format() != FileFormat.AVRO)) {
            return false;
        }
        Set<Integer> ids = schema.identifierFieldIds();
        if (ids.isEmpty() || !ids.equals(new HashSet<>(d.equalityFieldIds()))) {
            return false;
        }
        for (int id : ids) {
            if (schema.columns().stream().noneMatch(c -> c.fieldId() == id)) {
                return false;
            }
        }
        PartitionSpec spec = table.specs().get(d.specId());
        if (spec == null) {
            return false;
        }
        if (spec.isUnpartitioned()) {
            return true;
        }
        return table.specs().size() == 1 && spec.fields().stream().allMatch(f -> ids.contains(f.sourceId()));
    }

    private static FileScanTask withDeletes(FileScanTask task, List<DeleteFile> deletes) {
        return new BaseFileScanTask(
                (DataFile) task.file(),
                deletes.toArray(new DeleteFile[0]),
                SchemaParser.toJson(task.schema()),
                PartitionSpecParser.toJson(task.spec()),
                ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
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

    /**
     * Fails when the snapshot's schema changed a column the read's schema has: a type widened past
     * the read's (or changed otherwise), a required column dropped or made optional. The read keeps
     * the schema it was built with, and such files would fail every attempt the same way (or turn
     * NULLs into values). Added columns are not read; a dropped optional one reads as NULL.
     */
    public static void checkSchema(Table table, Snapshot snapshot, Schema read) {
        Integer id = snapshot.schemaId();
        Schema at = id == null ? null : table.schemas().get(id);
        if (at == null || at.sameSchema(read)) {
            return;
        }
        Map<Integer, Integer> parents = TypeUtil.indexParents(read.asStruct());
        TypeUtil.indexById(read.asStruct()).forEach((fieldId, field) -> {
            Types.NestedField now = at.findField(fieldId);
            Integer parent = parents.get(fieldId);
            String problem = null;
            if (now == null && field.isRequired() && (parent == null || at.findField(parent) != null)) {
                // A required field inside a dropped optional struct, list or map is read as part of
                // its parent, NULL.
                problem = "required column '" + read.findColumnName(fieldId) + "' was dropped";
            } else if (now != null && now.isOptional() && field.isRequired()) {
                problem = "column '" + read.findColumnName(fieldId) + "' is now optional (the read has it required,"
                        + " so its NULLs would have nowhere to go)";
            } else if (now != null
                    && field.type().isPrimitiveType()
                    && !now.type().equals(field.type())
                    && !TypeUtil.isPromotionAllowed(now.type(), field.type().asPrimitiveType())) {
                // A type the read's own can be promoted from (an older snapshot than the read's
                // schema, int read as long) is read as Iceberg reads it; a wider or another one is not.
                problem = "column '" + read.findColumnName(fieldId) + "' is now " + now.type() + " (the read has "
                        + field.type() + ")";
            }
            if (problem != null) {
                throw new InletStopException("Cannot read snapshot " + snapshot.snapshotId() + " of Iceberg table "
                        + table.name() + " (operation " + snapshot.operation() + ", written by " + writer(snapshot)
                        + "): its schema (id " + id + ") changed what this read reads: " + problem + ". The changelog"
                        + " read keeps the schema it was built with; start a new read (a new uid prefix, from the"
                        + " table scan) to read the new schema.");
            }
        });
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
