package io.inlet.core.table;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Describes one captured table: its {@link TableId}, columns, primary key, partition columns,
 * properties, comment and schema version. Sources produce descriptors, transforms map them and sinks
 * create or check their target tables from them. Immutable.
 *
 * <p>A primary key implies {@code NOT NULL}, as in SQL: the builder makes primary-key columns
 * non-nullable.
 *
 * <pre>{@code
 * TableDescriptor orders =
 *     TableDescriptor.builder(TableId.of("shop", "orders"))
 *         .column("id", DataTypes.BIGINT())
 *         .column("customer", DataTypes.STRING(), "who ordered")
 *         .column("amount", DataTypes.DECIMAL(10, 2))
 *         .primaryKey("id")
 *         .property("write.target-file-size-bytes", "134217728")
 *         .build();
 * RowType rowType = orders.toRowType();
 * }</pre>
 */
@PublicEvolving
public final class TableDescriptor implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TableId tableId;
    private final List<Column> columns;
    private final List<String> primaryKey;
    private final List<String> partitionKeys;
    private final Map<String, String> properties;

    @Nullable
    private final String comment;

    private final int schemaVersion;

    private TableDescriptor(Builder b) {
        this.tableId = b.tableId;
        this.columns = Collections.unmodifiableList(new ArrayList<>(b.columns));
        this.primaryKey = Collections.unmodifiableList(new ArrayList<>(b.primaryKey));
        this.partitionKeys = Collections.unmodifiableList(new ArrayList<>(b.partitionKeys));
        this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(b.properties));
        this.comment = b.comment;
        this.schemaVersion = b.schemaVersion;
    }

    /** Starts a descriptor for the given table. */
    public static Builder builder(TableId tableId) {
        return new Builder(tableId);
    }

    /** A builder that starts as a copy of this descriptor. */
    public Builder toBuilder() {
        Builder b = new Builder(tableId);
        b.columns.addAll(columns);
        b.primaryKey.addAll(primaryKey);
        b.partitionKeys.addAll(partitionKeys);
        b.properties.putAll(properties);
        b.comment = comment;
        b.schemaVersion = schemaVersion;
        return b;
    }

    /**
     * A descriptor from a Flink {@link ResolvedSchema}: its physical columns, comments and primary
     * key.
     */
    public static TableDescriptor fromResolvedSchema(TableId tableId, ResolvedSchema schema) {
        Builder b = builder(tableId);
        for (org.apache.flink.table.catalog.Column c : schema.getColumns()) {
            if (c.isPhysical()) {
                b.column(c.getName(), c.getDataType(), c.getComment().orElse(null));
            }
        }
        schema.getPrimaryKey().ifPresent(pk -> b.primaryKey(pk.getColumns()));
        return b.build();
    }

    public TableId tableId() {
        return tableId;
    }

    public List<Column> columns() {
        return columns;
    }

    public List<String> columnNames() {
        return columns.stream().map(Column::name).collect(Collectors.toList());
    }

    /** The column of that name, if any. */
    public Optional<Column> column(String name) {
        return columns.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /** Position of the column in the row, or -1. */
    public int indexOf(String columnName) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(columnName)) {
                return i;
            }
        }
        return -1;
    }

    /** Primary-key column names in key order; empty when the table has no primary key. */
    public List<String> primaryKey() {
        return primaryKey;
    }

    public boolean hasPrimaryKey() {
        return !primaryKey.isEmpty();
    }

    /** Row positions of the primary-key columns, in key order. */
    public int[] primaryKeyIndexes() {
        return primaryKey.stream().mapToInt(this::indexOf).toArray();
    }

    public List<String> partitionKeys() {
        return partitionKeys;
    }

    /** Free-form table properties (for example sink table properties); never null. */
    public Map<String, String> properties() {
        return properties;
    }

    public Optional<String> comment() {
        return Optional.ofNullable(comment);
    }

    /**
     * The version of this table's schema as the source saw it; starts at 1 and grows with every
     * schema change. Events carry the version their row was built with.
     */
    public int schemaVersion() {
        return schemaVersion;
    }

    /** The same table under another id. */
    public TableDescriptor withTableId(TableId newId) {
        Builder b = toBuilder();
        b.tableId = Objects.requireNonNull(newId, "tableId");
        return b.build();
    }

    /** The row type of this table's rows, with nullability. */
    public RowType toRowType() {
        LogicalType[] types = new LogicalType[columns.size()];
        String[] names = new String[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            types[i] = columns.get(i).type().getLogicalType();
            names[i] = columns.get(i).name();
        }
        return RowType.of(false, types, names);
    }

    /** The row as a Flink {@link DataType} ({@code ROW<...> NOT NULL}). */
    public DataType toRowDataType() {
        return DataTypes.ROW(columns.stream()
                        .map(c -> DataTypes.FIELD(c.name(), c.type()))
                        .toArray(DataTypes.Field[]::new))
                .notNull();
    }

    /** The schema as Flink's {@link ResolvedSchema}, with comments and the primary key. */
    public ResolvedSchema toResolvedSchema() {
        List<org.apache.flink.table.catalog.Column> flinkColumns = columns.stream()
                .map(c -> org.apache.flink.table.catalog.Column.physical(c.name(), c.type())
                        .withComment(c.comment().orElse(null)))
                .collect(Collectors.toList());
        UniqueConstraint pk = primaryKey.isEmpty()
                ? null
                : UniqueConstraint.primaryKey("PK_" + tableId.table().replaceAll("[^A-Za-z0-9_]", "_"), primaryKey);
        return new ResolvedSchema(flinkColumns, Collections.emptyList(), pk);
    }

    /** Whether both describe the same columns, keys and partitioning (ignoring id and version). */
    public boolean hasSameSchema(TableDescriptor other) {
        return columns.equals(other.columns)
                && primaryKey.equals(other.primaryKey)
                && partitionKeys.equals(other.partitionKeys);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TableDescriptor)) {
            return false;
        }
        TableDescriptor that = (TableDescriptor) o;
        return schemaVersion == that.schemaVersion
                && tableId.equals(that.tableId)
                && columns.equals(that.columns)
                && primaryKey.equals(that.primaryKey)
                && partitionKeys.equals(that.partitionKeys)
                && properties.equals(that.properties)
                && Objects.equals(comment, that.comment);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tableId, columns, primaryKey, partitionKeys, properties, schemaVersion);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(tableId).append(" v").append(schemaVersion).append(" (");
        sb.append(columns.stream().map(Column::toString).collect(Collectors.joining(", ")));
        if (!primaryKey.isEmpty()) {
            sb.append(", PRIMARY KEY (").append(String.join(", ", primaryKey)).append(")");
        }
        sb.append(")");
        if (!partitionKeys.isEmpty()) {
            sb.append(" PARTITIONED BY (")
                    .append(String.join(", ", partitionKeys))
                    .append(")");
        }
        return sb.toString();
    }

    /** Builds a {@link TableDescriptor}; {@link #build()} checks it. */
    @PublicEvolving
    public static final class Builder {
        private TableId tableId;
        private final List<Column> columns = new ArrayList<>();
        private final List<String> primaryKey = new ArrayList<>();
        private final List<String> partitionKeys = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();

        @Nullable
        private String comment;

        private int schemaVersion = 1;

        private Builder(TableId tableId) {
            this.tableId = Objects.requireNonNull(tableId, "tableId");
        }

        public Builder column(String name, DataType type) {
            return column(Column.of(name, type));
        }

        public Builder column(String name, DataType type, @Nullable String comment) {
            return column(Column.of(name, type).withComment(comment));
        }

        public Builder column(Column column) {
            columns.add(Objects.requireNonNull(column, "column"));
            return this;
        }

        public Builder columns(List<Column> newColumns) {
            columns.clear();
            newColumns.forEach(this::column);
            return this;
        }

        /** The primary key, in key order; replaces any earlier one. */
        public Builder primaryKey(String... columnNames) {
            return primaryKey(List.of(columnNames));
        }

        /** The primary key, in key order; an empty list removes it. */
        public Builder primaryKey(List<String> columnNames) {
            primaryKey.clear();
            primaryKey.addAll(columnNames);
            return this;
        }

        public Builder partitionKeys(String... columnNames) {
            return partitionKeys(List.of(columnNames));
        }

        public Builder partitionKeys(List<String> columnNames) {
            partitionKeys.clear();
            partitionKeys.addAll(columnNames);
            return this;
        }

        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key), Objects.requireNonNull(value, key));
            return this;
        }

        public Builder properties(Map<String, String> newProperties) {
            newProperties.forEach(this::property);
            return this;
        }

        public Builder comment(@Nullable String newComment) {
            this.comment = newComment == null || newComment.isEmpty() ? null : newComment;
            return this;
        }

        public Builder schemaVersion(int version) {
            this.schemaVersion = version;
            return this;
        }

        /**
         * Checks and builds the descriptor.
         *
         * @throws IllegalArgumentException naming the table and the problem: no columns, a duplicate
         *     column name, a key or partition column that is not a column, a version below 1
         */
        public TableDescriptor build() {
            if (columns.isEmpty()) {
                throw new IllegalArgumentException(
                        "Table " + tableId + " has no columns; add at least one with column(...).");
            }
            Set<String> names = new HashSet<>();
            for (Column c : columns) {
                if (!names.add(c.name())) {
                    throw new IllegalArgumentException(
                            "Table " + tableId + " has the column '" + c.name() + "' twice.");
                }
            }
            checkColumns("primary key", primaryKey, names);
            checkColumns("partition", partitionKeys, names);
            if (new HashSet<>(primaryKey).size() != primaryKey.size()) {
                throw new IllegalArgumentException(
                        "The primary key of table " + tableId + " names a column twice: " + primaryKey);
            }
            if (schemaVersion < 1) {
                throw new IllegalArgumentException(
                        "The schema version of table " + tableId + " must be 1 or more, was " + schemaVersion);
            }
            // PRIMARY KEY implies NOT NULL, as in SQL; Flink's ResolvedSchema insists on it too.
            for (int i = 0; i < columns.size(); i++) {
                Column c = columns.get(i);
                if (primaryKey.contains(c.name()) && c.isNullable()) {
                    columns.set(i, c.withType(c.type().notNull()));
                }
            }
            return new TableDescriptor(this);
        }

        private void checkColumns(String what, List<String> keyColumns, Set<String> names) {
            for (String k : keyColumns) {
                if (!names.contains(k)) {
                    throw new IllegalArgumentException("The "
                            + what
                            + " column '"
                            + k
                            + "' of table "
                            + tableId
                            + " is not one of its columns "
                            + names.stream().sorted().collect(Collectors.toList())
                            + ".");
                }
            }
        }
    }
}
