package io.inlet.shim;

import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The catalog helpers for the DataStream API: loaders that ship to task managers. */
class IcebergCatalogsTest {

    @Test
    void aHadoopCatalogOnAnObjectStoreIsAllowedAsIcebergsOwnCatalogAllowsIt() {
        // Inlet's sink refuses it (its commits are not atomic there); this stand-in for Iceberg's catalog warns.
        CatalogLoader loader = IcebergCatalogs.catalogLoader(
                "lake", Map.of("catalog-type", "hadoop", "warehouse", "s3a://bucket/lake"));
        assertThat(loader.toString()).contains("s3a://bucket/lake");
    }

    @Test
    void tableLoadersSurviveSerializationAndLoadTheTable(@TempDir Path warehouse) throws Exception {
        Map<String, String> options =
                Map.of("catalog-type", "hadoop", "warehouse", warehouse.toUri().toString());
        CatalogLoader loader = IcebergCatalogs.catalogLoader("lake", options);
        Catalog catalog = loader.loadCatalog();
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("shop"));
        catalog.createTable(
                TableIdentifier.of("shop", "orders"),
                new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));

        TableLoader tableLoader = IcebergCatalogs.tableLoader("lake", options, "shop", "orders");
        TableLoader shipped = InstantiationUtil.clone(tableLoader, getClass().getClassLoader());
        shipped.open();
        try {
            assertThat(shipped.loadTable().schema().findField("id")).isNotNull();
            assertThat(shipped.loadTable().location())
                    .startsWith(warehouse.toUri().toString().replaceAll("/$", ""));
        } finally {
            shipped.close();
        }
    }

    @Test
    void hadoopEntriesComeFromOptionsAndConfDirsOnly(@TempDir Path dir) throws Exception {
        Files.writeString(
                dir.resolve("core-site.xml"),
                "<configuration><property><name>fs.s3a.endpoint</name>"
                        + "<value>http://127.0.0.1:9000</value></property></configuration>");
        org.apache.hadoop.conf.Configuration conf = IcebergCatalogs.hadoopConfiguration(Map.of(
                "hadoop-conf-dir",
                dir.toString(),
                "hadoop.fs.s3a.path.style.access",
                "true",
                "warehouse",
                "s3a://b/w"));
        assertThat(conf.get("fs.s3a.endpoint")).isEqualTo("http://127.0.0.1:9000");
        assertThat(conf.get("fs.s3a.path.style.access")).isEqualTo("true");
        assertThat(conf.get("warehouse")).isNull();
        assertThat(conf.get("fs.defaultFS")).isNull();
    }
}
