package io.inlet.source.iceberg;

import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.FactoryDiscovery;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.source.iceberg.internal.CommitColumns;
import io.inlet.source.iceberg.internal.TestTables;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IcebergChangeSourceTest {

    @TempDir
    Path warehouse;

    private Map<String, String> options(String tables) {
        Map<String, String> o = new HashMap<>();
        o.put("catalog-type", "hadoop");
        o.put("warehouse", warehouse.toUri().toString());
        o.put("catalog-table", tables);
        return o;
    }

    private ChangeSource create(Map<String, String> options) {
        return FactoryDiscovery.createSource("iceberg", options);
    }

    @Test
    void theFactoryIsFoundByItsIdentifierAndDescribesTheTablesWithTheirKeys() {
        TestTables.create(warehouse, "orders", true);
        ChangeSource source = create(options("db.orders"));
        assertThat(source.name()).isEqualTo("iceberg");
        List<TableDescriptor> tables = source.discoverTables();
        assertThat(tables).hasSize(1);
        TableDescriptor t = tables.get(0);
        assertThat(t.tableId()).isEqualTo(TableId.of("db", "orders"));
        assertThat(t.columnNames()).containsExactly("id", "region", "v");
        assertThat(t.columns().get(0).type()).isEqualTo(DataTypes.BIGINT().notNull());
        assertThat(t.columns().get(2).type()).isEqualTo(DataTypes.STRING());
        assertThat(t.primaryKey()).containsExactly("id", "region");
        assertThat(source.mayRepeatChanges()).isFalse();
    }

    @Test
    void aNameWithoutNamespaceIsInCatalogDatabase() {
        TestTables.create(warehouse, "orders", false);
        Map<String, String> o = options("orders");
        o.put("catalog-database", "db");
        assertThat(create(o).discoverTables())
                .extracting(TableDescriptor::tableId)
                .containsExactly(TableId.of("db", "orders"));
    }

    @Test
    void everyProblemIsNamedWithItsFix() {
        Map<String, String> o = options("db.a;db.b");
        o.put("starting-strategy", "INCREMENTAL_FROM_SNAPSHOT_ID");
        o.put("start-snapshot-id", "42");
        o.put("monitor-interval", "0 s");
        assertThatThrownBy(() -> create(o))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'start-snapshot-id' names a snapshot of one table, but 2 tables are read")
                .hasMessageContaining("'monitor-interval' must be positive");

        Map<String, String> wrongStrategy = options("db.a");
        wrongStrategy.put("start-snapshot-id", "42");
        assertThatThrownBy(() -> create(wrongStrategy)).hasMessageContaining("set it to INCREMENTAL_FROM_SNAPSHOT_ID");

        Map<String, String> stateFromLatest = options("db.a");
        stateFromLatest.put("before-images", "state");
        stateFromLatest.put("starting-strategy", "INCREMENTAL_FROM_LATEST_SNAPSHOT");
        assertThatThrownBy(() -> create(stateFromLatest))
                .hasMessageContaining("'before-images' STATE keeps each key's latest row")
                .hasMessageContaining("use TABLE_SCAN_THEN_INCREMENTAL or INCREMENTAL_FROM_EARLIEST_SNAPSHOT");
        Map<String, String> state = options("db.a");
        state.put("before-images", "state");
        assertThat(create(state)).as("the key is known to the factory").isNotNull();

        Map<String, String> noWarehouse = options("db.a");
        noWarehouse.remove("warehouse");
        assertThatThrownBy(() -> create(noWarehouse)).hasMessageContaining("A hadoop catalog needs 'warehouse'");

        assertThatThrownBy(() -> IcebergChangeSource.builder().build())
                .hasMessageContaining("A catalog is required")
                .hasMessageContaining("'catalog-table' is required");
    }

    @Test
    void aTableThatCannotBeReadAsAChangelogIsRefusedWhenTheTablesAreDiscovered() {
        try (HadoopCatalog catalog = TestTables.catalog(warehouse)) {
            catalog.createTable(
                    TableIdentifier.of("db", "keyless"),
                    new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
                    PartitionSpec.unpartitioned(),
                    Map.of("format-version", "2"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ChangeSource keyless = create(options("db.keyless"));
        assertThatThrownBy(keyless::discoverTables)
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("has no identifier fields")
                .hasMessageContaining("SET IDENTIFIER FIELDS");
        ChangeSource missing = create(options("db.nowhere"));
        assertThatThrownBy(missing::discoverTables)
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Cannot load Iceberg table db.nowhere")
                .hasMessageContaining("'catalog-table'");
    }

    @Test
    void aChangelogRowBecomesAnEventAtItsSnapshotAndTheMapperShipsAsJavaSerialized() throws Exception {
        IcebergChangeSource.ToChangeEvent mapper = InstantiationUtil.clone(
                new IcebergChangeSource.ToChangeEvent(TableId.of("db", "orders"), 1, "db.orders", 3),
                getClass().getClassLoader());
        GenericRowData table = GenericRowData.of(7L, 2, StringData.fromString("x"));
        RowData row = new JoinedRowData(RowKind.UPDATE_AFTER, table, CommitColumns.of(-5L, 12L, 1_700_000_000_000L));
        ChangeEvent e = mapper.map(row);
        assertThat(e.kind()).isEqualTo(RowKind.UPDATE_AFTER);
        assertThat(e.tableId()).isEqualTo(TableId.of("db", "orders"));
        assertThat(e.row().getArity()).isEqualTo(3);
        assertThat(e.row().getLong(0)).isEqualTo(7L);
        assertThat(e.row().getString(2).toString()).isEqualTo("x");
        assertThat(e.position()).isEqualTo(SourcePosition.iceberg("db.orders", -5L, 12L));
        assertThat(e.position().order()).isEqualTo(12L);
        assertThat(e.sourceTimestamp()).isEqualTo(1_700_000_000_000L);
    }
}
