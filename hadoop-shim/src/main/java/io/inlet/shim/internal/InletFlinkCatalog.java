package io.inlet.shim.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.factories.Factory;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalog;
import org.apache.iceberg.flink.FlinkDynamicTableFactory;

import java.util.Optional;

/**
 * Iceberg's Flink catalog, with Inlet's table factory: streaming reads of tables with identifier
 * fields become changelog reads ({@link InletIcebergTableFactory}); everything else is Iceberg's.
 */
@Internal
public final class InletFlinkCatalog extends FlinkCatalog {

    private final Namespace baseNamespace;
    private final CatalogLoader loader;

    public InletFlinkCatalog(
            String name,
            String defaultDatabase,
            Namespace baseNamespace,
            CatalogLoader loader,
            boolean cacheEnabled,
            long cacheExpirationIntervalMs) {
        super(name, defaultDatabase, baseNamespace, loader, cacheEnabled, cacheExpirationIntervalMs);
        this.baseNamespace = baseNamespace;
        this.loader = loader;
    }

    @Override
    public Optional<Factory> getFactory() {
        return Optional.of(new InletIcebergTableFactory(new FlinkDynamicTableFactory(this), loader, baseNamespace));
    }
}
