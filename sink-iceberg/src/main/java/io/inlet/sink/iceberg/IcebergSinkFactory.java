package io.inlet.sink.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.ChangeSinkFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

import java.util.Map;
import java.util.Set;

import static io.inlet.sink.iceberg.IcebergSinkOptions.*;

/** Creates an {@link IcebergSink} from options; identifier {@code iceberg}. */
@PublicEvolving
public final class IcebergSinkFactory implements ChangeSinkFactory {

    public static final String IDENTIFIER = "iceberg";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                CATALOG_NAME,
                CATALOG_TYPE,
                CATALOG_IMPL,
                WAREHOUSE,
                URI,
                DEFAULT_DATABASE,
                WRITE_MODE,
                WRITE_PARALLELISM,
                WRITE_MAX_OPEN_WRITERS,
                WRITE_MAX_BUFFERED_BYTES,
                DISTRIBUTION_MODE,
                RECONCILE_SNAPSHOTS);
    }

    @Override
    public Set<String> passThroughPrefixes() {
        return Set.of(
                CATALOG_PROPERTIES_PREFIX, HADOOP_PROPERTIES_PREFIX, TABLE_PROPERTIES_PREFIX, PARTITION_SPEC_PREFIX);
    }

    @Override
    public ChangeSink createSink(Context context) {
        ReadableConfig o = context.options();
        IcebergSink.Builder b = IcebergSink.builder()
                .catalogName(o.get(CATALOG_NAME))
                .catalogType(o.get(CATALOG_TYPE))
                .defaultDatabase(o.get(DEFAULT_DATABASE))
                .writeMode(WriteMode.of(o.get(WRITE_MODE)))
                .distributionMode(o.get(DISTRIBUTION_MODE))
                .reconcileSnapshots(o.get(RECONCILE_SNAPSHOTS))
                .maxOpenWriters(o.get(WRITE_MAX_OPEN_WRITERS))
                .maxBufferedBytes(o.get(WRITE_MAX_BUFFERED_BYTES).getBytes());
        o.getOptional(CATALOG_IMPL).ifPresent(b::catalogImpl);
        o.getOptional(WAREHOUSE).ifPresent(b::warehouse);
        o.getOptional(URI).ifPresent(b::uri);
        o.getOptional(WRITE_PARALLELISM).ifPresent(b::writeParallelism);
        for (Map.Entry<String, String> e : context.rawOptions().entrySet()) {
            String k = e.getKey();
            if (k.startsWith(CATALOG_PROPERTIES_PREFIX)) {
                b.catalogProperty(k.substring(CATALOG_PROPERTIES_PREFIX.length()), e.getValue());
            } else if (k.startsWith(HADOOP_PROPERTIES_PREFIX)) {
                b.hadoopProperty(k.substring(HADOOP_PROPERTIES_PREFIX.length()), e.getValue());
            } else if (k.startsWith(TABLE_PROPERTIES_PREFIX)) {
                b.tableProperty(k.substring(TABLE_PROPERTIES_PREFIX.length()), e.getValue());
            } else if (k.startsWith(PARTITION_SPEC_PREFIX)) {
                b.partitionSpec(k.substring(PARTITION_SPEC_PREFIX.length()), e.getValue());
            }
        }
        return b.build();
    }
}
