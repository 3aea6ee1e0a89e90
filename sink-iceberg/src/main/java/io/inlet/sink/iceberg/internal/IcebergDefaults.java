package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.annotation.VisibleForTesting;
import io.inlet.core.table.ColumnDefaults;

import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.encryption.InputFilesDecryptor;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.orc.OrcMetrics;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Gives the rows that existed before a column was added the value MySQL gives them: {@code ALTER
 * TABLE ... ADD COLUMN c ... DEFAULT 'x'} fills every existing row with {@code 'x'} without writing
 * a binlog row, so the lake learns it only from the change itself.
 *
 * <p>The schema update that adds the column records, in the same commit, the default under {@value
 * #DEFAULT_PREFIX}{@code <field id>} (kept: it also fills the column in rows of the shape before the
 * change that arrive later, e.g. replayed after a restore) and the field id in {@value #BACKFILL}.
 * The committer then, after its commits, rewrites every live row of a data file that lacks the column
 * (a file written before the change; Iceberg reads NULL there) as an upsert with the default, and takes
 * the field off {@value #BACKFILL} in the same commit. A data file committed later that still lacks it
 * (a writer subtask that met the change after its barrier) puts the field back on in its own commit,
 * so a restore at any point finds what is left to do in the table.
 *
 * <p>Whether a file has the column is read from its column metrics, or from the file itself when the
 * table collects none for the column. Rows of a file that has the column keep their value, NULL
 * included.
 */
@Internal
public final class IcebergDefaults {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergDefaults.class);

    /** Table property prefix: the default of the field whose id follows, as text ({@link ColumnDefaults}). */
    public static final String DEFAULT_PREFIX = "inlet.schema-change.default.";

    /** Table property: field ids, comma-separated, whose rows before the change still wait for their default. */
    public static final String BACKFILL = "inlet.schema-change.backfill";

    /** Snapshot summary key of a backfill commit: the field ids it filled. */
    public static final String FILLED = "inlet.schema-change.backfilled";

    /** Rows per commit of a backfill: the upsert writer keeps every key it wrote since its last commit. */
    static final int BATCH_ROWS = 200_000;

    private IcebergDefaults() {}

    /** The defaults the table records, by field id, of the fields it has. */
    public static Map<Integer, String> recorded(Table table) {
        Map<Integer, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : table.properties().entrySet()) {
            if (e.getKey().startsWith(DEFAULT_PREFIX)) {
                int id = Integer.parseInt(e.getKey().substring(DEFAULT_PREFIX.length()));
                if (table.schema().findField(id) != null) {
                    out.put(id, e.getValue());
                }
            }
        }
        return out;
    }

    /**
     * The defaults as values of the columns of {@code target} (the table's Flink row type), by column name:
     * what a row that lacks such a column gets.
     */
    public static Map<String, Object> values(Table table, RowType target) {
        Map<String, Object> out = new HashMap<>();
        recorded(table).forEach((id, text) -> {
            String name = table.schema().findField(id).name();
            int i = target.getFieldIndex(name);
            if (i >= 0) {
                out.put(name, ColumnDefaults.parse(text, target.getTypeAt(i)));
            }
        });
        return out;
    }

    /** The field ids waiting for a backfill. */
    public static Set<Integer> pending(Table table) {
        return parse(table.properties().get(BACKFILL));
    }

    private static Set<Integer> parse(String ids) {
        Set<Integer> out = new TreeSet<>();
        if (ids != null && !ids.isBlank()) {
            for (String id : ids.split(",")) {
                out.add(Integer.parseInt(id.trim()));
            }
        }
        return out;
    }

    static String format(Collection<Integer> ids) {
        return ids.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
    }

    /**
     * Of the recorded defaults, the fields some of the files lack: their rows need the default after
     * the files are committed.
     */
    public static Set<Integer> lackedBy(Table table, List<DataFile> files) {
        Set<Integer> out = new TreeSet<>();
        Map<Integer, String> recorded = recorded(table);
        if (recorded.isEmpty()) {
            return out;
        }
        for (DataFile file : files) {
            for (int id : recorded.keySet()) {
                if (!out.contains(id) && lacks(table, file, id)) {
                    out.add(id);
                }
            }
        }
        return out;
    }

    /** Whether the data file was written without the field. */
    @VisibleForTesting
    static boolean lacks(Table table, DataFile file, int fieldId) {
        Map<Integer, Long> counts = file.valueCounts();
        if (counts != null && counts.containsKey(fieldId)) {
            return false;
        }
        String name = table.schema().findField(fieldId).name();
        if (counts != null
                && !counts.isEmpty()
                && !(MetricsConfig.forTable(table).columnMode(name) instanceof MetricsModes.None)) {
            // The table counts the column's values: a file written with the column has its count.
            return true;
        }
        return !fileColumns(table, file).contains(fieldId);
    }

    /** The field ids the file itself has, from its footer or header. */
    private static Set<Integer> fileColumns(Table table, DataFile file) {
        InputFile in = table.io().newInputFile(file.path().toString());
        MetricsConfig counts =
                MetricsConfig.fromProperties(Map.of(TableProperties.DEFAULT_WRITE_METRICS_MODE, "counts"));
        switch (file.format()) {
            case PARQUET:
                return ParquetUtil.fileMetrics(in, counts).valueCounts().keySet();
            case ORC:
                return OrcMetrics.fromInputFile(in, counts).valueCounts().keySet();
            case AVRO:
                try (InputStream stream = in.newStream();
                        DataFileStream<Object> avro = new DataFileStream<>(stream, new GenericDatumReader<>())) {
                    return fieldIds(AvroSchemaUtil.toIceberg(avro.getSchema()));
                } catch (IOException e) {
                    throw new UncheckedIOException("Reading the schema of " + file.path() + " failed", e);
                }
            default:
                throw new IllegalStateException("Iceberg data file " + file.path() + " has the format " + file.format()
                        + ", whose columns Inlet cannot read");
        }
    }

    private static Set<Integer> fieldIds(Schema schema) {
        Set<Integer> out = new TreeSet<>();
        for (Types.NestedField f : schema.columns()) {
            out.add(f.fieldId());
        }
        return out;
    }

    /**
     * Fills the pending fields in the rows of the files that lack them, as upserts committed on top of
     * the table's current snapshot, and takes them off {@value #BACKFILL} in the last commit. Nothing
     * when none are pending.
     *
     * @return the rows it rewrote
     */
    public static long backfill(Table table) throws IOException {
        table.refresh();
        Set<Integer> pending = pending(table);
        if (pending.isEmpty()) {
            return 0;
        }
        Schema schema = table.schema();
        Map<Integer, String> recorded = recorded(table);
        Set<Integer> fields = new TreeSet<>(pending);
        fields.retainAll(recorded.keySet()); // a field dropped since has nothing to fill
        Snapshot base = table.currentSnapshot();
        // Readers of Iceberg's own committer marks (a job restoring, tools) see the checkpoint the table was at.
        Map<String, String> summary = new HashMap<>();
        if (base != null) {
            for (String key : List.of("flink.job-id", "flink.max-committed-checkpoint-id")) {
                if (base.summary().containsKey(key)) {
                    summary.put(key, base.summary().get(key));
                }
            }
        }
        if (fields.isEmpty() || base == null) {
            finish(table, pending, null, null, summary);
            return 0;
        }
        if (schema.identifierFieldIds().isEmpty()) {
            LOG.warn(
                    "Iceberg table {} has no identifier fields, so the rows before the change cannot be rewritten"
                            + " with the default of {}: they keep NULL there. Give the table its primary key"
                            + " (identifier fields) to have them filled.",
                    table.name(),
                    names(schema, fields));
            finish(table, pending, null, null, summary);
            return 0;
        }
        long start = System.nanoTime();
        RowType type = FlinkSchemaUtil.convert(schema);
        Map<String, Object> values = values(table, type);
        List<FileScanTask> tasks = new ArrayList<>();
        Map<FileScanTask, int[]> lacking = new HashMap<>();
        try (CloseableIterable<FileScanTask> planned =
                // With the column counts: whether a file has a column is read from them, not from its footer.
                table.newScan()
                        .useSnapshot(base.snapshotId())
                        .includeColumnStats()
                        .planFiles()) {
            for (FileScanTask task : planned) {
                List<Integer> positions = new ArrayList<>();
                for (int id : fields) {
                    if (lacks(table, task.file(), id)) {
                        positions.add(type.getFieldIndex(schema.findField(id).name()));
                    }
                }
                if (!positions.isEmpty()) {
                    tasks.add(task);
                    lacking.put(
                            task, positions.stream().mapToInt(Integer::intValue).toArray());
                }
            }
        }
        Object[] constants = new Object[type.getFieldCount()];
        for (int i = 0; i < constants.length; i++) {
            constants[i] = values.get(type.getFieldNames().get(i));
        }
        RowDataFileScanTaskReader reader = new RowDataFileScanTaskReader(
                schema, schema, table.properties().get(TableProperties.DEFAULT_NAME_MAPPING), true, List.of());
        RowData.FieldGetter[] getters = new RowData.FieldGetter[type.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
        }
        long rows = 0;
        long inBatch = 0;
        long validateFrom = base.snapshotId();
        TaskWriter<RowData> writer = writer(table, type);
        for (FileScanTask task : tasks) {
            int[] positions = lacking.get(task);
            InputFilesDecryptor decryptor =
                    new InputFilesDecryptor(new BaseCombinedScanTask(task), table.io(), table.encryption());
            try (CloseableIterator<RowData> it = reader.open(task, decryptor)) {
                while (it.hasNext()) {
                    RowData row = it.next();
                    GenericRowData out = new GenericRowData(getters.length);
                    for (int i = 0; i < getters.length; i++) {
                        out.setField(i, getters[i].getFieldOrNull(row));
                    }
                    for (int p : positions) {
                        out.setField(p, constants[p]);
                    }
                    writer.write(out);
                    rows++;
                    if (++inBatch >= BATCH_ROWS) {
                        validateFrom = commit(table, writer.complete(), validateFrom, fields, summary);
                        writer = writer(table, type);
                        inBatch = 0;
                    }
                }
            }
        }
        finish(table, pending, writer.complete(), validateFrom, summary);
        LOG.info(
                "Iceberg table {}: gave {} row(s) of {} data file(s) written before the change the default of {} in"
                        + " {} ms.",
                table.name(),
                rows,
                tasks.size(),
                names(schema, fields),
                (System.nanoTime() - start) / 1_000_000);
        return rows;
    }

    private static String names(Schema schema, Set<Integer> ids) {
        return ids.stream()
                .map(id -> schema.findField(id) == null
                        ? "#" + id
                        : "'" + schema.findField(id).name() + "'")
                .collect(Collectors.joining(", "));
    }

    private static TaskWriter<RowData> writer(Table table, RowType type) {
        Map<String, String> props = table.properties();
        FileFormat format = FileFormat.fromString(
                props.getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)
                        .toUpperCase(Locale.ROOT));
        long targetSize = PropertyUtil.propertyAsLong(
                props,
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
        RowDataTaskWriterFactory factory = new RowDataTaskWriterFactory(
                table,
                type,
                targetSize,
                format,
                props,
                new ArrayList<>(table.schema().identifierFieldIds()),
                true);
        // Its files are named by these and a random operation id: apart from every writer subtask's.
        factory.initialize(Integer.MAX_VALUE, 0);
        return factory.create();
    }

    /** Commits a batch on top of what it read; returns the snapshot the next batch validates from. */
    private static long commit(
            Table table, WriteResult result, long validateFrom, Set<Integer> fields, Map<String, String> summary) {
        RowDelta delta = table.newRowDelta();
        add(delta, result, validateFrom, fields, summary);
        delta.commit();
        return table.currentSnapshot().snapshotId();
    }

    /** The last batch, if any, and the fields taken off the pending ones, in one commit. */
    private static void finish(
            Table table, Set<Integer> done, WriteResult last, Long validateFrom, Map<String, String> summary) {
        Transaction txn = table.newTransaction();
        if (last != null && (last.dataFiles().length > 0 || last.deleteFiles().length > 0)) {
            RowDelta delta = txn.newRowDelta();
            add(delta, last, validateFrom, done, summary);
            delta.commit();
        }
        Set<Integer> left = pending(table);
        left.removeAll(done);
        if (left.isEmpty()) {
            txn.updateProperties().remove(BACKFILL).commit();
        } else {
            txn.updateProperties().set(BACKFILL, format(left)).commit();
        }
        txn.commitTransaction();
    }

    private static void add(
            RowDelta delta, WriteResult result, long validateFrom, Set<Integer> fields, Map<String, String> summary) {
        Arrays.stream(result.dataFiles()).forEach(delta::addRows);
        Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
        // What it read must still be what the table holds: a row changed or deleted meanwhile by another writer
        // fails the commit, and the committer tries again after its next checkpoint.
        delta.validateFromSnapshot(validateFrom);
        delta.validateNoConflictingDataFiles();
        delta.validateNoConflictingDeleteFiles();
        delta.set(FILLED, format(fields));
        summary.forEach(delta::set);
    }
}
