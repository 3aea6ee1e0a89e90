package io.inlet.iceberg;

import io.inlet.annotation.PublicEvolving;
import io.inlet.iceberg.internal.JvmLockManager;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.flink.CatalogLoader;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An Iceberg catalog's settings, turned into Iceberg's {@link CatalogLoader} with a Hadoop {@link
 * Configuration} of its own ({@code new Configuration(false)} plus the {@code hadoop.*} options).
 * It never goes through {@code FlinkCatalogFactory.clusterHadoopConf()}, which needs Hadoop in
 * Flink's parent class loader and fails on runtimes without it. Immutable.
 *
 * <pre>{@code
 * IcebergCatalogConfig c = IcebergCatalogConfig.of("lake", "rest", null, Map.of("uri", "http://rest:8181"), Map.of());
 * if (!c.problems().isEmpty()) throw new IllegalArgumentException(String.join(" ", c.problems()));
 * CatalogLoader loader = c.loader();
 * }</pre>
 */
@PublicEvolving
public final class IcebergCatalogConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Map<String, String> IMPLS = Map.of(
            "hadoop", "org.apache.iceberg.hadoop.HadoopCatalog",
            "hive", "org.apache.iceberg.hive.HiveCatalog",
            "rest", "org.apache.iceberg.rest.RESTCatalog",
            "jdbc", "org.apache.iceberg.jdbc.JdbcCatalog",
            "glue", "org.apache.iceberg.aws.glue.GlueCatalog",
            "nessie", "org.apache.iceberg.nessie.NessieCatalog");

    /** Classes a catalog type needs besides its Iceberg class, and where they come from. */
    private static final Map<String, String[]> NEEDS = Map.of(
            "hive",
                    new String[] {
                        "org.apache.hadoop.hive.metastore.IMetaStoreClient", "Hive's metastore client (hive-metastore)"
                    },
            "glue",
                    new String[] {
                        "software.amazon.awssdk.services.glue.GlueClient",
                        "the AWS SDK's Glue client (iceberg-aws-bundle)"
                    },
            "nessie", new String[] {"org.projectnessie.client.api.NessieApiV1", "the Nessie client (iceberg-nessie)"});

    /**
     * Object stores whose rename is a copy and a delete: a hadoop catalog commits by renaming its new
     * metadata file into place, which on these is not atomic.
     */
    private static final java.util.Set<String> NON_ATOMIC_RENAME_SCHEMES =
            java.util.Set.of("s3", "s3a", "s3n", "gs", "oss");

    private final String name;
    private final String type;

    @Nullable
    private final String impl;

    private final HashMap<String, String> properties;
    private final HashMap<String, String> hadoopProperties;

    private IcebergCatalogConfig(
            String name,
            String type,
            @Nullable String impl,
            Map<String, String> properties,
            Map<String, String> hadoopProperties) {
        this.name = name;
        this.type = type.toLowerCase(Locale.ROOT);
        this.impl = impl;
        this.properties = new HashMap<>(properties);
        this.hadoopProperties = new HashMap<>(hadoopProperties);
    }

    /**
     * @param type {@code hadoop}, {@code hive}, {@code rest}, {@code jdbc}, {@code glue} or {@code nessie}; ignored
     * with an impl
     * @param impl any Iceberg {@code Catalog} class, or null for the type's
     * @param properties the catalog's properties ({@code warehouse}, {@code uri}, {@code io-impl} ...)
     * @param hadoopProperties entries of the catalog's own Hadoop configuration
     */
    public static IcebergCatalogConfig of(
            String name,
            String type,
            @Nullable String impl,
            Map<String, String> properties,
            Map<String, String> hadoopProperties) {
        return new IcebergCatalogConfig(name, type, impl, properties, hadoopProperties);
    }

    /**
     * The settings given as {@link CatalogOptions}: {@code catalog-name}, {@code catalog-type}, {@code
     * catalog-impl}, {@code warehouse}, {@code uri}, and {@code catalog.*} / {@code hadoop.*} entries
     * of the raw options, prefix removed.
     */
    public static IcebergCatalogConfig fromOptions(ReadableConfig options, Map<String, String> rawOptions) {
        Map<String, String> properties = new HashMap<>();
        Map<String, String> hadoop = new HashMap<>();
        for (Map.Entry<String, String> e : rawOptions.entrySet()) {
            if (e.getKey().startsWith(CatalogOptions.CATALOG_PROPERTIES_PREFIX)) {
                properties.put(e.getKey().substring(CatalogOptions.CATALOG_PROPERTIES_PREFIX.length()), e.getValue());
            } else if (e.getKey().startsWith(CatalogOptions.HADOOP_PROPERTIES_PREFIX)) {
                hadoop.put(e.getKey().substring(CatalogOptions.HADOOP_PROPERTIES_PREFIX.length()), e.getValue());
            }
        }
        options.getOptional(CatalogOptions.WAREHOUSE)
                .ifPresent(w -> properties.put(CatalogProperties.WAREHOUSE_LOCATION, w));
        options.getOptional(CatalogOptions.URI).ifPresent(u -> properties.put(CatalogProperties.URI, u));
        return of(
                options.get(CatalogOptions.CATALOG_NAME),
                options.get(CatalogOptions.CATALOG_TYPE),
                options.getOptional(CatalogOptions.CATALOG_IMPL).orElse(null),
                properties,
                hadoop);
    }

    /** Checks the settings; returns problems, each with its fix. */
    public java.util.List<String> problems() {
        java.util.List<String> problems = new java.util.ArrayList<>();
        if (impl == null && !IMPLS.containsKey(type)) {
            problems.add("'catalog-type' = '" + type + "' is unknown; use one of "
                    + new java.util.TreeSet<>(IMPLS.keySet()) + ", or name a Catalog class with 'catalog-impl'.");
            return problems;
        }
        if (impl == null && "hadoop".equals(type) && !properties.containsKey(CatalogProperties.WAREHOUSE_LOCATION)) {
            problems.add("A hadoop catalog needs 'warehouse', e.g. 'file:///data/warehouse'.");
        }
        if (impl == null
                && ("hive".equals(type) || "rest".equals(type) || "jdbc".equals(type))
                && !properties.containsKey(CatalogProperties.URI)) {
            problems.add("A " + type + " catalog needs 'uri'.");
        }
        String cls = implClass();
        if (!present(cls)) {
            problems.add("The catalog class " + cls + " is not on the classpath; add the Iceberg module that has it"
                    + " (for example iceberg-hive-metastore, iceberg-aws, iceberg-nessie).");
        } else if (impl == null && NEEDS.containsKey(type) && !present(NEEDS.get(type)[0])) {
            problems.add("A " + type + " catalog needs " + NEEDS.get(type)[1] + " on the classpath ("
                    + NEEDS.get(type)[0] + " is missing); add it to the job.");
        }
        return problems;
    }

    /**
     * {@link #problems()}, and what makes committing through the catalog unsafe: a hadoop catalog whose
     * warehouse is on an object store. Its commit renames a file, which there is a copy: when two writers
     * of a table commit at once (this job and a compaction, or a second job), both can be told they
     * succeeded while one commit is lost. Iceberg allows it; a writer that mirrors a database must not.
     */
    public java.util.List<String> writeProblems() {
        java.util.List<String> problems = problems();
        String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
        if (impl == null && "hadoop".equals(type) && warehouse != null) {
            int colon = warehouse.indexOf("://");
            String scheme = colon > 0 ? warehouse.substring(0, colon).toLowerCase(Locale.ROOT) : "";
            if (NON_ATOMIC_RENAME_SCHEMES.contains(scheme)) {
                problems.add("'warehouse' = '" + warehouse + "': a hadoop catalog commits by renaming a metadata"
                        + " file, which is not atomic on " + scheme + "://, so two writers of a table (this job"
                        + " and a compaction, or a second job) can both be told they committed while one commit"
                        + " is lost. Use a catalog that commits atomically: 'catalog-type' = 'rest', 'hive',"
                        + " 'jdbc' or 'glue', and for S3 Iceberg's S3FileIO as its 'io-impl' ('catalog.io-impl'"
                        + " = 'org.apache.iceberg.aws.s3.S3FileIO' on Inlet's sink).");
            }
        }
        return problems;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Thread.currentThread().getContextClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private String implClass() {
        return impl != null ? impl : IMPLS.get(type);
    }

    public String name() {
        return name;
    }

    /** A Hadoop configuration of this catalog's own, independent of the cluster's. */
    private Configuration hadoopConf() {
        Configuration conf = new Configuration(false);
        hadoopProperties.forEach(conf::set);
        return conf;
    }

    /** Iceberg's serializable loader, shipped to the writers and the committer. */
    public CatalogLoader loader() {
        Configuration conf = hadoopConf();
        Map<String, String> props = new HashMap<>(properties);
        if ("org.apache.iceberg.hadoop.HadoopCatalog".equals(implClass())) {
            // Iceberg's default lock manager dies with the first catalog closed in the JVM; see JvmLockManager.
            props.putIfAbsent(CatalogProperties.LOCK_IMPL, JvmLockManager.class.getName());
        }
        if (impl == null) {
            switch (type) {
                case "hadoop":
                    return CatalogLoader.hadoop(name, conf, props);
                case "hive":
                    return CatalogLoader.hive(name, conf, props);
                case "rest":
                    return CatalogLoader.rest(name, conf, props);
                default:
                    break;
            }
        }
        return CatalogLoader.custom(name, props, conf, implClass());
    }

    /**
     * Identifies the catalog's storage, so that two sinks writing the same table can be told apart
     * from two writing tables of the same name in different catalogs.
     */
    public String identity() {
        String where = properties.getOrDefault(
                CatalogProperties.URI, properties.getOrDefault(CatalogProperties.WAREHOUSE_LOCATION, name));
        return implClass() + "@" + where.replaceAll("/+$", "");
    }

    /** For logs: no property values, which may hold credentials. */
    @Override
    public String toString() {
        Map<String, String> shown = new LinkedHashMap<>();
        shown.put("name", name);
        shown.put("impl", implClass());
        if (properties.containsKey(CatalogProperties.WAREHOUSE_LOCATION)) {
            shown.put("warehouse", properties.get(CatalogProperties.WAREHOUSE_LOCATION));
        }
        if (properties.containsKey(CatalogProperties.URI)) {
            shown.put("uri", properties.get(CatalogProperties.URI));
        }
        return "IcebergCatalog" + shown;
    }
}
