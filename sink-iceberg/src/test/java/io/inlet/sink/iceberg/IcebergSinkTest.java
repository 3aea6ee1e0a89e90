package io.inlet.sink.iceberg;

import io.inlet.core.InletValidationException;
import io.inlet.core.spi.FactoryDiscovery;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.iceberg.IcebergCatalogConfig;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The sink's checks against real Iceberg tables in a local Hadoop catalog. */
class IcebergSinkTest {

    private static final TableDescriptor ORDERS = TableDescriptor.builder(TableId.of("lake", "orders"))
            .column("id", DataTypes.BIGINT())
            .column("customer", DataTypes.STRING())
            .column("created", DataTypes.TIMESTAMP(3))
            .primaryKey("id")
            .build();

    private static IcebergSink sink(Path warehouse) {
        return IcebergSink.builder().warehouse(warehouse.toUri().toString()).build();
    }

    private static HadoopCatalog catalog(Path warehouse) {
        return new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
    }

    @Test
    void acceptsNewTablesAndIdenticalExistingOnes(@TempDir Path warehouse) throws Exception {
        sink(warehouse).validate(List.of(ORDERS));
        try (HadoopCatalog c = catalog(warehouse)) {
            c.createNamespace(Namespace.of("lake"));
            Schema s = new Schema(
                    List.of(
                            Types.NestedField.required(1, "id", Types.LongType.get()),
                            Types.NestedField.optional(2, "customer", Types.StringType.get()),
                            Types.NestedField.optional(3, "created", Types.TimestampType.withoutZone())),
                    Set.of(1));
            c.buildTable(TableIdentifier.of("lake", "orders"), s)
                    .withProperty("format-version", "2")
                    .create();
        }
        sink(warehouse).validate(List.of(ORDERS));
    }

