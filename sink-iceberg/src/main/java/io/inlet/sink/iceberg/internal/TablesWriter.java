package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.table.TableId;

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
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.PropertyUtil;

import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes the changes of any number of tables: per table a delta writer of Iceberg's Flink module
 * ({@link RowDataTaskWriterFactory}), opened with the table's first row after a checkpoint. Before
 * each checkpoint barrier it completes every open writer and sends what each flushed as a {@link
 * TableCommittable} tagged with that checkpoint, for {@link TablesCommitter}. Upsert tables delete a
 * key before each insert; changelog tables apply {@code -U}/{@code -D} as deletes, and upsert the rows
 * of a snapshot when the table held rows (they may repeat rows it has).
 *
 * <p>Changes of one key must reach one subtask in order: the stream is keyed by table and primary key
 * upstream.
 */
@Internal
public final class TablesWriter extends AbstractStreamOperator<TableCommittable>
        implements OneInputStreamOperator<ChangeEvent, TableCommittable>, BoundedOneInput {

    private static final long serialVersionUID = 1L;
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

    private transient Catalog catalog;
    private transient Map<TableId, RowDataTaskWriterFactory> factories;
    /** The writers open since the last checkpoint, in the order they were opened. */
    private transient Map<TableId, TaskWriter<RowData>> open;

    public TablesWriter(CatalogLoader catalogLoader, Map<TableId, TableWrite> tables) {
        this.catalogLoader = catalogLoader;
        this.tables = new HashMap<>(tables);
    }

    @Override
    public void open() throws Exception {
        super.open();
        catalog = catalogLoader.loadCatalog();
        factories = new HashMap<>();
        open = new LinkedHashMap<>();
        int subtask = getRuntimeContext().getIndexOfThisSubtask();
        int attempt = getRuntimeContext().getAttemptNumber();
        for (Map.Entry<TableId, TableWrite> e : tables.entrySet()) {
            TableWrite w = e.getValue();
            Table table = catalog.loadTable(TableIdentifier.parse(w.table));
            List<Integer> keyIds = new ArrayList<>();
            for (String column : w.primaryKey) {
                keyIds.add(table.schema().findField(column).fieldId());
            }
            Map<String, String> props = table.properties();
            long targetSize = PropertyUtil.propertyAsLong(
                    props,
                    TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                    TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
            FileFormat format = FileFormat.fromString(
                    props.getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)
                            .toUpperCase(Locale.ROOT));
            RowDataTaskWriterFactory factory =
                    new RowDataTaskWriterFactory(table, w.type, targetSize, format, props, keyIds, w.upsert);
            factory.initialize(subtask, attempt);
            factories.put(e.getKey(), factory);
        }
    }

    @Override
    public void processElement(StreamRecord<ChangeEvent> element) throws Exception {
        ChangeEvent event = element.getValue();
        TableWrite w = tables.get(event.tableId());
        if (w == null) {
            throw new IllegalStateException(
                    "The Iceberg sink got an event of table " + event.tableId() + ", which it was not built for.");
        }
        TaskWriter<RowData> writer =
                open.computeIfAbsent(event.tableId(), id -> factories.get(id).create());
        RowData row = w.converter.convert(event.row());
        if (w.upsertSnapshotRows
                && event.position().kind() == SourcePosition.Kind.SNAPSHOT
                && event.kind() == RowKind.INSERT) {
            // The delete is the row's values under another kind, not a copy: joined with a row of no fields.
            writer.write(new JoinedRowData(RowKind.DELETE, row, NO_FIELDS));
        }
        writer.write(row);
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

    private void flush(long checkpointId) throws IOException {
        for (Map.Entry<TableId, TaskWriter<RowData>> e : open.entrySet()) {
            WriteResult result = e.getValue().complete();
            if (result.dataFiles().length > 0 || result.deleteFiles().length > 0) {
                output.collect(
                        new StreamRecord<>(TableCommittable.of(tables.get(e.getKey()).table, checkpointId, result)));
            }
        }
        open.clear();
    }

    @Override
    public void close() throws Exception {
        try {
            for (TaskWriter<RowData> w : open.values()) {
                w.close();
            }
            if (catalog instanceof Closeable) {
                ((Closeable) catalog).close();
            }
        } finally {
            super.close();
        }
    }
}
