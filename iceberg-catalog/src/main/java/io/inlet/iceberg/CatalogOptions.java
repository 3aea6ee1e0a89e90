package io.inlet.iceberg;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The catalog keys of the {@code iceberg} sink and the {@code iceberg} source, those of Iceberg's
 * Flink catalog ({@code catalog-type}, {@code catalog-impl}, {@code warehouse}, {@code uri}), read by
 * {@link IcebergCatalogConfig#fromOptions}.
 */
@PublicEvolving
public final class CatalogOptions {

    private CatalogOptions() {}

    public static final ConfigOption<String> CATALOG_NAME = ConfigOptions.key("catalog-name")
            .stringType()
            .defaultValue("inlet")
            .withDescription("Name of the catalog (shows in Iceberg's metrics and logs).");

    public static final ConfigOption<String> CATALOG_TYPE = ConfigOptions.key("catalog-type")
            .stringType()
            .defaultValue("hadoop")
            .withDescription("hadoop (a warehouse directory), hive, rest, jdbc, glue or nessie; ignored when"
                    + " 'catalog-impl' is set.");

    public static final ConfigOption<String> CATALOG_IMPL = ConfigOptions.key("catalog-impl")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "Class name of any Iceberg Catalog implementation, e.g. org.apache.iceberg.aws.glue.GlueCatalog.");

    public static final ConfigOption<String> WAREHOUSE = ConfigOptions.key("warehouse")
            .stringType()
            .noDefaultValue()
            .withDescription("Warehouse location, e.g. file:///data/warehouse or s3://bucket/warehouse.");

    public static final ConfigOption<String> URI = ConfigOptions.key("uri")
            .stringType()
            .noDefaultValue()
            .withDescription("URI of the catalog service: thrift:// for hive, http(s):// for rest, jdbc: for jdbc.");

    /** Prefix of catalog properties, e.g. 'catalog.io-impl' or 'catalog.jdbc.user'. */
    public static final String CATALOG_PROPERTIES_PREFIX = "catalog.";

    /** Prefix of Hadoop configuration entries, e.g. 'hadoop.fs.s3a.endpoint'. */
    public static final String HADOOP_PROPERTIES_PREFIX = "hadoop.";
}
