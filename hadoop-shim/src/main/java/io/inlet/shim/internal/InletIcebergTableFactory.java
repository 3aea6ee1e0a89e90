package io.inlet.shim.internal;

import io.inlet.annotation.Internal;
import io.inlet.source.iceberg.IcebergChangelogSource;
import io.inlet.source.iceberg.IcebergChangelogTableSource;
import io.inlet.source.iceberg.IcebergSourceOptions;
import io.inlet.source.iceberg.IcebergSourceOptions.StreamingReadMode;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkDynamicTableFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code inlet-iceberg} catalog's table factory. A streaming read ({@code 'streaming' = 'true'},
 * as a table option or a hint) of a table with identifier fields is Inlet's changelog read, so that
 * updates and deletes reach the query; Iceberg's own streaming source would skip every snapshot that
 * is not an append. {@code 'streaming-read-mode' = 'append-only'} asks for Iceberg's source; batch
 * reads, writes and tables without identifier fields are Iceberg's as they were.
 */
@Internal
public final class InletIcebergTableFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {

    private static final Logger LOG = LoggerFactory.getLogger(InletIcebergTableFactory.class);

    private final FlinkDynamicTableFactory iceberg;
    private final CatalogLoader loader;
    private final Namespace baseNamespace;

    InletIcebergTableFactory(FlinkDynamicTableFactory iceberg, CatalogLoader loader, Namespace baseNamespace) {
        this.iceberg = iceberg;
        this.loader = loader;
        this.baseNamespace = baseNamespace;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        Configuration conf = Configuration.fromMap(options);
        if (!conf.get(IcebergSourceOptions.STREAMING)
                || conf.get(IcebergSourceOptions.STREAMING_READ_MODE) == StreamingReadMode.APPEND_ONLY) {
            return iceberg.createDynamicTableSource(context);
        }
        ObjectPath path = context.getObjectIdentifier().toObjectPath();
        if (context.getCatalogTable().getResolvedSchema().getPrimaryKey().isEmpty()) {
            LOG.info(
                    "Iceberg table {} has no identifier fields: its streaming read is Iceberg's, appends only.",
                    path.getFullName());
            return iceberg.createDynamicTableSource(context);
        }
        List<String> levels = new ArrayList<>(Arrays.asList(baseNamespace.levels()));
        levels.add(path.getDatabaseName());
        levels.add(path.getObjectName());
        IcebergChangelogSource source = IcebergChangelogSource.builder()
                .catalogLoader(loader)
                .table(String.join(".", levels))
                .options(options)
                .build();
        return new IcebergChangelogTableSource(source);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return iceberg.createDynamicTableSink(context);
    }

    @Override
    public String factoryIdentifier() {
        return iceberg.factoryIdentifier();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return iceberg.requiredOptions();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return iceberg.optionalOptions();
    }
}
