package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.transform.internal.ColumnLists;
import io.inlet.core.transform.internal.FollowedTables;
import io.inlet.core.transform.internal.MetadataColumns;
import io.inlet.core.transform.internal.MetadataFunction;
import io.inlet.core.transform.internal.TableSelector;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;

/**
 * Appends metadata columns to the rows of the selected tables:
 *
 * <ul>
 *   <li>{@code _op} {@code STRING NOT NULL}: the change kind, {@code +I}, {@code -U}, {@code +U} or
 *       {@code -D};
 *   <li>{@code _source_ts} {@code TIMESTAMP_LTZ(3)}: when the change happened in the source (NULL
 *       where the source does not say, for example snapshot rows);
 *   <li>{@code _ingested_at} {@code TIMESTAMP_LTZ(3) NOT NULL}: when the pipeline processed it.
 * </ul>
 *
 * <p>The metadata columns stay last when a table's schema changes while the job runs: an added
 * column comes before them.
 *
 * <pre>{@code
 * ChangeTransform audit = MetadataTransform.builder()
 *     .columns("_op, _source_ts AS changed_at")
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class MetadataTransform implements ChangeTransform {

    /** The metadata a column can hold. */
    @PublicEvolving
    public enum Kind {
        OP("_op", DataTypes.STRING().notNull()),
        SOURCE_TS("_source_ts", DataTypes.TIMESTAMP_LTZ(3)),
        INGESTED_AT("_ingested_at", DataTypes.TIMESTAMP_LTZ(3).notNull());

        private final String defaultName;
        private final DataType type;

        Kind(String defaultName, DataType type) {
            this.defaultName = defaultName;
            this.type = type;
        }

        public String defaultName() {
            return defaultName;
        }

        public DataType type() {
            return type;
        }
    }

    private final TableSelector selector;
    private final LinkedHashMap<Kind, String> columns;

    private MetadataTransform(TableSelector selector, LinkedHashMap<Kind, String> columns) {
        this.selector = selector;
        this.columns = columns;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "metadata";
    }

    @Override
    public List<TableDescriptor> transformTables(List<TableDescriptor> input) {
        selector.select("metadata", input);
        List<String> problems = new ArrayList<>();
        List<TableDescriptor> out = new ArrayList<>();
        MetadataColumns planner = new MetadataColumns(columns);
        for (TableDescriptor t : input) {
            if (!selector.matches(t.tableId())) {
                out.add(t);
                continue;
            }
            try {
                out.add(planner.output(t, planner.prepare(t)));
            } catch (InletValidationException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return out;
    }

    @Override
    public DataStream<ChangeEvent> apply(DataStream<ChangeEvent> input, TransformContext context) {
        MetadataColumns planner = new MetadataColumns(columns);
        return input.map(
                        new MetadataFunction(
                                planner.kinds(),
                                new FollowedTables<>("metadata", selector, context.inputTables(), planner)),
                        context.outputTypeInfo())
                .name("Metadata: " + String.join(", ", columns.values()))
                .uid(context.uid("metadata"))
                // Same parallelism as the input: chained, so each row's changes stay in order.
                .setParallelism(input.getParallelism());
    }

    @Override
    public String toString() {
        return "MetadataTransform{source-table=" + selector.regex() + ", columns=" + columns + "}";
    }

    /** Builds a {@link MetadataTransform}. */
    @PublicEvolving
    public static final class Builder {
        private String sourceTable = CoreOptions.SOURCE_TABLE.defaultValue();
        private String columns = CoreOptions.METADATA_COLUMNS.defaultValue();

        private Builder() {}

        /** The tables to extend: a regular expression over {@code database.table}; default all. */
        public Builder sourceTable(String regex) {
            this.sourceTable = regex;
            return this;
        }

        /** The columns, see {@link CoreOptions#METADATA_COLUMNS}; default all three. */
        public Builder columns(String list) {
            this.columns = list;
            return this;
        }

        public MetadataTransform build() {
            LinkedHashMap<Kind, String> cols = new LinkedHashMap<>();
            for (ColumnLists.Item i : ColumnLists.parse("metadata", CoreOptions.METADATA_COLUMNS.key(), columns)) {
                Kind kind = null;
                for (Kind k : Kind.values()) {
                    if (k.defaultName().equals(i.name.toLowerCase(Locale.ROOT))) {
                        kind = k;
                    }
                }
                if (kind == null) {
                    throw new InletValidationException("metadata: unknown metadata column '"
                            + i.name
                            + "' in 'metadata-columns'; choose from _op, _source_ts, _ingested_at.");
                }
                if (cols.containsKey(kind)) {
                    throw new InletValidationException(
                            "metadata: '" + i.name + "' is listed twice in 'metadata-columns'.");
                }
                if (cols.containsValue(i.alias)) {
                    throw new InletValidationException("metadata: two metadata columns are named '" + i.alias + "'.");
                }
                cols.put(kind, i.alias);
            }
            return new MetadataTransform(TableSelector.of("metadata", sourceTable), cols);
        }
    }
}