    @Test
    void spellsOutHowAnExistingTableDiffers(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            c.createNamespace(Namespace.of("lake"));
            Schema s = new Schema(List.of(
                    Types.NestedField.required(1, "id", Types.IntegerType.get()),
                    Types.NestedField.required(2, "customer", Types.StringType.get()),
                    Types.NestedField.optional(3, "created", Types.TimestampType.withoutZone())));
            c.buildTable(TableIdentifier.of("lake", "orders"), s)
                    .withPartitionSpec(
                            PartitionSpec.builderFor(s).identity("customer").build())
                    .withProperty("format-version", "1")
                    .create();
        }
        assertThatThrownBy(() -> sink(warehouse).validate(List.of(ORDERS)))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining(
                        "The existing Iceberg table inlet.lake.orders cannot take the rows of lake.orders")
                .hasMessageContaining("id: long cannot be promoted to int")
                .hasMessageContaining("has the identifier fields [] but lake.orders has the primary key [id]")
                .hasMessageContaining("is format version 1; updates and deletes need version 2")
                .hasMessageContaining("is partitioned by [customer], which are not part of its primary key [id]");
    }

    @Test
    void spellsOutMissingAndExtraColumns(@TempDir Path warehouse) throws Exception {
        try (HadoopCatalog c = catalog(warehouse)) {
            c.createNamespace(Namespace.of("lake"));
            c.buildTable(
                            TableIdentifier.of("lake", "orders"),
                            new Schema(
                                    List.of(
                                            Types.NestedField.required(1, "id", Types.LongType.get()),
                                            Types.NestedField.optional(2, "name", Types.StringType.get())),
                                    Set.of(1)))
                    .create();
        }
        assertThatThrownBy(() -> sink(warehouse).validate(List.of(ORDERS)))
                .hasMessageContaining(
                        "has the columns [id, name], the rows of lake.orders have [id, customer, created];"
                                + " missing in the table: [customer, created]; only in the table: [name]");
    }

    @Test
    void refusesUpsertPartitionsOutsideTheKeyBeforeCreatingAnything(@TempDir Path warehouse) {
        IcebergSink s = IcebergSink.builder()
                .warehouse(warehouse.toUri().toString())
                .partitionSpec("lake.orders", "day(created)")
                .build();
        assertThatThrownBy(() -> s.validate(List.of(ORDERS)))
                .hasMessageContaining("partitioned by [created], which are not part of its primary key [id]");
        IcebergSink changelog = IcebergSink.builder()
                .warehouse(warehouse.toUri().toString())
                .partitionSpec("lake.orders", "day(created)")
                .writeMode(WriteMode.CHANGELOG)
                .build();
        changelog.validate(List.of(ORDERS));
        IcebergSink typo = IcebergSink.builder()
                .warehouse(warehouse.toUri().toString())
                .partitionSpec("lake.order", "bucket(id, 2)")
                .build();
        assertThatThrownBy(() -> typo.validate(List.of(ORDERS)))
                .hasMessageContaining("'partition-spec.lake.order' names no table");
    }

    @Test
    void catalogOptionsAreCheckedAtBuild() {
        assertThatThrownBy(() -> IcebergSink.builder().build())
                .hasMessageContaining("A hadoop catalog needs 'warehouse'");
        assertThatThrownBy(() -> IcebergSink.builder()
                        .catalogType("hive")
                        .uri("thrift://h:9083")
                        .build())
                .hasMessageContaining("A hive catalog needs Hive's metastore client (hive-metastore) on the classpath");
        assertThatThrownBy(() -> IcebergSink.builder().catalogType("oracle").build())
                .hasMessageContaining("'catalog-type' = 'oracle' is unknown");
        assertThatThrownBy(() -> IcebergSink.builder().catalogType("jdbc").build())
                .hasMessageContaining("A jdbc catalog needs 'uri'");
    }

    @Test
    void aHadoopCatalogOnAnObjectStoreIsRefusedForItsNonAtomicCommits() {
        for (String warehouse : List.of("s3a://bucket/lake", "s3://bucket/lake", "gs://bucket/lake")) {
            assertThatThrownBy(() -> IcebergSink.builder().warehouse(warehouse).build())
                    .isInstanceOf(InletValidationException.class)
                    .hasMessageContaining("'warehouse' = '" + warehouse + "'")
                    .hasMessageContaining("not atomic")
                    .hasMessageContaining("'catalog-type' = 'rest'");
        }
        // Where a rename is atomic, and where the catalog commits itself, the warehouse may be anywhere.
        IcebergSink.builder().warehouse("hdfs://namenode:8020/lake").build();
        IcebergSink.builder()
                .catalogType("rest")
                .uri("http://catalog:8181")
                .warehouse("s3://bucket/lake")
                .build();
    }

    @Test
    void targetsIdentifyTheCatalogStorageAndTheTable(@TempDir Path warehouse) {
        String wh = warehouse.toUri().toString();
        assertThat(sink(warehouse).targetTables(List.of(ORDERS)))
                .containsExactly(
                        "iceberg:org.apache.iceberg.hadoop.HadoopCatalog@" + wh.replaceAll("/+$", "") + "/lake.orders");
    }

    @Test
    void theFactoryTakesIcebergKeysAndPassThroughPrefixes(@TempDir Path warehouse) {
        IcebergSink s = (IcebergSink) FactoryDiscovery.createSink(
                "iceberg",
                Map.of(
                        "warehouse", warehouse.toUri().toString(),
                        "write-mode", "upsert",
                        "write-parallelism", "2",
                        "table.write.target-file-size-bytes", "1024",
                        "partition-spec.lake.orders", "bucket(id, 4)",
                        "hadoop.fs.file.impl.disable.cache", "true"));
        assertThat(s)
                .hasToString("IcebergSink{IcebergCatalog{name=inlet,"
                        + " impl=org.apache.iceberg.hadoop.HadoopCatalog, warehouse=" + warehouse.toUri()
                        + "}, write-mode=upsert}");
        assertThatThrownBy(
                        () -> FactoryDiscovery.createSink("iceberg", Map.of("warehouse", "x", "write-mode", "merge")))
                .hasMessageContaining("'write-mode' = 'merge' is unknown; use auto, upsert or changelog");
    }

    @Test
    void theCatalogLoaderShipsToTaskManagers(@TempDir Path warehouse) throws Exception {
        CatalogLoader loader = IcebergCatalogConfig.of(
                        "c",
                        "hadoop",
                        null,
                        Map.of("warehouse", warehouse.toUri().toString()),
                        Map.of("a.b", "c"))
                .loader();
        CatalogLoader copy = InstantiationUtil.clone(loader);
        assertThat(copy.loadCatalog().name()).isEqualTo("c");
    }

    @Test
    void refusesBoundsThatAreNotPositive(@TempDir Path warehouse) {
        assertThatThrownBy(() -> IcebergSink.builder()
                        .warehouse(warehouse.toUri().toString())
                        .maxOpenWriters(0)
                        .maxBufferedBytes(-1)
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'write-max-open-writers' must be positive, was 0.")
                .hasMessageContaining(
                        "'write-max-buffered-bytes' must be positive, was -1; give a size such as" + " '256mb'.");
    }
}
