package io.inlet.source.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.ChangeSourceFactory;
import io.inlet.iceberg.IcebergCatalogConfig;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

import java.util.Set;

import static io.inlet.iceberg.CatalogOptions.CATALOG_IMPL;
import static io.inlet.iceberg.CatalogOptions.CATALOG_NAME;
import static io.inlet.iceberg.CatalogOptions.CATALOG_PROPERTIES_PREFIX;
import static io.inlet.iceberg.CatalogOptions.CATALOG_TYPE;
import static io.inlet.iceberg.CatalogOptions.HADOOP_PROPERTIES_PREFIX;
import static io.inlet.iceberg.CatalogOptions.URI;
import static io.inlet.iceberg.CatalogOptions.WAREHOUSE;
import static io.inlet.source.iceberg.IcebergSourceOptions.CATALOG_DATABASE;
import static io.inlet.source.iceberg.IcebergSourceOptions.CATALOG_TABLE;
import static io.inlet.source.iceberg.IcebergSourceOptions.MONITOR_INTERVAL;
import static io.inlet.source.iceberg.IcebergSourceOptions.STARTING_STRATEGY;
import static io.inlet.source.iceberg.IcebergSourceOptions.START_SNAPSHOT_ID;
import static io.inlet.source.iceberg.IcebergSourceOptions.START_SNAPSHOT_TIMESTAMP;

/**
 * Creates an {@link IcebergChangeSource} from options; identifier {@code iceberg}. The catalog keys
 * are the {@code iceberg} sink's ({@link io.inlet.iceberg.CatalogOptions}), the read keys Iceberg's Flink read options:
 *
 * <pre>{@code
 * source("iceberg", Map.of(
 *         "catalog-type", "hadoop",
 *         "warehouse", "file:///data/lake",
 *         "catalog-table", "shop.orders;shop.customers",
 *         "monitor-interval", "5s"))
 * }</pre>
 */
@PublicEvolving
public final class IcebergChangeSourceFactory implements ChangeSourceFactory {

    public static final String IDENTIFIER = "iceberg";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(CATALOG_TABLE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                CATALOG_NAME,
                CATALOG_TYPE,
                CATALOG_IMPL,
                WAREHOUSE,
                URI,
                CATALOG_DATABASE,
                STARTING_STRATEGY,
                START_SNAPSHOT_ID,
                START_SNAPSHOT_TIMESTAMP,
                MONITOR_INTERVAL,
                IcebergSourceOptions.BEFORE_IMAGES);
    }

    @Override
    public Set<String> passThroughPrefixes() {
        return Set.of(CATALOG_PROPERTIES_PREFIX, HADOOP_PROPERTIES_PREFIX);
    }

    @Override
    public ChangeSource createSource(Context context) {
        ReadableConfig o = context.options();
        IcebergChangeSource.Builder b = IcebergChangeSource.builder()
                .catalog(IcebergCatalogConfig.fromOptions(o, context.rawOptions()))
                .options(context.rawOptions());
        String database = o.get(CATALOG_DATABASE);
        for (String t : o.get(CATALOG_TABLE).split("\\s*;\\s*")) {
            if (!t.isBlank()) {
                b.tables(t.contains(".") ? t : database + "." + t);
            }
        }
        return b.build();
    }
}
