package io.inlet.sink.iceberg.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.MathUtils;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Routes the changes for {@link TablesWriter}: by a hash of table and primary key, so all changes of
 * one row reach one writer subtask, in order (tables without a key: by table). With {@code
 * distribution-mode=hash}, a partitioned table's rows go by their partition instead (fewer files per
 * partition; upsert tables' partition columns are key columns, so a key's changes still stay
 * together). The hash is computed from the values (Flink's data classes hash by value), so every
 * upstream subtask, in any JVM, sends a key to the same writer; no string is built per row.
 */
@Internal
public final class TableKeySelector implements KeySelector<ChangeEvent, Integer> {

    private static final long serialVersionUID = 1L;

    private final List<TableDescriptor> tables;

    /** Tables keyed by partition: how their rows become the table's rows, and its partitioning. */
    private final HashMap<TableId, IcebergRowConverter> converters = new HashMap<>();

    private final HashMap<TableId, RowType> targets = new HashMap<>();
    private final HashMap<TableId, Schema> schemas = new HashMap<>();
    private final HashMap<TableId, PartitionSpec> specs = new HashMap<>();

    private transient Map<TableId, Route> routes;

    /** How one table's rows are routed. */
    private static final class Route {
        /**
         * Routes of the table's rows of versions born while the job runs, by row type: version numbers are
         * each source reader's own (Kafka partitions read by several readers meet a change at different
         * points), row types are the same everywhere.
         */
        final Map<RowType, Route> versions = new HashMap<>();

        /** The last row type met and its route: rows of one type come in runs (RowType hashes deeply). */
        RowType lastType;

        Route lastRoute;

        final String identifier;
        final int tableHash;
        /** The primary key's getters; null for a table routed by partition. */
        final RowData.FieldGetter[] key;

        final IcebergRowConverter converter;
        final RowDataWrapper wrapper;
        final PartitionKey partition;

        Route(String identifier, RowData.FieldGetter[] key) {
            this.identifier = identifier;
            this.tableHash = identifier.hashCode();
            this.key = key;
            this.converter = null;
            this.wrapper = null;
            this.partition = null;
        }

        Route(String identifier, IcebergRowConverter converter, RowDataWrapper wrapper, PartitionKey partition) {
            this.identifier = identifier;
            this.tableHash = identifier.hashCode();
            this.key = null;
            this.converter = converter;
            this.wrapper = wrapper;
            this.partition = partition;
        }
    }

    /**
     * @param byPartition the tables to key by partition (partitioned ones): their Iceberg table
     */
    public TableKeySelector(List<TableDescriptor> tables, Map<TableId, Table> byPartition) {
        this.tables = new ArrayList<>(tables);
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
     * Spreads the keys over the writer subtasks. The writer keeps no keyed state, so it takes a custom
     * partitioning rather than a keyed stream, which would compute every row's key a second time in the
     * writer to set a key context nothing reads.
     */
    public static final class ByHash implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int subtasks) {
            return MathUtils.murmurHash(key) % subtasks;
        }
    }

    @Override
    public Integer getKey(ChangeEvent event) {
        if (routes == null) {
            routes = routes();
        }
        Route route = routes.get(event.tableId());
        if (route == null) {
            throw new IllegalStateException(
                    "The Iceberg sink got an event of table " + event.tableId() + ", which it was not built for.");
        }
        if (event.rowType().isPresent()) {
            Route declared = route;
            RowType type = event.rowType().get();
            if (type != declared.lastType) {
                declared.lastRoute =
                        declared.versions.computeIfAbsent(type, t -> versionRoute(declared, event.tableId(), t));
                declared.lastType = type;
            }
            route = declared.lastRoute;
        }
        if (route.key == null) {
            route.partition.partition(route.wrapper.wrap(route.converter.convert(event.row())));
            return (route.identifier + '\u0000' + route.partition.toPath()).hashCode();
        }
        int h = route.tableHash;
        RowData row = event.row();
        for (RowData.FieldGetter getter : route.key) {
            Object v = getter.getFieldOrNull(row);
            h = 31 * h + hash(v);
        }
        return h;
    }

    /**
     * A key value's hash. Integers of any width hash as the long they are, so a key column widened while the
     * job runs (INT to BIGINT) keeps sending each key to its writer: a negative Integer and the same Long
     * hash differently, and a key's changes split over two writers would commit in one snapshot unordered.
     */
    static int hash(Object v) {
        if (v == null) {
            return 0;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return Long.hashCode(((Number) v).longValue());
        }
        return v instanceof byte[] ? Arrays.hashCode((byte[]) v) : v.hashCode();
    }

    /**
     * The route of rows of another version of a table: the same key columns found by name (a schema change
     * that changes the key stops the job before), the same partitioning of the rows matched by name.
     */
    private Route versionRoute(Route declared, TableId id, RowType type) {
        if (declared.key == null) {
            return new Route(
                    declared.identifier,
                    IcebergRowConverter.byName(type, targets.get(id)),
                    new RowDataWrapper(targets.get(id), schemas.get(id).asStruct()),
                    new PartitionKey(specs.get(id), schemas.get(id)));
        }
        TableDescriptor t =
                tables.stream().filter(d -> d.tableId().equals(id)).findFirst().orElseThrow();
        RowData.FieldGetter[] g = new RowData.FieldGetter[t.primaryKey().size()];
        for (int i = 0; i < g.length; i++) {
            int pos = type.getFieldIndex(t.primaryKey().get(i));
            if (pos < 0) {
                // The same on every restart: a stop, not a failure to retry.
                throw new InletStopException("Rows of " + id + " of type " + type.asSummaryString()
                        + " lack the primary-key column '" + t.primaryKey().get(i) + "'; the Iceberg sink"
                        + " routes rows by their key and cannot follow a key column renamed or dropped while"
                        + " the job runs.");
            }
            g[i] = RowData.createFieldGetter(type.getTypeAt(pos), pos);
        }
        return new Route(declared.identifier, g);
    }

    private Map<TableId, Route> routes() {
        Map<TableId, Route> m = new HashMap<>();
        for (TableDescriptor t : tables) {
            TableId id = t.tableId();
            if (specs.containsKey(id)) {
                m.put(
                        id,
                        new Route(
                                id.identifier(),
                                converters.get(id),
                                new RowDataWrapper(
                                        targets.get(id), schemas.get(id).asStruct()),
                                new PartitionKey(specs.get(id), schemas.get(id))));
            } else {
                RowType type = t.toRowType();
                int[] pk = t.primaryKeyIndexes();
                RowData.FieldGetter[] g = new RowData.FieldGetter[pk.length];
                for (int i = 0; i < pk.length; i++) {
                    g[i] = RowData.createFieldGetter(type.getTypeAt(pk[i]), pk[i]);
                }
                m.put(id, new Route(id.identifier(), g));
            }
        }
        return m;
    }
}
