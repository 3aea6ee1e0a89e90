package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keys the changes for {@link TablesWriter} by table and primary key: all changes of one row reach
 * one writer subtask, in order. With {@code distribution-mode=hash}, a partitioned table's rows are
 * keyed by their partition instead (fewer files per partition; upsert tables' partition columns are
 * key columns, so a key's changes still stay together). The key is a hash of the table's id and the
 * values, the same in every JVM (content hashes of Flink's internal data; arrays by content).
 */
@Internal
public final class TableKeySelector implements KeySelector<ChangeEvent, Integer> {

    private static final long serialVersionUID = 1L;

    /** Per table: the positions of its key columns in the rows and their types. */
    private final HashMap<TableId, int[]> positions = new HashMap<>();

    private final HashMap<TableId, LogicalType[]> types = new HashMap<>();

    /** Tables keyed by partition: how their rows become the table's rows, and its partitioning. */
    private final HashMap<TableId, IcebergRowConverter> converters = new HashMap<>();

    private final HashMap<TableId, RowType> targets = new HashMap<>();
    private final HashMap<TableId, Schema> schemas = new HashMap<>();
    private final HashMap<TableId, PartitionSpec> specs = new HashMap<>();

    private transient Map<TableId, RowData.FieldGetter[]> getters;
    private transient Map<TableId, RowDataWrapper> wrappers;
    private transient Map<TableId, PartitionKey> partitionKeys;

    /** Keyed by primary key. */
    public TableKeySelector(List<TableDescriptor> tables) {
        this(tables, Map.of());
    }

    /**
     * @param byPartition the tables to key by partition (partitioned ones): their Iceberg table
     */
    public TableKeySelector(List<TableDescriptor> tables, Map<TableId, Table> byPartition) {
        byPartition.forEach((id, table) -> {
            TableDescriptor t = tables.stream()
                    .filter(d -> d.tableId().equals(id))
                    .findFirst()
                    .orElseThrow();
            RowType target = FlinkSchemaUtil.convert(table.schema());
            converters.put(id, new IcebergRowConverter(t.toRowType(), target));
            targets.put(id, target);
            schemas.put(id, table.schema());
            specs.put(id, table.spec());
        });
        for (TableDescriptor t : tables) {
            RowType row = t.toRowType();
            int[] p = new int[t.primaryKey().size()];
            LogicalType[] ty = new LogicalType[p.length];
            for (int i = 0; i < p.length; i++) {
                p[i] = t.indexOf(t.primaryKey().get(i));
                ty[i] = row.getTypeAt(p[i]);
            }
            positions.put(t.tableId(), p);
            types.put(t.tableId(), ty);
        }
    }

    @Override
    public Integer getKey(ChangeEvent event) {
        if (getters == null) {
            getters = new HashMap<>();
            wrappers = new HashMap<>();
            partitionKeys = new HashMap<>();
        }
        if (specs.containsKey(event.tableId())) {
            return byPartition(event);
        }
        RowData.FieldGetter[] g = getters.computeIfAbsent(event.tableId(), id -> {
            int[] p = positions.get(id);
            if (p == null) {
                throw new IllegalStateException(
                        "The Iceberg sink got an event of table " + id + ", which it was not built for.");
            }
            RowData.FieldGetter[] out = new RowData.FieldGetter[p.length];
            for (int i = 0; i < p.length; i++) {
                out[i] = RowData.createFieldGetter(types.get(id)[i], p[i]);
            }
            return out;
        });
        int hash = event.tableId().hashCode();
        for (RowData.FieldGetter getter : g) {
            Object v = getter.getFieldOrNull(event.row());
            hash = 31 * hash + (v instanceof byte[] ? Arrays.hashCode((byte[]) v) : Objects.hashCode(v));
        }
        return hash;
    }

    private int byPartition(ChangeEvent event) {
        TableId id = event.tableId();
        RowDataWrapper wrapper = wrappers.computeIfAbsent(
                id, t -> new RowDataWrapper(targets.get(t), schemas.get(t).asStruct()));
        PartitionKey key = partitionKeys.computeIfAbsent(id, t -> new PartitionKey(specs.get(t), schemas.get(t)));
        key.partition(wrapper.wrap(converters.get(id).convert(event.row())));
        return 31 * id.hashCode() + key.toPath().hashCode();
    }
}
