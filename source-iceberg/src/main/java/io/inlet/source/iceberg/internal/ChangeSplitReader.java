package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.encryption.InputFilesDecryptor;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.data.FlinkAvroReader;
import org.apache.iceberg.flink.data.FlinkParquetReaders;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.Parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@link ChangeSplit} into its tagged rows: {@code +I} for each row it adds, {@code -D} for
 * each row it removes (for {@link ChangeSplit.Kind#ROW_DELETES}, the delete file's own rows), always
 * in the same order for the same split (a restored reader skips what it had emitted). Rows are read
 * in the schema the read was built with, by field id.
 */
@Internal
public final class ChangeSplitReader {

    private final Table table;
    private final Schema schema;
    private final RowDataSerializer copier;
    private final RowDataFileScanTaskReader reader;
    private final IdentifierKeys keys;
    private final RowData.FieldGetter[] fields;
    /** The identifier fields alone, as key-only deletes hold them, and their positions in the row. */
    private final Schema keySchema;

    private final int[] keyPositions;
    private final RowData.FieldGetter[] keyFields;

    /** The delete files {@link #lastKeys} were read from. */
    private Set<String> lastKeyFiles;

    private Map<Set<Integer>, DeletedKeys> lastKeys;

    public ChangeSplitReader(Table table, Schema schema) {
        this.table = table;
        this.schema = schema;
        RowType rowType = FlinkSchemaUtil.convert(schema);
        this.copier = new RowDataSerializer(rowType);
        this.reader = new RowDataFileScanTaskReader(schema, schema, null, true, Collections.emptyList());
        this.keys = IdentifierKeys.of(schema);
        this.fields = new RowData.FieldGetter[rowType.getFieldCount()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
        }
        this.keySchema = schema.select(schema.identifierFieldNames());
        RowType keyType = FlinkSchemaUtil.convert(keySchema);
        this.keyPositions = new int[keySchema.columns().size()];
        this.keyFields = new RowData.FieldGetter[keyPositions.length];
        for (int i = 0; i < keyPositions.length; i++) {
            keyPositions[i] = rowType.getFieldIndex(keySchema.columns().get(i).name());
            keyFields[i] = RowData.createFieldGetter(keyType.getTypeAt(i), i);
        }
    }

    /**
     * The split's rows, tagged. Added rows and the rows of a removed file stream from the file (the
     * reader reuses them: emit each before the next); a touched file's removed rows are found in
     * memory, one file at a time.
     */
    public CloseableIterator<RowData> open(ChangeSplit split) {
        if (split.kind() == ChangeSplit.Kind.ROW_DELETES) {
            return tagged(readDeleteFile(split.task(), schema), RowKind.DELETE);
        }
        if (split.kind() == ChangeSplit.Kind.KEY_DELETES) {
            return deletedKeys(split.task());
        }
        FileScanTask task = ScanTaskParser.fromJson(split.task(), true);
        switch (split.kind()) {
            case ADDED:
                return tagged(read(task), RowKind.INSERT);
            case ADDED_ALONE:
                // Added, in an epoch that removes nothing: the pairing may let it through at once.
                return tagged(read(task), RowKind.UPDATE_AFTER);
            case REMOVED:
                return tagged(read(task), RowKind.DELETE);
            case TOUCHED:
                return removedFrom(ScanTaskParser.fromJson(split.taskBefore(), true), task);
            default:
                throw new IllegalStateException("Unknown split kind " + split.kind());
        }
    }

    /**
     * What the snapshot's deletes removed from an older file. When they are all equality deletes of
     * keys (upsert mode), the file is read once, with its older deletes, and its rows whose key they
     * delete are removed; a file whose key bounds hold none of those keys is not read at all.
     * Otherwise (position deletes among them): live before them, minus live after them.
     */
    private CloseableIterator<RowData> removedFrom(FileScanTask before, FileScanTask after) {
        Set<String> older = new HashSet<>();
        before.deletes().forEach(d -> older.add(d.path().toString()));
        List<DeleteFile> keyDeletes = new ArrayList<>();
        for (DeleteFile d : after.deletes()) {
            if (older.contains(d.path().toString())) {
                continue;
            }
            if (d.content() != FileContent.EQUALITY_DELETES
                    || d.keyMetadata() != null
                    || (d.format() != FileFormat.PARQUET && d.format() != FileFormat.AVRO)) {
                return removedByTwoReads(before, after);
            }
            keyDeletes.add(d);
        }
        Map<Set<Integer>, DeletedKeys> byFields = deletedKeys(keyDeletes);
        boolean mayHold = false;
        for (DeletedKeys k : byFields.values()) {
            mayHold |= k.mayDeleteFrom((DataFile) before.file());
        }
        if (!mayHold) {
            return tagged(CloseableIterator.empty(), RowKind.DELETE);
        }
        List<DeletedKeys> matchers = new ArrayList<>(byFields.values());
        CloseableIterator<RowData> rows = read(before);
        return tagged(
                new CloseableIterator<>() {
                    private RowData next;

                    @Override
                    public boolean hasNext() {
                        while (next == null && rows.hasNext()) {
                            RowData row = rows.next();
                            for (DeletedKeys k : matchers) {
                                if (k.deletes(row)) {
                                    next = row;
                                    break;
                                }
                            }
                        }
                        return next != null;
                    }

                    @Override
                    public RowData next() {
                        if (!hasNext()) {
                            throw new java.util.NoSuchElementException();
                        }
                        RowData row = next;
                        next = null;
                        return row;
                    }

                    @Override
                    public void close() throws IOException {
                        rows.close();
                    }
                },
                RowKind.DELETE);
    }

    /**
     * The keys the delete files delete, by equality fields. A snapshot's deletes reach many older
     * files, each a split of its own read one after the other: the keys of the last set of delete
     * files are kept, so they are read once per reader, not once per file they reach.
     */
    private Map<Set<Integer>, DeletedKeys> deletedKeys(List<DeleteFile> deletes) {
        Set<String> paths = new HashSet<>();
        deletes.forEach(d -> paths.add(d.path().toString()));
        if (paths.equals(lastKeyFiles)) {
            return lastKeys;
        }
        Map<Set<Integer>, DeletedKeys> byFields = new LinkedHashMap<>();
        for (DeleteFile d : deletes) {
            DeletedKeys keysOf =
                    byFields.computeIfAbsent(new HashSet<>(d.equalityFieldIds()), f -> new DeletedKeys(schema, f));
            try (CloseableIterator<RowData> keyRows =
                    readFile(d.format(), d.path().toString(), keysOf.keySchema())) {
                while (keyRows.hasNext()) {
                    keysOf.add(keyRows.next());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Reading " + d.path() + " of " + table.name(), e);
            }
        }
        lastKeyFiles = paths;
        lastKeys = byFields;
        return byFields;
    }

    /** Live before the snapshot's deletes, minus live after them: what they removed from the file. */
    private CloseableIterator<RowData> removedByTwoReads(FileScanTask before, FileScanTask after) {
        Map<IdentifierKeys.Key, RowData> was = new LinkedHashMap<>();
        try (CloseableIterator<RowData> rows = read(before)) {
            while (rows.hasNext()) {
                RowData row = copier.copy(rows.next());
                was.put(keys.of(row), row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Reading " + before.file().path() + " of " + table.name(), e);
        }
        try (CloseableIterator<RowData> rows = read(after)) {
            while (rows.hasNext()) {
                was.remove(keys.of(rows.next()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Reading " + after.file().path() + " of " + table.name(), e);
        }
        return tagged(CloseableIterator.withClose(was.values().iterator()), RowKind.DELETE);
    }

    /**
     * The keys of an equality delete file on the identifier fields, as rows of the table with the key
     * columns set and the others null, tagged {@code -U}: the pairing's state holds their values.
     */
    private CloseableIterator<RowData> deletedKeys(String formatAndPath) {
        GenericRowData reused = new GenericRowData(RowKind.UPDATE_BEFORE, fields.length);
        return CloseableIterator.transform(readDeleteFile(formatAndPath, keySchema), key -> {
            for (int i = 0; i < keyPositions.length; i++) {
                reused.setField(keyPositions[i], keyFields[i].getFieldOrNull(key));
            }
            return reused;
        });
    }

    /** The rows of a delete split's file (its task: the format and the path, on two lines). */
    private CloseableIterator<RowData> readDeleteFile(String formatAndPath, Schema projection) {
        int newline = formatAndPath.indexOf('\n');
        return readFile(
                FileFormat.fromString(formatAndPath.substring(0, newline)),
                formatAndPath.substring(newline + 1),
                projection);
    }

    /** A delete file's rows, in the given projection. */
    private CloseableIterator<RowData> readFile(FileFormat format, String path, Schema projection) {
        InputFile in = table.io().newInputFile(path);
        CloseableIterable<RowData> rows;
        switch (format) {
            case PARQUET:
                rows = Parquet.read(in)
                        .project(projection)
                        .createReaderFunc(fileSchema -> FlinkParquetReaders.buildReader(projection, fileSchema))
                        .build();
                break;
            case AVRO:
                rows = Avro.read(in)
                        .project(projection)
                        .createReaderFunc(fileSchema -> new FlinkAvroReader(projection, fileSchema))
                        .build();
                break;
            default:
                throw new IllegalStateException("Delete files in " + format + " are read by their data files");
        }
        CloseableIterator<RowData> it = rows.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public RowData next() {
                return it.next();
            }

            @Override
            public void close() throws IOException {
                try {
                    it.close();
                } finally {
                    rows.close();
                }
            }
        };
    }

    private CloseableIterator<RowData> read(FileScanTask task) {
        InputFilesDecryptor decryptor =
                new InputFilesDecryptor(new BaseCombinedScanTask(task), table.io(), table.encryption());
        return reader.open(task, decryptor);
    }

    private CloseableIterator<RowData> tagged(CloseableIterator<RowData> rows, RowKind kind) {
        // A row read with deletes can be a projection, whose kind cannot be set: its fields go into
        // one reused row (the reader reuses its rows too).
        GenericRowData reused = new GenericRowData(kind, fields.length);
        return CloseableIterator.transform(rows, row -> {
            if (row instanceof GenericRowData) {
                row.setRowKind(kind);
                return row;
            }
            for (int i = 0; i < fields.length; i++) {
                reused.setField(i, fields[i].getFieldOrNull(row));
            }
            return reused;
        });
    }
}
