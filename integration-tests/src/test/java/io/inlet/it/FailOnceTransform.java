package io.inlet.it;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.FailureInjection;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.List;

/** Passes events through and fails the job once when it sees a row whose column 1 (or another) holds a marker. */
final class FailOnceTransform implements ChangeTransform {

    private final String table;
    private final int column;
    private final String marker;
    private final String key = FailureInjection.newKey();

    FailOnceTransform(String table, String marker) {
        this(table, 1, marker);
    }

    /** Fails at the first row whose column at {@code column} (a string column of the version met) holds the marker. */
    FailOnceTransform(String table, int column, String marker) {
        this.table = table;
        this.column = column;
        this.marker = marker;
    }

    boolean fired() {
        return FailureInjection.fired(key);
    }

    @Override
    public String name() {
        return "fail-once";
    }

    @Override
    public List<TableDescriptor> transformTables(List<TableDescriptor> input) {
        return input;
    }

    @Override
    public DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context) {
        return input.map(new FailOnce(table, column, marker, key), context.outputTypeInfo())
                .setParallelism(input.getParallelism())
                .uid(context.uid("fail-once"));
    }

    private static final class FailOnce implements MapFunction<ChangeEvent, ChangeEvent> {
        private static final long serialVersionUID = 1L;
        private final String table;
        private final int column;
        private final String marker;
        private final String key;

        FailOnce(String table, int column, String marker, String key) {
            this.table = table;
            this.column = column;
            this.marker = marker;
            this.key = key;
        }

        @Override
        public ChangeEvent map(ChangeEvent e) {
            if (!e.isSchemaChange()
                    && e.tableId().table().equals(table)
                    && e.row().getArity() > column
                    && !e.row().isNullAt(column)
                    && marker.equals(e.row().getString(column).toString())) {
                FailureInjection.failOnce(key, "the row '" + marker + "' of " + e.tableId() + " at " + e.position());
            }
            return e;
        }
    }
}
