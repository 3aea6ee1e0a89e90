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
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.encryption.InputFilesDecryptor;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.FlinkAppenderFactory;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.orc.OrcMetrics;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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
 * change that arrive later, e.g. replayed after a restore) and a pending mark {@value
 * #PENDING_PREFIX}{@code <field id>}. The committer then, after its commits, rewrites the data files
 * that lack the column (files written before the change; Iceberg reads NULL there) with their live rows
 * and the default, a share of at most 200 000 rows per round, as a {@code RewriteFiles} that
 * keeps each file's data sequence number: every delete that applied to the old file applies to the new
 * one, no row is deleted or re-inserted, and tables without identifier fields are filled the same way.
 * The commit with the last share removes the marks. A data file committed later that still lacks the
 * column (a writer subtask that met the change after its barrier) sets the mark again in its own commit,
 * so a restore at any point finds what is left to do in the table. Each field has its own mark: a commit
 * retried over a concurrent one never writes back another field's.
 *
 * <p>Whether a file has the column is read from its value counts where the file has one for it, else
 * from the file itself (footer or header, remembered by path: data files never change). Rows of a file
 * that has the column keep their value, NULL included.
 */
@Internal
public final class IcebergDefaults {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergDefaults.class);

    /** Table property prefix: the default of the field whose id follows, as text ({@link ColumnDefaults}). */
    public static final String DEFAULT_PREFIX = "inlet.schema-change.default.";

    /** Table property prefix: the rows before the field whose id follows still wait for its default. */
    public static final String PENDING_PREFIX = "inlet.schema-change.backfill.";

    /** Snapshot summary key of a backfill commit: the field ids it filled. */
    public static final String FILLED = "inlet.schema-change.backfilled";

    /** Rows per round of a backfill: a round holds up the table's next commit while it runs. */
    @VisibleForTesting
    static volatile long batchRows = 200_000;

    /** The field ids a data file has, by path, for files whose counts do not say. */
    private static final Map<String, Set<Integer>> FILE_COLUMNS =
            Collections.synchronizedMap(new LinkedHashMap<String, Set<Integer>>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Set<Integer>> eldest) {
                    return size() > 100_000;
                }
            });

    /** Value counts of every column, to read which columns a file has from its footer. */
    private static final MetricsConfig COUNTS =
            MetricsConfig.fromProperties(Map.of(TableProperties.DEFAULT_WRITE_METRICS_MODE, "counts"));

    private IcebergDefaults() {}

    /** The defaults the table records, by field id, of the fields it has. */
    public static Map<Integer, String> recorded(Table table) {
        return byField(table, DEFAULT_PREFIX);
    }

    /** The field ids waiting for a backfill, of the fields the table has. */
    public static Set<Integer> pending(Table table) {
        return byField(table, PENDING_PREFIX).keySet();
    }

    private static Map<Integer, String> byField(Table table, String prefix) {
        Map<Integer, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : table.properties().entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                try {
                    int id = Integer.parseInt(e.getKey().substring(prefix.length()));
                    if (table.schema().findField(id) != null) {
                        out.put(id, e.getValue());
                    }
                } catch (NumberFormatException notOurs) {
                    // A key someone else set under the prefix: not a field's.
                }
            }
        }
        return out;
    }

    /** Sets the fields' pending marks in the update (the update commits them). */
    public static void markPending(UpdateProperties update, Collection<Integer> fieldIds) {
        for (int id : fieldIds) {
            update.set(PENDING_PREFIX + id, "pending");
        }
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

    /**
     * Whether the data file was written without the field. A value count says the file has it; without one
     * the file itself decides (the table may not count every column, or counted other ones then).
     */
    @VisibleForTesting
    static boolean lacks(Table table, DataFile file, int fieldId) {
        Map<Integer, Long> counts = file.valueCounts();
        if (counts != null && counts.containsKey(fieldId)) {
            return false;
        }
        return !FILE_COLUMNS
                .computeIfAbsent(file.path().toString(), p -> fileColumns(table, file))
                .contains(fieldId);
    }

    /** The field ids the file itself has, from its footer or header. */
    private static Set<Integer> fileColumns(Table table, DataFile file) {
        InputFile in = table.io().newInputFile(file.path().toString());
        MetricsConfig counts =
                MetricsConfig.fromProperties(Map.of(TableProperties.DEFAULT_WRITE_METRICS_MODE, "counts"));
        switch (file.format()) {
            case PARQUET:
                return Set.copyOf(
                        ParquetUtil.fileMetrics(in, COUNTS).valueCounts().keySet());
            case ORC:
                return Set.copyOf(
                        OrcMetrics.fromInputFile(in, COUNTS).valueCounts().keySet());
            case AVRO:
                try (InputStream stream = in.newStream();
                        DataFileStream<Object> avro = new DataFileStream<>(stream, new GenericDatumReader<>())) {
                    Set<Integer> out = new TreeSet<>();
                    for (Types.NestedField f :
                            AvroSchemaUtil.toIceberg(avro.getSchema()).columns()) {
                        out.add(f.fieldId());
                    }
                    return out;
                } catch (IOException e) {
                    throw new UncheckedIOException("Reading the schema of " + file.path() + " failed", e);
                }
            default:
                throw new IllegalStateException("Iceberg data file " + file.path() + " has the format " + file.format()
                        + ", whose columns Inlet cannot read");
        }
    }

    /** What a round of a backfill did. */
    public static final class Share {
        static final Share NONE = new Share(0, 0, false);

        /** Rows rewritten with their defaults. */
        public final long rows;
        /** Data files rewritten. */
        public final int files;
        /** Whether files that lack a pending field are left for the next round. */
        public final boolean more;

        Share(long rows, int files, boolean more) {
            this.rows = rows;
            this.files = files;
            this.more = more;
        }
    }

    /**
     * Rewrites the next share of the data files that lack a pending field, with their live rows and the
     * defaults, on top of the table's current snapshot; the share that leaves none removes the marks in
     * the same commit. Nothing when no field is pending.
     */
    public static Share backfill(Table table) throws IOException {
        table.refresh();
        Set<Integer> pending = pending(table);
        if (pending.isEmpty()) {
            return Share.NONE;
        }
        // One schema for the whole share: a change committed meanwhile is the next share's.
        Schema schema = table.schema();
        Map<Integer, String> recorded = recorded(table);
        Set<Integer> fields = new TreeSet<>(pending);
        fields.retainAll(recorded.keySet());
        Snapshot base = table.currentSnapshot();
        if (fields.isEmpty() || base == null) {
            commit(table, base, List.of(), pending);
            return Share.NONE;
        }
        long start = System.nanoTime();
        RowType type = FlinkSchemaUtil.convert(schema);
        Map<String, Object> values = values(table, type);
        List<FileScanTask> lacking = new ArrayList<>();
        Map<String, int[]> positions = new HashMap<>();
        try (CloseableIterable<FileScanTask> planned =
                // With the column counts: whether a file has a column is read from them where they say.
                table.newScan()
                        .useSnapshot(base.snapshotId())
                        .includeColumnStats()
                        .planFiles()) {
            for (FileScanTask task : planned) {
                List<Integer> at = new ArrayList<>();
                for (int id : fields) {
                    if (lacks(table, task.file(), id)) {
                        at.add(type.getFieldIndex(schema.findField(id).name()));
                    }
                }
                if (!at.isEmpty()) {
                    lacking.add(task);
                    positions.put(
                            task.file().path().toString(),
                            at.stream().mapToInt(Integer::intValue).toArray());
                }
            }
        }
        // The same order in every round: a share is whole files, up to the row budget (at least one file).
        lacking.sort(Comparator.comparing(t -> t.file().path().toString()));
        List<FileScanTask> share = new ArrayList<>();
        long budget = 0;
        for (FileScanTask t : lacking) {
            if (!share.isEmpty() && budget + t.file().recordCount() > batchRows) {
                break;
            }
            share.add(t);
            budget += t.file().recordCount();
        }
        boolean last = share.size() == lacking.size();
        List<Rewritten> rewritten = new ArrayList<>();
        long rows = 0;
        try {
            Rewriter rewriter = new Rewriter(table, schema, type, values);
            for (FileScanTask task : share) {
                Rewritten r =
                        rewriter.rewrite(task, positions.get(task.file().path().toString()));
                rewritten.add(r);
                rows += r.rows;
            }
            commit(table, base, rewritten, last ? pending : Set.of());
        } catch (IOException | RuntimeException e) {
            // Nothing of the share is in the table: its files go.
            for (Rewritten r : rewritten) {
                if (r.file != null) {
                    table.io().deleteFile(r.file.path().toString());
                }
            }
            throw e;
        }
        LOG.info(
                "Iceberg table {}: gave {} row(s) of {} data file(s) written before the change the default of {} in"
                        + " {} ms{}.",
                table.name(),
                rows,
                share.size(),
                names(schema, fields),
                (System.nanoTime() - start) / 1_000_000,
                last ? "" : "; " + (lacking.size() - share.size()) + " file(s) left for the next round(s)");
        return new Share(rows, share.size(), !last);
    }

    /** A data file and what replaces it: a file with its live rows and the defaults, or none when it has none. */
    private static final class Rewritten {
        final DataFile old;
        final DataFile file;
        final long rows;

        Rewritten(DataFile old, DataFile file, long rows) {
            this.old = old;
            this.file = file;
            this.rows = rows;
        }
    }

    /**
     * Rewrites files of one share: what reading and writing them takes is made once per share (per partition
     * spec for the writers), not once per file.
     */
    private static final class Rewriter {
        final Table table;
        final Schema schema;
        final RowType type;
        final Map<String, String> props;
        final FileFormat format;
        final RowDataFileScanTaskReader reader;
        final RowData.FieldGetter[] getters;
        /** Per column, the value a row gets where its file lacks the column. */
        final Object[] constants;
        /** Named by these and a random operation id: apart from every writer subtask's files. */
        final OutputFileFactory files;

        final Map<Integer, FlinkAppenderFactory> appenders = new HashMap<>();

        Rewriter(Table table, Schema schema, RowType type, Map<String, Object> values) {
            this.table = table;
            this.schema = schema;
            this.type = type;
            this.props = table.properties();
            this.format = TablesWriter.fileFormat(props);
            this.reader = new RowDataFileScanTaskReader(
                    schema, schema, props.get(TableProperties.DEFAULT_NAME_MAPPING), true, List.of());
            this.getters = new RowData.FieldGetter[type.getFieldCount()];
            this.constants = new Object[type.getFieldCount()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
                constants[i] = values.get(type.getFieldNames().get(i));
            }
            this.files = OutputFileFactory.builderFor(table, Integer.MAX_VALUE, 0)
                    .format(format)
                    .build();
        }

        /** The file's live rows, with the defaults at {@code positions}, in a new file of its spec and partition. */
        Rewritten rewrite(FileScanTask task, int[] positions) throws IOException {
            DataFile old = task.file();
            PartitionSpec spec = table.specs().get(old.specId());
            FlinkAppenderFactory factory = appenders.computeIfAbsent(
                    old.specId(), id -> new FlinkAppenderFactory(table, schema, type, props, spec, null, null, null));
            EncryptedOutputFile out = files.newOutputFile(spec, old.partition());
            DataWriter<RowData> writer = factory.newDataWriter(out, format, old.partition());
            long rows = 0;
            boolean done = false;
            try {
                InputFilesDecryptor decryptor =
                        new InputFilesDecryptor(new BaseCombinedScanTask(task), table.io(), table.encryption());
                try (CloseableIterator<RowData> it = reader.open(task, decryptor)) {
                    while (it.hasNext()) {
                        RowData row = it.next();
                        GenericRowData copy = new GenericRowData(getters.length);
                        for (int i = 0; i < getters.length; i++) {
                            copy.setField(i, getters[i].getFieldOrNull(row));
                        }
                        for (int p : positions) {
                            copy.setField(p, constants[p]);
                        }
                        writer.write(copy);
                        rows++;
                    }
                }
                writer.close();
                done = true;
            } finally {
                if (!done) {
                    try {
                        writer.close();
                    } catch (IOException | RuntimeException ignored) {
                        // the failure that got here is the one to report
                    }
                    table.io().deleteFile(out.encryptingOutputFile().location());
                }
            }
            if (rows == 0) {
                // Every row of the file is deleted: it goes without a replacement.
                table.io().deleteFile(out.encryptingOutputFile().location());
                return new Rewritten(old, null, 0);
            }
            return new Rewritten(old, writer.toDataFile(), rows);
        }
    }

    /**
     * Replaces the files, per data sequence number one rewrite that gives the new files the old files'
     * number, and removes the fields' marks, in one transaction on top of {@code base}.
     */
    private static void commit(Table table, Snapshot base, List<Rewritten> rewritten, Set<Integer> done) {
        Transaction txn = table.newTransaction();
        Map<Long, List<Rewritten>> bySequence = new TreeMap<>();
        for (Rewritten r : rewritten) {
            bySequence
                    .computeIfAbsent(r.old.dataSequenceNumber(), k -> new ArrayList<>())
                    .add(r);
        }
        Map<String, String> summary = new HashMap<>();
        if (base != null) {
            // Readers of Iceberg's own committer marks (a job restoring, tools) see the checkpoint the table was at.
            for (String key : List.of("flink.job-id", "flink.max-committed-checkpoint-id")) {
                if (base.summary().containsKey(key)) {
                    summary.put(key, base.summary().get(key));
                }
            }
        }
        for (Map.Entry<Long, List<Rewritten>> e : bySequence.entrySet()) {
            Set<DataFile> old = new HashSet<>();
            Set<DataFile> added = new HashSet<>();
            for (Rewritten r : e.getValue()) {
                old.add(r.old);
                if (r.file != null) {
                    added.add(r.file);
                }
            }
            RewriteFiles rewrite = txn.newRewrite().validateFromSnapshot(base.snapshotId());
            rewrite.rewriteFiles(old, added, e.getKey());
            rewrite.set(FILLED, done.isEmpty() ? "share" : format(done));
            summary.forEach(rewrite::set);
            rewrite.commit();
        }
        if (!done.isEmpty()) {
            UpdateProperties update = txn.updateProperties();
            done.forEach(id -> update.remove(PENDING_PREFIX + id));
            update.commit();
        }
        txn.commitTransaction();
    }

    static String format(Collection<Integer> ids) {
        return ids.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static String names(Schema schema, Set<Integer> ids) {
        return ids.stream()
                .map(id -> schema.findField(id) == null
                        ? "#" + id
                        : "'" + schema.findField(id).name() + "'")
                .collect(Collectors.joining(", "));
    }
}
