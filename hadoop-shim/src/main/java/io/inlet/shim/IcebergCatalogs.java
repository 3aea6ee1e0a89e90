package io.inlet.shim;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.shim.internal.InletFlinkCatalog;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalog;
import org.apache.iceberg.flink.TableLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Iceberg catalogs for Flink SQL, the Table API and the DataStream API, each with a Hadoop {@link
 * Configuration} of its own: built from the options, never through {@code
 * FlinkCatalogFactory.clusterHadoopConf()}, so they work on Flink runtimes without Hadoop and need
 * no shading. The options are those of Iceberg's Flink catalog (see {@link IcebergCatalogOptions}).
 *
 * <pre>{@code
 * Map<String, String> lake = Map.of("catalog-type", "rest", "uri", "https://catalog:8181",
 *     "io-impl", "org.apache.iceberg.aws.s3.S3FileIO");   // S3FileIO: org.apache.iceberg:iceberg-aws
 * IcebergCatalogs.register(tableEnv, "lake", lake);                       // SQL and the Table API
 * TableLoader orders = IcebergCatalogs.tableLoader("lake", lake, "shop", "orders");  // DataStream API
 * DataStream<RowData> rows = FlinkSource.forRowData().env(env).tableLoader(orders).streaming(true).build();
 * }</pre>
 */
@PublicEvolving
public final class IcebergCatalogs {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergCatalogs.class);

    /** Keys read here rather than passed to the Iceberg catalog. */
    private static final Set<String> OWN_KEYS =
            Set.of("type", IcebergCatalogOptions.HADOOP_CONF_DIR.key(), IcebergCatalogOptions.HIVE_CONF_DIR.key());

    private IcebergCatalogs() {}

    /**
     * Iceberg's Flink catalog over the options, not yet opened. Its streaming reads of tables with
     * identifier fields ({@code 'streaming' = 'true'}) return the changelog, {@code +I}, {@code
     * -U}/{@code +U}, {@code -D}, read by Inlet's Iceberg changelog source; {@code
     * 'streaming-read-mode' = 'append-only'} keeps Iceberg's own streaming read.
     */
    public static FlinkCatalog create(String name, Map<String, String> options) {
        String database = options.getOrDefault(
                IcebergCatalogOptions.DEFAULT_DATABASE.key(), IcebergCatalogOptions.DEFAULT_DATABASE.defaultValue());
        String base = options.get(IcebergCatalogOptions.BASE_NAMESPACE.key());
        boolean cache = Boolean.parseBoolean(options.getOrDefault(
                IcebergCatalogOptions.CACHE_ENABLED.key(),
                String.valueOf(IcebergCatalogOptions.CACHE_ENABLED.defaultValue())));
        long expiration;
        try {
            expiration = Long.parseLong(options.getOrDefault(
                    IcebergCatalogOptions.CACHE_EXPIRATION_INTERVAL_MS.key(),
                    String.valueOf(IcebergCatalogOptions.CACHE_EXPIRATION_INTERVAL_MS.defaultValue())));
        } catch (NumberFormatException e) {
            throw new InletValidationException(
                    "'" + IcebergCatalogOptions.CACHE_EXPIRATION_INTERVAL_MS.key() + "' must be a number of ms, not '"
                            + options.get(IcebergCatalogOptions.CACHE_EXPIRATION_INTERVAL_MS.key()) + "'.");
        }
        return new InletFlinkCatalog(
                name,
                database,
                base == null ? Namespace.empty() : Namespace.of(base.split("\\.")),
                catalogLoader(name, options),
                cache,
                expiration);
    }

    /** Creates the catalog and registers it with the table environment under the name. */
    public static FlinkCatalog register(TableEnvironment tableEnv, String name, Map<String, String> options) {
        FlinkCatalog catalog = create(name, options);
        tableEnv.registerCatalog(name, catalog);
        return catalog;
    }

    /** Iceberg's serializable catalog loader, for the DataStream API's sources and sinks. */
    public static CatalogLoader catalogLoader(String name, Map<String, String> options) {
        IcebergCatalogConfig config = config(name, options);
        return config.loader();
    }

    /** Loads one table of the catalog, for Iceberg's {@code FlinkSource} and {@code FlinkSink}. */
    public static TableLoader tableLoader(String name, Map<String, String> options, String database, String table) {
        return TableLoader.fromCatalog(catalogLoader(name, options), TableIdentifier.of(Namespace.of(database), table));
    }

    /**
     * The catalog's own Hadoop configuration: empty but for the {@code hadoop.*} options and the files
     * of {@code hadoop-conf-dir} and {@code hive-conf-dir}.
     */
    public static Configuration hadoopConfiguration(Map<String, String> options) {
        Configuration conf = new Configuration(false);
        addIfPresent(conf, options.get(IcebergCatalogOptions.HADOOP_CONF_DIR.key()), "core-site.xml", "hdfs-site.xml");
        addIfPresent(conf, options.get(IcebergCatalogOptions.HIVE_CONF_DIR.key()), "hive-site.xml");
        options.forEach((k, v) -> {
            if (k.startsWith(IcebergCatalogOptions.HADOOP_PREFIX)) {
                conf.set(k.substring(IcebergCatalogOptions.HADOOP_PREFIX.length()), v);
            }
        });
        return conf;
    }

    private static void addIfPresent(Configuration conf, String dir, String... files) {
        if (dir == null) {
            return;
        }
        if (!new File(dir).isDirectory()) {
            throw new InletValidationException("'" + (files[0].startsWith("hive") ? "hive-conf-dir" : "hadoop-conf-dir")
                    + "' = '" + dir + "' is not a directory; point it at the directory holding "
                    + String.join(" and ", files) + ".");
        }
        for (String file : files) {
            File f = new File(dir, file);
            if (f.isFile()) {
                conf.addResource(new org.apache.hadoop.fs.Path(f.toURI()));
            }
        }
    }

    private static IcebergCatalogConfig config(String name, Map<String, String> options) {
        String type = options.get(IcebergCatalogOptions.CATALOG_TYPE.key());
        String impl = options.get(IcebergCatalogOptions.CATALOG_IMPL.key());
        if (type == null && impl == null) {
            throw new InletValidationException(
                    "Iceberg catalog '" + name + "' needs 'catalog-type' (hadoop, hive, rest, jdbc, glue, nessie)"
                            + " or 'catalog-impl' (a Catalog class name).");
        }
        Map<String, String> properties = new HashMap<>();
        options.forEach((k, v) -> {
            if (!k.startsWith(IcebergCatalogOptions.HADOOP_PREFIX) && !OWN_KEYS.contains(k)) {
                properties.put(
                        k, v); // as Iceberg's own catalog factory does: the catalog ignores what it does not know
            }
        });
        // The configuration travels to the task managers as entries: files read here, on the client.
        Map<String, String> hadoop = new HashMap<>();
        for (Map.Entry<String, String> e : hadoopConfiguration(options)) {
            hadoop.put(e.getKey(), e.getValue());
        }
        IcebergCatalogConfig config =
                IcebergCatalogConfig.of(name, type == null ? "custom" : type, impl, properties, hadoop);
        java.util.List<String> problems = config.problems();
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        // Reading is safe anywhere; writing through SQL may not be. Iceberg's own catalog allows it, and
        // this catalog stands in for Iceberg's, so it warns where Inlet's sink refuses.
        for (String unsafe : config.writeProblems()) {
            LOG.warn("Iceberg catalog '{}': {}", name, unsafe);
        }
        return config;
    }
}
