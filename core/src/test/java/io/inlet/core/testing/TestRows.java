package io.inlet.core.testing;

import io.inlet.core.table.TableDescriptor;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * Converts between rows of plain Java values (String, BigDecimal, LocalDateTime, Instant, byte[],
 * ...: Flink's default conversion classes) and Flink's internal {@link RowData}, for a table.
 */
public final class TestRows {

    private TestRows() {}

    /** A row of the table from plain Java values in column order. */
    public static GenericRowData row(TableDescriptor table, RowKind kind, Object... values) {
        if (values.length != table.columns().size()) {
            throw new IllegalArgumentException("Table " + table.tableId() + " has "
                    + table.columns().size() + " columns, got " + values.length + " values");
        }
        GenericRowData row = new GenericRowData(kind, values.length);
        for (int i = 0; i < values.length; i++) {
            row.setField(i, converter(table.columns().get(i).type()).toInternalOrNull(values[i]));
        }
        return row;
    }

    /** The row's values as plain Java values. */
    public static List<Object> values(TableDescriptor table, RowData row) {
        RowType type = table.toRowType();
        List<Object> out = new ArrayList<>(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            Object internal = RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row);
            out.add(converter(table.columns().get(i).type()).toExternalOrNull(internal));
        }
        return out;
    }

    /** The row as {@code v1, v2, ...}, byte arrays as their contents, NULL as {@code null}. */
    public static String format(TableDescriptor table, RowData row) {
        StringJoiner j = new StringJoiner(", ");
        for (Object v : values(table, row)) {
            // deepToString renders byte[] and Integer[] by content; strip its outer brackets.
            String s = Arrays.deepToString(new Object[] {v});
            j.add(s.substring(1, s.length() - 1));
        }
        return j.toString();
    }

    private static DataStructureConverter<Object, Object> converter(DataType type) {
        DataStructureConverter<Object, Object> c = DataStructureConverters.getConverter(type);
        c.open(TestRows.class.getClassLoader());
        return c;
    }
}
