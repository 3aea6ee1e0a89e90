package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The keys one snapshot's equality deletes (of keys only, as upsert writers write them) delete, for
 * one set of equality fields: which rows of an older file they remove, and whether a file can hold
 * any of them at all (by its key column's bounds, when the key is one integer column).
 */
@Internal
final class DeletedKeys {

    private final Schema keySchema;
    private final int[] positions;
    private final RowData.FieldGetter[] rowGetters;
    private final RowData.FieldGetter[] keyGetters;
    private final Set<List<Object>> keys = new HashSet<>();

    /** For one integer key column: its field id and the deleted values, sorted. */
    private final Integer boundedFieldId;

    private final TreeSet<Long> sorted = new TreeSet<>();

    /**
     * @param schema the read schema, in which the rows to test come
     * @param equalityFieldIds the delete files' equality fields
     */
    DeletedKeys(Schema schema, Set<Integer> equalityFieldIds) {
        this.keySchema = TypeUtil.select(schema, equalityFieldIds);
        RowType rowType = FlinkSchemaUtil.convert(schema);
        RowType keyType = FlinkSchemaUtil.convert(keySchema);
        List<Types.NestedField> keyColumns = keySchema.columns();
        positions = new int[keyColumns.size()];
        rowGetters = new RowData.FieldGetter[positions.length];
        keyGetters = new RowData.FieldGetter[positions.length];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = rowType.getFieldIndex(keyColumns.get(i).name());
            rowGetters[i] = RowData.createFieldGetter(rowType.getTypeAt(positions[i]), positions[i]);
            keyGetters[i] = RowData.createFieldGetter(keyType.getTypeAt(i), i);
        }
        LogicalTypeRoot root =
                keyType.getFieldCount() == 1 ? keyType.getTypeAt(0).getTypeRoot() : null;
        boundedFieldId = root == LogicalTypeRoot.BIGINT || root == LogicalTypeRoot.INTEGER
                ? keyColumns.get(0).fieldId()
                : null;
    }

    /** The projection a delete file of these keys is read with. */
    Schema keySchema() {
        return keySchema;
    }

    /** Adds a key, a row of {@link #keySchema()}. */
    void add(RowData key) {
        List<Object> values = new ArrayList<>(keyGetters.length);
        for (RowData.FieldGetter g : keyGetters) {
            values.add(normalized(g.getFieldOrNull(key)));
        }
        keys.add(values);
        if (boundedFieldId != null && values.get(0) != null) {
            sorted.add(((Number) values.get(0)).longValue());
        }
    }

    /** Whether the row's key is one of them. */
    boolean deletes(RowData row) {
        List<Object> values = new ArrayList<>(rowGetters.length);
        for (RowData.FieldGetter g : rowGetters) {
            values.add(normalized(g.getFieldOrNull(row)));
        }
        return keys.contains(values);
    }

    /** False only when the file's bounds of an integer key hold none of the keys: it need not be read. */
    boolean mayDeleteFrom(DataFile file) {
        if (keys.isEmpty()) {
            return false;
        }
        if (boundedFieldId == null || keys.size() != sorted.size()) {
            return true; // several columns, another type, or a null key: read the file
        }
        Map<Integer, ByteBuffer> lower = file.lowerBounds();
        Map<Integer, ByteBuffer> upper = file.upperBounds();
        if (lower == null
                || upper == null
                || !lower.containsKey(boundedFieldId)
                || !upper.containsKey(boundedFieldId)) {
            return true;
        }
        Types.NestedField field = keySchema.findField(boundedFieldId);
        long low = ((Number) Conversions.fromByteBuffer(field.type(), lower.get(boundedFieldId))).longValue();
        long high = ((Number) Conversions.fromByteBuffer(field.type(), upper.get(boundedFieldId))).longValue();
        Long first = sorted.ceiling(low);
        return first != null && first <= high;
    }

    /** Byte arrays compare by content. */
    private static Object normalized(Object value) {
        return value instanceof byte[]
                ? ByteBuffer.wrap(Arrays.copyOf((byte[]) value, ((byte[]) value).length))
                : value;
    }
}
