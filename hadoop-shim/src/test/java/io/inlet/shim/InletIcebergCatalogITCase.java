package io.inlet.shim;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkCatalog;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The inlet-iceberg catalog type in Flink SQL, on a local MiniCluster. */
class InletIcebergCatalogITCase {

    @Test
    void createInsertAndSelectThroughTheSqlCatalogType(@TempDir Path warehouse) throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.getConfig().set("table.exec.resource.default-parallelism", "1");
        tEnv.executeSql("CREATE CATALOG lake WITH ('type' = 'inlet-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse.toUri() + "', 'hadoop.inlet.marker' = 'set', 'cache-enabled' = 'false')");
        tEnv.executeSql("CREATE DATABASE lake.shop");
        tEnv.executeSql("CREATE TABLE lake.shop.orders (id BIGINT, customer STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake.shop.orders VALUES (1, 'anna'), (2, 'bob')")
                .await();
        tEnv.executeSql("INSERT INTO lake.shop.orders VALUES (2, 'bea')").await(); // an upsert of key 2

        assertThat(rows(tEnv, "SELECT id, customer FROM lake.shop.orders ORDER BY id"))
                .containsExactly("+I[1, anna]", "+I[2, bea]");

        // The catalog's Hadoop configuration is its own: the hadoop.* option, and none of the
        // *-default.xml entries that clusterHadoopConf() would have loaded.
        FlinkCatalog catalog = (FlinkCatalog) tEnv.getCatalog("lake").orElseThrow();
        Configuration conf = ((HadoopCatalog) catalog.catalog()).getConf();
        assertThat(conf.get("inlet.marker")).isEqualTo("set");
        assertThat(conf.get("fs.defaultFS")).isNull();
        Table table = catalog.catalog().loadTable(TableIdentifier.of(Namespace.of("shop"), "orders"));
        assertThat(table.schema().identifierFieldNames()).containsExactly("id");
    }

    @Test
    void badOptionsNameTheOptionAndTheFix(@TempDir Path warehouse) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        assertThatThrownBy(() -> tEnv.executeSql(
                        "CREATE CATALOG a WITH ('type' = 'inlet-iceberg', 'warehouse' = '" + warehouse.toUri() + "')"))
                .hasStackTraceContaining(
                        "needs 'catalog-type' (hadoop, hive, rest, jdbc, glue, nessie) or 'catalog-impl'");
        assertThatThrownBy(() ->
                        tEnv.executeSql("CREATE CATALOG b WITH ('type' = 'inlet-iceberg', 'catalog-type' = 'hadoop')"))
                .hasStackTraceContaining("A hadoop catalog needs 'warehouse'");
        assertThatThrownBy(() -> tEnv.executeSql("CREATE CATALOG c WITH ('type' = 'inlet-iceberg', 'catalog-type' ="
                        + " 'hive', 'uri'" + " = 'thrift://127.0.0.1:1')"))
                .hasStackTraceContaining("needs Hive's metastore client");
        assertThatThrownBy(() -> IcebergCatalogs.create(
                        "d",
                        Map.of(
                                "catalog-type",
                                "hadoop",
                                "warehouse",
                                warehouse.toUri().toString(),
                                "hadoop-conf-dir",
                                warehouse.resolve("missing").toString())))
                .hasMessageContaining("'hadoop-conf-dir' = '" + warehouse.resolve("missing") + "' is not a directory");
    }

    private static List<String> rows(TableEnvironment tEnv, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            it.forEachRemaining(r -> rows.add(r.toString()));
        }
        return rows;
    }
}
