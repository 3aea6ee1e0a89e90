package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the changes of any number of tables: per table a delta writer of Iceberg's Flink module
 * ({@link RowDataTaskWriterFactory}), opened with the table's first row after a checkpoint, behind a
 * {@link CoalescingDeltaWriter} that writes only the net change of keys that change again soon. Before
 * each checkpoint barrier it completes every open writer and sends what each flushed as a {@link
 * TableCommittable} tagged with that checkpoint, for {@link TablesCommitter}. Upsert tables delete a
 * key before each insert; changelog tables apply {@code -U}/{@code -D} as deletes, and upsert the rows
 * of a snapshot when the table held rows (they may repeat rows it has).
 *
 * <p>Memory is bounded: beyond {@code write-max-open-writers} open writers, or beyond {@code
 * write-max-buffered-bytes} estimated in them ({@link RowSize}), the least recently used writers
 * complete early. Their files wait for the checkpoint and go out before the table's later files, as
 * earlier parts of it ({@link TableCommittable#part()}).
 *
 * <p>Changes of one key must reach one subtask in order: the stream is partitioned by table and primary key
 * upstream.
 *
 * <p>A table's schema may change while the job runs. A {@link ChangeEvent#isSchemaChange() schema
 * change event}, which every subtask gets ahead of the new version's rows, completes the table's open
 * writer (its files go out as an earlier part of the checkpoint, so they commit in a snapshot of their
 * own before the rows of the new shape), brings the Iceberg table to the new schema ({@link
 * IcebergSchemaUpdates}: once, whichever subtask comes first) and opens the next writer with it. Rows
 * of any version the subtask knows are matched to the table's current columns by name.
 */
@Internal
public final class TablesWriter extends AbstractStreamOperator<TableCommittable>
        implements OneInputStreamOperator<ChangeEvent, TableCommittable>, BoundedOneInput {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TablesWriter.class);
    private static final RowData NO_FIELDS = new GenericRowData(0);

    /** How one table is written. */
    public static final class TableWrite implements Serializable {
        private static final long serialVersionUID = 1L;

        final String table;
        final IcebergRowConverter converter;
        final RowType type;
        final List<String> primaryKey;
        final boolean upsert;
        final boolean upsertSnapshotRows;
        final int schemaVersion;

        /**
         * @param table the Iceberg table, as {@code TableIdentifier.toString()}
         * @param type the table's Flink row type, which {@code converter} produces
         * @param upsertSnapshotRows in changelog mode, write snapshot rows as a delete of the key and an insert
         */
        public TableWrite(
                String table,
                IcebergRowConverter converter,
                RowType type,
                List<String> primaryKey,
                boolean upsert,
                boolean upsertSnapshotRows) {
            this(table, converter, type, primaryKey, upsert, upsertSnapshotRows, 1);
        }

        /**
         * @param schemaVersion the version of the table's rows the job was built with, which {@code
         *     converter} takes
         */
        public TableWrite(
                String table,
                IcebergRowConverter converter,
                RowType type,
                List<String> primaryKey,
                boolean upsert,
                boolean upsertSnapshotRows,
                int schemaVersion) {
            this.schemaVersion = schemaVersion;
            this.table = table;
            this.converter = converter;
            this.type = type;
            this.primaryKey = List.copyOf(primaryKey);
            this.upsert = upsert;
            this.upsertSnapshotRows = upsertSnapshotRows;
        }

        /** The Iceberg table, as {@code TableIdentifier.toString()}. */
        public String table() {
            return table;
        }
    }

    private final CatalogLoader catalogLoader;
    private final HashMap<TableId, TableWrite> tables;
    private final int maxOpenWriters;
    private final long maxBufferedBytes;

    private transient Catalog catalog;
    /** Per table, what opening and sizing its writers takes, built once in {@link #open()}. */
    private transient Map<TableId, Runtime> runtimes;
    /** The writers open since the last checkpoint, least recently used first. */
    private transient LinkedHashMap<TableId, OpenWriter> open;
    /** Per table, the files of its writers closed early since the last checkpoint, in the order they closed. */
    private transient Map<TableId, List<WriteResult>> closedEarly;

    private transient long buffered;
    private transient boolean warnedOfEarlyCloses;
    private transient Counter writersClosedEarly;
    private transient Counter changesCoalesced;
    private transient Counter schemaChanges;
    private transient Counter schemaChangesSkipped;
    private transient volatile long lastSchemaChangePauseMs;

    /**
     * @param maxOpenWriters beyond it, the least recently used writer closes its files before the checkpoint
     * @param maxBufferedBytes beyond this estimate of the rows the open writers hold, the same
     */
    public TablesWriter(
            CatalogLoader catalogLoader, Map<TableId, TableWrite> tables, int maxOpenWriters, long maxBufferedBytes) {
        this.catalogLoader = catalogLoader;
        this.tables = new HashMap<>(tables);
        this.maxOpenWriters = maxOpenWriters;
        this.maxBufferedBytes = maxBufferedBytes;
    }

    /** The format the table writes its data files in ({@code write.format.default}). */
    static FileFormat fileFormat(Map<String, String> props) {
        return FileFormat.fromString(
                props.getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    }

    /** The page size of the delete files, unless the table sets one. */
    static final int DELETE_PAGE_SIZE = 64 * 1024;

    /**
     * What an open delta writer holds before its first row: per file (data, equality deletes) a compression
     * buffer of the page size for Parquet, a block buffer for Avro and ORC, and some per column.
     */
    public static long openCost(FileFormat format, Map<String, String> props, int columns) {
        long perColumn = 4L * 1024 * columns;
        if (format != FileFormat.PARQUET) {
            return 2 * (64L * 1024 + perColumn);
        }
        long dataPage = PropertyUtil.propertyAsLong(
                props, TableProperties.PARQUET_PAGE_SIZE_BYTES, TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT);
        long deletePage =
                PropertyUtil.propertyAsLong(props, TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, DELETE_PAGE_SIZE);
        return dataPage + deletePage + 2 * perColumn;
    }

    /**
     * Keys whose latest change a writer holds back ({@link CoalescingDeltaWriter}): a few MB of rows per table,
     * enough for the keys that change again within seconds. The rows count against {@code
     * write-max-buffered-bytes} as they arrive.
     */
    static final int MAX_HELD_KEYS = 16_384;

    /**
     * A table's write, its writer factory for the table's current schema, keys, row size estimate, what an
     * open writer of it holds first, and per version of its rows the converter to the current schema.
     */
    private static final class Runtime {
        final TableWrite write;
        final Table table;
        final Schema schema;
        final RowType target;
        final RowDataTaskWriterFactory factory;
        final RowKeys keys;
        final RowSize rowSize;
        final long openCost;
        /** The source position of the table's last schema change; rows before it had another shape. */
        final long lastChange;
        /** The defaults of columns added with one, by name: what rows of the shape before them get. */
        final Map<String, Object> defaults;

        /**
         * By the rows' type, not their version: a version number is the source's count, and the type is what
         * the converter needs. Rows of versions born at runtime say their type; the others have the declared one.
         */
        final Map<RowType, IcebergRowConverter> converters = new HashMap<>();
        /** Rows replayed from before a change the table has: by type and the Iceberg schema of their time. */
        final Map<RowType, Map<Integer, IcebergRowConverter>> earlier = new HashMap<>();

        private RowType lastType;
        private IcebergRowConverter lastConverter;

        Runtime(
                TableWrite write,
                Table table,
                RowType target,
                RowDataTaskWriterFactory factory,
                RowKeys keys,
                RowSize rowSize,
                long openCost) {
            this.write = write;
            this.table = table;
            this.schema = table.schema();
            this.target = target;
            this.factory = factory;
            this.keys = keys;
            this.rowSize = rowSize;
            this.openCost = openCost;
            this.lastChange = IcebergSchemaUpdates.lastPosition(table);
            this.defaults = IcebergDefaults.values(table, target);
        }

        /** Rows of the type converted to the table's current columns by name. */
        IcebergRowConverter converterOf(RowType type) {
            return type.equals(write.converter.source()) && target.equals(write.type)
                    ? write.converter
                    : IcebergRowConverter.byName(type, target, defaults);
        }

        IcebergRowConverter converter(ChangeEvent event) {
            RowType type = event.rowType().orElse(null);
            if (type == null) {
                if (event.schemaVersion() != write.schemaVersion) {
                    throw new IllegalStateException("The Iceberg sink got a row of " + event.tableId()
                            + " at schema version " + event.schemaVersion() + ", which it knows no type of: the"
                            + " row does not say its type and the sink was built for version "
                            + write.schemaVersion + ".");
                }
                type = write.converter.source();
            }
            SourcePosition position = event.position();
            if (position.kind() == SourcePosition.Kind.BINLOG && position.order() < lastChange) {
                // Replayed after a restore: the table has changes from after this row, which has the shape of
                // its time (a column renamed since has its old name). Matched by field id to that time's schema.
                Schema then = IcebergSchemaUpdates.schemaAt(table, position.order());
                if (then.schemaId() != schema.schemaId()) {
                    RowType rowType = type;
                    return earlier.computeIfAbsent(type, t -> new HashMap<>())
                            .computeIfAbsent(
                                    then.schemaId(),
                                    id -> IcebergRowConverter.byFieldId(rowType, then, schema, defaults));
                }
            }
            // Rows of one type come in runs: the last one first, by identity (RowType hashes deeply).
            if (type != lastType) {
                IcebergRowConverter c = converters.get(type);
                if (c == null) {
                    c = converterOf(type);
                    converters.put(type, c);
                }
                lastType = type;
                lastConverter = c;
            }
            return lastConverter;
        }
    }

    /** An open writer and the bytes estimated in it. */
    private static final class OpenWriter {
        final CoalescingDeltaWriter writer;
        long bytes;

        OpenWriter(CoalescingDeltaWriter writer) {
            this.writer = writer;
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        catalog = catalogLoader.loadCatalog();
        runtimes = new HashMap<>();
        // Access order: a write moves its table's writer to the end, the first is the least recently used.
        open = new LinkedHashMap<>(16, 0.75f, true);
        closedEarly = new HashMap<>();
        writersClosedEarly = getMetricGroup().counter("writersClosedEarly");
        changesCoalesced = getMetricGroup().counter("changesCoalesced");
        schemaChanges = getMetricGroup().counter("schemaChanges");
        schemaChangesSkipped = getMetricGroup().counter("schemaChangesSkipped");
        getMetricGroup().gauge("lastSchemaChangePauseMs", (Gauge<Long>) () -> lastSchemaChangePauseMs);
        getMetricGroup().gauge("openWriters", (Gauge<Integer>) () -> open.size());
        getMetricGroup().gauge("bufferedBytesEstimate", (Gauge<Long>) () -> buffered);
        for (Map.Entry<TableId, TableWrite> e : tables.entrySet()) {
            TableWrite w = e.getValue();
            runtimes.put(e.getKey(), runtime(w, catalog.loadTable(TableIdentifier.parse(w.table))));
        }
    }

    /**
     * What writing the table takes, for its current schema: after a restore that schema may already be the
     * one of a change made while the job ran before, and the rows are matched to it by name.
     */
    private Runtime runtime(TableWrite w, Table table) {
        RowType target = FlinkSchemaUtil.convert(table.schema());
        List<Integer> keyIds = new ArrayList<>();
        for (String column : w.primaryKey) {
            keyIds.add(table.schema().findField(column).fieldId());
        }
        Map<String, String> props = new HashMap<>(table.properties());
        // Each open Parquet file holds a compression buffer of its page size (1 MB by default) from the
        // start, and a delta writer opens its equality-delete file with its data file. Delete files hold
        // keys: small pages cost them nothing and keep hundreds of open writers from filling the heap.
        props.putIfAbsent(TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, String.valueOf(DELETE_PAGE_SIZE));
        long targetSize = PropertyUtil.propertyAsLong(
                props,
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
        FileFormat format = fileFormat(props);
        RowDataTaskWriterFactory factory =
                new RowDataTaskWriterFactory(table, target, targetSize, format, props, keyIds, w.upsert);
        factory.initialize(
                getRuntimeContext().getIndexOfThisSubtask(), getRuntimeContext().getAttemptNumber());
        return new Runtime(
                w,
                table,
                target,
                factory,
                w.primaryKey.isEmpty() ? null : new RowKeys(target, w.primaryKey),
                new RowSize(target),
                openCost(format, props, table.schema().columns().size()));
    }

    @Override
    public void processElement(StreamRecord<ChangeEvent> element) throws Exception {
        ChangeEvent event = element.getValue();
        Runtime t = runtimes.get(event.tableId());
        if (t == null) {
            throw new IllegalStateException(
                    "The Iceberg sink got an event of table " + event.tableId() + ", which it was not built for.");
        }
        if (event.isSchemaChange()) {
            schemaChange(event, t);
            return;
        }
        OpenWriter open = this.open.get(event.tableId());
        if (open == null) {
            open = new OpenWriter(new CoalescingDeltaWriter(t.factory.create(), t.keys, t.write.upsert, MAX_HELD_KEYS));
            open.bytes = t.openCost;
            buffered += open.bytes;
            this.open.put(event.tableId(), open);
        }
        RowData row = t.converter(event).convert(event.row());
        long bytes = t.rowSize.of(row);
        boolean snapshotRow = event.position().kind() == SourcePosition.Kind.SNAPSHOT;
        if (t.write.upsertSnapshotRows && snapshotRow && event.kind() == RowKind.INSERT) {
            // The delete is the row's values under another kind, not a copy: joined with a row of no fields.
            open.writer.write(new JoinedRowData(RowKind.DELETE, row, NO_FIELDS), true);
        }
        open.writer.write(row, snapshotRow);
        open.bytes += bytes;
        buffered += bytes;
        if (this.open.size() > maxOpenWriters || buffered > maxBufferedBytes) {
            closeLeastRecentlyUsed();
        }
    }

    /**
     * Completes the table's open writer, as an earlier part of the checkpoint, then brings the table to
     * the new schema and writes its next rows with it.
     */
    private void schemaChange(ChangeEvent event, Runtime t) throws IOException {
        long start = System.nanoTime();
        TableId id = event.tableId();
        OpenWriter writer = open.remove(id);
        WriteResult result = writer == null ? WriteResult.builder().build() : complete(writer);
        if (writer != null) {
            buffered -= writer.bytes;
        }
        // Sent even without files: the committer then looks at the table after the checkpoint, and gives rows
        // written before the change the default of a column it added (IcebergDefaults), also in a quiet table.
        closedEarly.computeIfAbsent(id, k -> new ArrayList<>()).add(result);
        Table table = catalog.loadTable(TableIdentifier.parse(t.write.table));
        SourcePosition position = event.position();
        List<String> kept = IcebergSchemaUpdates.apply(
                table,
                event.schemaChange(),
                position.kind() == SourcePosition.Kind.BINLOG ? position.order() : Long.MIN_VALUE);
        schemaChangesSkipped.inc(kept.size());
        table.refresh();
        runtimes.put(id, runtime(t.write, table));
        schemaChanges.inc();
        // The table's rows wait this long on this subtask: open files completed, schema applied or found, reopened.
        lastSchemaChangePauseMs = (System.nanoTime() - start) / 1_000_000;
        LOG.info(
                "Iceberg table {}: the schema change of {} v{} -> v{} paused the table's writes on this subtask for"
                        + " {} ms.",
                t.write.table,
                id,
                event.schemaChange().previousVersion(),
                event.schemaChange().newVersion(),
                lastSchemaChangePauseMs);
    }

    /**
     * Closes writers, least recently used first, until both bounds hold. Their files wait here for the
     * checkpoint: its id is not known before its barrier.
     */
    private void closeLeastRecentlyUsed() throws IOException {
        Iterator<Map.Entry<TableId, OpenWriter>> it = open.entrySet().iterator();
        while (it.hasNext() && (open.size() > maxOpenWriters || buffered > maxBufferedBytes)) {
            Map.Entry<TableId, OpenWriter> e = it.next();
            WriteResult result = complete(e.getValue());
            buffered -= e.getValue().bytes;
            it.remove();
            writersClosedEarly.inc();
            if (result.dataFiles().length > 0 || result.deleteFiles().length > 0) {
                closedEarly.computeIfAbsent(e.getKey(), id -> new ArrayList<>()).add(result);
            }
            if (!warnedOfEarlyCloses) {
                warnedOfEarlyCloses = true;
                LOG.warn(
                        "Iceberg writer {}: closed the files of table {} before the checkpoint to stay within"
                                + " write-max-open-writers = {} and write-max-buffered-bytes = {} (open: {}, ~{}"
                                + " bytes). Each early close is one more file and one more snapshot; raise the"
                                + " bounds if the heap allows, or checkpoint more often. (Logged once; see the"
                                + " metric writersClosedEarly.)",
                        getRuntimeContext().getIndexOfThisSubtask(),
                        e.getKey(),
                        maxOpenWriters,
                        maxBufferedBytes,
                        open.size(),
                        buffered);
            }
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        flush(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        // A bounded input's last files: committed when the committer's input ends.
        flush(Long.MAX_VALUE);
    }

    /** Sends, per table, the files of its writers closed early and then of its open one, as parts in that order. */
    private void flush(long checkpointId) throws IOException {
        long start = System.nanoTime();
        int tables = open.size();
        Map<TableId, Integer> parts = new HashMap<>();
        for (Map.Entry<TableId, List<WriteResult>> e : closedEarly.entrySet()) {
            for (WriteResult result : e.getValue()) {
                emit(e.getKey(), checkpointId, parts.merge(e.getKey(), 1, Integer::sum) - 1, result);
            }
        }
        for (Map.Entry<TableId, OpenWriter> e : open.entrySet()) {
            WriteResult result = complete(e.getValue());
            if (result.dataFiles().length > 0 || result.deleteFiles().length > 0) {
                emit(e.getKey(), checkpointId, parts.merge(e.getKey(), 1, Integer::sum) - 1, result);
            }
        }
        closedEarly.clear();
        open.clear();
        buffered = 0;
        LOG.debug(
                "Iceberg writer {}: closed the files of {} table(s) for checkpoint {} in {} ms.",
                getRuntimeContext().getIndexOfThisSubtask(),
                tables,
                checkpointId,
                (System.nanoTime() - start) / 1_000_000);
    }

    private WriteResult complete(OpenWriter w) throws IOException {
        WriteResult result = w.writer.complete();
        changesCoalesced.inc(w.writer.coalesced());
        return result;
    }

    private void emit(TableId id, long checkpointId, int part, WriteResult result) {
        output.collect(new StreamRecord<>(TableCommittable.of(tables.get(id).table, checkpointId, part, result)));
    }

    @Override
    public void close() throws Exception {
        try {
            if (open != null) {
                for (OpenWriter w : open.values()) {
                    w.writer.close();
                }
            }
            if (catalog instanceof Closeable) {
                ((Closeable) catalog).close();
            }
        } finally {
            super.close();
        }
    }
}
