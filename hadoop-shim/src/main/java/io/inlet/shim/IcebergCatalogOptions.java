package io.inlet.shim;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Options of the {@code inlet-iceberg} catalog and of {@link IcebergCatalogs}: the keys of Iceberg's
 * own Flink catalog ({@code 'type' = 'iceberg'}), so a {@code CREATE CATALOG} statement changes only
 * its type. Every other key (e.g. {@code warehouse}, {@code uri}, {@code io-impl}, {@code
 * s3.endpoint}) is passed to the Iceberg catalog as it is; keys starting with {@code hadoop.} go to
 * the catalog's Hadoop configuration with the prefix removed.
 */
@PublicEvolving
public final class IcebergCatalogOptions {

    /** The identifier of the catalog factory: {@code CREATE CATALOG c WITH ('type' = 'inlet-iceberg', ...)}. */
    public static final String IDENTIFIER = "inlet-iceberg";

    public static final ConfigOption<String> CATALOG_TYPE = ConfigOptions.key("catalog-type")
            .stringType()
            .noDefaultValue()
            .withDescription("hadoop, hive, rest, jdbc, glue or nessie; required unless 'catalog-impl' is set.");

    public static final ConfigOption<String> CATALOG_IMPL = ConfigOptions.key("catalog-impl")
            .stringType()
            .noDefaultValue()
            .withDescription("Class name of a custom Iceberg Catalog, e.g. org.apache.iceberg.aws.glue.GlueCatalog.");

    public static final ConfigOption<String> WAREHOUSE = ConfigOptions.key("warehouse")
            .stringType()
            .noDefaultValue()
            .withDescription("Warehouse location; required for the hadoop catalog.");

    public static final ConfigOption<String> URI = ConfigOptions.key("uri")
            .stringType()
            .noDefaultValue()
            .withDescription("Catalog service URI; required for the hive, rest and jdbc catalogs.");

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key("default-database")
            .stringType()
            .defaultValue("default")
            .withDescription("The database that unqualified table names refer to.");

    public static final ConfigOption<String> BASE_NAMESPACE = ConfigOptions.key("base-namespace")
            .stringType()
            .noDefaultValue()
            .withDescription("An Iceberg namespace that Flink databases are nested in.");

    public static final ConfigOption<Boolean> CACHE_ENABLED = ConfigOptions.key("cache-enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether the catalog caches loaded tables.");

    public static final ConfigOption<Long> CACHE_EXPIRATION_INTERVAL_MS = ConfigOptions.key(
                    "cache.expiration-interval-ms")
            .longType()
            .defaultValue(-1L)
            .withDescription("How long a cached table is kept, in ms; -1 keeps it until the catalog closes.");

    public static final ConfigOption<String> HADOOP_CONF_DIR = ConfigOptions.key("hadoop-conf-dir")
            .stringType()
            .noDefaultValue()
            .withDescription("A directory whose core-site.xml and hdfs-site.xml are added to the catalog's Hadoop"
                    + " configuration.");

    public static final ConfigOption<String> HIVE_CONF_DIR = ConfigOptions.key("hive-conf-dir")
            .stringType()
            .noDefaultValue()
            .withDescription("A directory whose hive-site.xml is added to the catalog's Hadoop configuration.");

    /** Prefix of Hadoop configuration entries, e.g. {@code hadoop.fs.s3a.endpoint}. */
    public static final String HADOOP_PREFIX = "hadoop.";

    private IcebergCatalogOptions() {}
}
