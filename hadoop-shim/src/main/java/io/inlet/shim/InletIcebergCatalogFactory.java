package io.inlet.shim;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code inlet-iceberg} catalog type for Flink SQL: Iceberg's Flink catalog, built with a Hadoop
 * configuration of its own instead of {@code FlinkCatalogFactory.clusterHadoopConf()}, which fails
 * with {@code NoClassDefFoundError: org/apache/hadoop/conf/Configuration} on Flink runtimes without
 * Hadoop. It takes the same options as {@code 'type' = 'iceberg'} (see {@link
 * IcebergCatalogOptions}), so SQL users switch the type and need no shade relocations:
 *
 * <pre>{@code
 * CREATE CATALOG lake WITH (
 *   'type' = 'inlet-iceberg',
 *   'catalog-type' = 'hadoop',
 *   'warehouse' = 'hdfs://namenode:8020/warehouse',
 *   'hadoop.dfs.client.use.datanode.hostname' = 'true');
 * }</pre>
 *
 * <p>A streaming read of a table with identifier fields returns its changelog, updates and deletes
 * included, where Iceberg's own catalog returns the rows of append snapshots only:
 *
 * <pre>{@code
 * SELECT region, COUNT(*) FROM lake.shop.orders /*+ OPTIONS('streaming' = 'true') *&#47; GROUP BY region;
 * }</pre>
 */
@PublicEvolving
public final class InletIcebergCatalogFactory implements CatalogFactory {

    @Override
    public String factoryIdentifier() {
        return IcebergCatalogOptions.IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        // Open-ended like Iceberg's: unknown keys are catalog properties, so Flink does not validate them.
        return Set.of(
                IcebergCatalogOptions.CATALOG_TYPE,
                IcebergCatalogOptions.CATALOG_IMPL,
                IcebergCatalogOptions.WAREHOUSE,
                IcebergCatalogOptions.URI,
                IcebergCatalogOptions.DEFAULT_DATABASE,
                IcebergCatalogOptions.BASE_NAMESPACE,
                IcebergCatalogOptions.CACHE_ENABLED,
                IcebergCatalogOptions.CACHE_EXPIRATION_INTERVAL_MS,
                IcebergCatalogOptions.HADOOP_CONF_DIR,
                IcebergCatalogOptions.HIVE_CONF_DIR);
    }

    @Override
    public Catalog createCatalog(Context context) {
        Map<String, String> options = new HashMap<>(context.getOptions());
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        // The check that the catalog's classes are present looks through the context class loader:
        // make it the one Flink resolves this catalog with (the job's, in SQL clients and gateways).
        Thread.currentThread().setContextClassLoader(context.getClassLoader());
        try {
            return IcebergCatalogs.create(context.getName(), options);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }
}
