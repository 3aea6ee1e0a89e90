package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keys change events by table and primary-key values (by table alone for tables without a key), so
 * that all changes of one row reach the same subtask in order, as {@link ChangeSink#addSink} asks of
 * sinks that write in parallel. The key is a String, the same in every JVM (binary values as hex):
 * Flink serializes it without Kryo.
 *
 * <pre>{@code
 * stream.keyBy(new PrimaryKeySelector(context.tables())).transform(...);
 * }</pre>
 */
@PublicEvolving
public final class PrimaryKeySelector implements KeySelector<ChangeEvent, String> {

    private static final long serialVersionUID = 1L;

    private final List<TableDescriptor> tables;
    private transient Map<TableId, RowData.FieldGetter[]> getters;

    public PrimaryKeySelector(List<TableDescriptor> tables) {
        this.tables = tables;
    }

    @Override
    public String getKey(ChangeEvent event) {
        if (getters == null) {
            Map<TableId, RowData.FieldGetter[]> m = new HashMap<>();
            for (TableDescriptor t : tables) {
                RowType type = t.toRowType();
                int[] pk = t.primaryKeyIndexes();
                RowData.FieldGetter[] g = new RowData.FieldGetter[pk.length];
                for (int i = 0; i < pk.length; i++) {
                    g[i] = RowData.createFieldGetter(type.getTypeAt(pk[i]), pk[i]);
                }
                m.put(t.tableId(), g);
            }
            getters = m;
        }
        StringBuilder key = new StringBuilder(event.tableId().identifier());
        RowData.FieldGetter[] g = getters.get(event.tableId());
        if (g != null) {
            for (RowData.FieldGetter getter : g) {
                Object v = getter.getFieldOrNull(event.row());
                key.append('\u0000');
                if (v instanceof byte[]) {
                    for (byte x : (byte[]) v) {
                        key.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
                    }
                } else {
                    key.append(v);
                }
            }
        }
        return key.toString();
    }
}
