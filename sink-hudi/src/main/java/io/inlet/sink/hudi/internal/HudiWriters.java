package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.sink.hudi.HudiSinkOptions;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.io.InputFormat;
import org.apache.flink.api.common.io.RichInputFormat;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputSplit;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.RowKind;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.table.HoodieTableFactory;
import org.apache.hudi.table.HoodieTableSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Adds Hudi's Flink writer for one table to a job, from a schema built in code. Hudi's own {@code
 * HoodiePipeline} builds a {@code CREATE TABLE} statement from the names and parses it, which fails
 * with a bare SQL parser error for a table named {@code line-items} or a key column named {@code
 * order}; here nothing is parsed: the table goes to Hudi's table factory as a resolved catalog table,
 * the way the SQL planner hands it over, under the identifier {@code HoodiePipeline} uses (so the
 * writer's operator uids, which Hudi derives from it, stay the same). Tables are read the same way,
 * through Hudi's table source.
 */
@Internal
public final class HudiWriters {

    private HudiWriters() {}

    /**
     * Adds the writer of one table, fed by the rows (of the spec's type). A MERGE_ON_READ table's
     * writer has its coordinator wrapped to go on after aborted checkpoints ({@link
     * AbortedCheckpointAcks}).
     */
    @SuppressWarnings("deprecation") // consumeDataStream(DataStream): what HoodiePipeline calls in Hudi 0.14
    public static void write(DataStream<RowData> rows, HudiTableSpec table) {
        DynamicTableSink sink = new HoodieTableFactory().createDynamicTableSink(context(table));
        // The context the SQL planner hands a sink of an unbounded input.
        DataStreamSinkProvider provider =
                (DataStreamSinkProvider) sink.getSinkRuntimeProvider(new SinkRuntimeProviderContext(false));
        DataStreamSink<?> written = provider.consumeDataStream(rows);
        // Only a MERGE_ON_READ writer can write on into an instant it flushed for (it appends log
        // blocks); a COPY_ON_WRITE writer would merge from the last committed file and lose the flushed one.
        if (HoodieTableType.MERGE_ON_READ.name().equals(table.options.get(HudiSinkOptions.TABLE_TYPE.key()))) {
            AbortedCheckpointAcks.install(written);
        }
    }

    /** Hudi's batch reader of one table's latest rows (base and log files merged), as its SQL connector reads it. */
    @SuppressWarnings("unchecked")
    public static InputFormat<RowData, InputSplit> reader(HudiTableSpec table) {
        HoodieTableSource source =
                (HoodieTableSource) new HoodieTableFactory().createDynamicTableSource(context(table));
        return (InputFormat<RowData, InputSplit>) source.getInputFormat();
    }

    /** What {@link #scan} does with each row. */
    @FunctionalInterface
    public interface RowVisitor {
        /**
         * @param row valid during the call only (a view of column vectors the reader reuses): copy what you keep
         */
        void visit(RowData row) throws Exception;
    }

    /**
     * Reads every row of the table Hudi's reader returns now (base and log files merged; deletes and
     * before images skipped), in the task's runtime context. Nothing when the table has no committed file.
     */
    public static void scan(HudiTableSpec table, RuntimeContext context, RowVisitor visitor) throws Exception {
        InputFormat<RowData, InputSplit> format;
        try {
            format = reader(table);
        } catch (RuntimeException e) {
            if (noFiles(e)) {
                return; // nothing committed yet
            }
            throw e;
        }
        if (format instanceof RichInputFormat) {
            ((RichInputFormat<?, ?>) format).setRuntimeContext(context);
            ((RichInputFormat<?, ?>) format).openInputFormat();
        }
        try {
            format.configure(new org.apache.flink.configuration.Configuration());
            InputSplit[] splits;
            try {
                splits = format.createInputSplits(1);
            } catch (RuntimeException e) {
                if (noFiles(e)) {
                    return;
                }
                throw e;
            }
            for (InputSplit split : splits) {
                format.open(split);
                try {
                    while (!format.reachedEnd()) {
                        RowData row = format.nextRecord(null);
                        if (row != null
                                && row.getRowKind() != RowKind.DELETE
                                && row.getRowKind() != RowKind.UPDATE_BEFORE) {
                            visitor.visit(row);
                        }
                    }
                } finally {
                    format.close();
                }
            }
        } finally {
            if (format instanceof RichInputFormat) {
                ((RichInputFormat<?, ?>) format).closeInputFormat();
            }
        }
    }

    /** Whether Hudi's reader failed because the table has no committed file yet (nothing to read). */
    public static boolean noFiles(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (String.valueOf(c.getMessage()).contains("No files found for reading")) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    /** The table as the SQL planner would hand it to Hudi's table factory. */
    private static FactoryUtil.DefaultDynamicTableContext context(HudiTableSpec t) {
        List<Column> columns = new ArrayList<>();
        for (RowType.RowField f : t.type.getFields()) {
            LogicalType type = t.primaryKey.contains(f.getName()) ? f.getType().copy(false) : f.getType();
            columns.add(Column.physical(f.getName(), TypeConversions.fromLogicalToDataType(type))
                    .withComment(t.comments.get(f.getName())));
        }
        ResolvedSchema schema = new ResolvedSchema(
                columns,
                Collections.emptyList(),
                UniqueConstraint.primaryKey("pk_" + t.name.replaceAll("[^A-Za-z0-9_]", "_"), t.primaryKey));
        CatalogTable table = CatalogTable.of(
                Schema.newBuilder().fromResolvedSchema(schema).build(), null, t.partitionKeys, t.options);
        ResolvedCatalogTable resolved = new ResolvedCatalogTable(table, schema);
        ObjectIdentifier id = ObjectIdentifier.of("default_catalog", "default_database", t.name);
        return new FactoryUtil.DefaultDynamicTableContext(
                id,
                resolved,
                Collections.emptyMap(),
                new Configuration(),
                Thread.currentThread().getContextClassLoader(),
                false);
    }
}
