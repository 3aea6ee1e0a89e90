package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.PrimaryKeySelector;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.MathUtils;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keys the changes for {@link TablesWriter}: by table and primary key ({@link PrimaryKeySelector}),
 * so all changes of one row reach one writer subtask, in order. With {@code distribution-mode=hash},
 * a partitioned table's rows are keyed by their partition instead (fewer files per partition; upsert
 * tables' partition columns are key columns, so a key's changes still stay together).
 */
@Internal
public final class TableKeySelector implements KeySelector<ChangeEvent, String> {

    private static final long serialVersionUID = 1L;

    private final PrimaryKeySelector byPrimaryKey;

    /** Tables keyed by partition: how their rows become the table's rows, and its partitioning. */
    private final HashMap<TableId, IcebergRowConverter> converters = new HashMap<>();

    private final HashMap<TableId, RowType> targets = new HashMap<>();
    private final HashMap<TableId, Schema> schemas = new HashMap<>();
    private final HashMap<TableId, PartitionSpec> specs = new HashMap<>();

    private transient Map<TableId, RowDataWrapper> wrappers;
    private transient Map<TableId, PartitionKey> partitionKeys;

    /**
     * @param byPartition the tables to key by partition (partitioned ones): their Iceberg table
     */
    public TableKeySelector(List<TableDescriptor> tables, Map<TableId, Table> byPartition) {
        this.byPrimaryKey = new PrimaryKeySelector(tables);
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
    }

    /**
     * Spreads the keys over the writer subtasks by their hash. The writer keeps no keyed state, so it takes a
     * custom partitioning rather than a keyed stream, which would compute every row's key a second time in the
     * writer to set a key context nothing reads.
     */
    public static final class ByHash implements Partitioner<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(String key, int subtasks) {
            return MathUtils.murmurHash(key.hashCode()) % subtasks;
        }
    }

    @Override
    public String getKey(ChangeEvent event) throws Exception {
        TableId id = event.tableId();
        if (!specs.containsKey(id)) {
            return byPrimaryKey.getKey(event);
        }
        if (wrappers == null) {
            wrappers = new HashMap<>();
            partitionKeys = new HashMap<>();
        }
        RowDataWrapper wrapper = wrappers.computeIfAbsent(
                id, t -> new RowDataWrapper(targets.get(t), schemas.get(t).asStruct()));
        PartitionKey key = partitionKeys.computeIfAbsent(id, t -> new PartitionKey(specs.get(t), schemas.get(t)));
        key.partition(wrapper.wrap(converters.get(id).convert(event.row())));
        return id.identifier() + '\u0000' + key.toPath();
    }
}
