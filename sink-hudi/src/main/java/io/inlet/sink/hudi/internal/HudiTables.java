package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.util.MiniJson;
import io.inlet.sink.hudi.HudiSinkOptions;

import org.apache.avro.Schema;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads an existing Hudi table's configuration ({@code .hoodie/hoodie.properties}) through Hadoop's
 * file system API and compares it with what the sink would write: table type, record key,
 * precombine field, partition fields and columns. The schema there is plain Avro JSON, read with
 * Apache Avro, not the bundle's relocated copy.
 */
@Internal
public final class HudiTables {

    private HudiTables() {}

    /**
     * The Hadoop configuration of the sink's own reads and writes of its tables: Hadoop's defaults
     * (core-default.xml, which maps {@code s3a://} to S3A) and the options' {@code hadoop.*} entries, the
     * same ones Hudi's writer applies to its own; no *-site.xml from a class path or HADOOP_CONF_DIR.
     */
    public static Configuration hadoopConf(Map<String, String> options) {
        Configuration conf = new Configuration(false);
        conf.addResource("core-default.xml");
        options.forEach((k, v) -> {
            if (k.startsWith(HudiSinkOptions.HADOOP_PREFIX)) {
                conf.set(k.substring(HudiSinkOptions.HADOOP_PREFIX.length()), v);
            }
        });
        return conf;
    }

    /** The table's properties, or empty when there is no Hudi table at the path. */
    public static Optional<Properties> properties(String basePath, Configuration hadoopConf) throws IOException {
        Path file = new Path(new Path(basePath, ".hoodie"), "hoodie.properties");
        FileSystem fs = file.getFileSystem(hadoopConf);
        if (!fs.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (InputStream in = fs.open(file)) {
            p.load(in);
        }
        return Optional.of(p);
    }

    /**
     * The table's schema now: the writer schema of its newest completed commit that records one (Hudi
     * keeps it in the commit's metadata, key {@code schema}); the schema it was created with when no
     * commit records one. A table the sink brought along to a new column has it only in its commits.
     */
    public static Optional<Schema> currentSchema(String basePath, Properties existing, Configuration hadoopConf)
            throws IOException {
        Path timeline = new Path(basePath, ".hoodie");
        FileSystem fs = timeline.getFileSystem(hadoopConf);
        List<Path> commits = new ArrayList<>();
        if (fs.exists(timeline)) {
            for (FileStatus s : fs.listStatus(timeline)) {
                String name = s.getPath().getName();
                // Completed instants only: <time>.commit, .deltacommit, .replacecommit (no .inflight/.requested).
                if (s.isFile() && COMPLETED.matcher(name).matches()) {
                    commits.add(s.getPath());
                }
            }
        }
        commits.sort(Comparator.comparing((Path c) -> c.getName()).reversed());
        for (Path commit : commits) {
            String text;
            try (InputStream in = fs.open(commit)) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (text.isBlank()) {
                continue; // an instant without metadata (nothing written)
            }
            Object meta = MiniJson.parse(text);
            Object extra = meta instanceof Map ? ((Map<?, ?>) meta).get("extraMetadata") : null;
            Object schema = extra instanceof Map ? ((Map<?, ?>) extra).get("schema") : null;
            if (schema instanceof String && !((String) schema).isBlank()) {
                return Optional.of(new Schema.Parser().parse((String) schema));
            }
        }
        String created = existing.getProperty("hoodie.table.create.schema");
        return created == null ? Optional.empty() : Optional.of(new Schema.Parser().parse(created));
    }

    private static final Pattern COMPLETED = Pattern.compile("\\d+\\.(commit|deltacommit|replacecommit)");

    /**
     * The table's delta commits that are requested or in flight, not completed: a writer's instant that a
     * job restored from its checkpoint recommits, or rolls back, once its writers start.
     */
    public static Set<String> pendingWrites(String basePath, Configuration hadoopConf) throws IOException {
        Path timeline = new Path(basePath, ".hoodie");
        FileSystem fs = timeline.getFileSystem(hadoopConf);
        Set<String> started = new TreeSet<>();
        Set<String> completed = new HashSet<>();
        if (fs.exists(timeline)) {
            for (FileStatus s : fs.listStatus(timeline)) {
                String name = s.getPath().getName();
                int dot = name.indexOf('.');
                if (!s.isFile() || dot < 0) {
                    continue;
                }
                String time = name.substring(0, dot);
                String action = name.substring(dot + 1);
                if (action.equals("deltacommit")) {
                    completed.add(time);
                } else if (action.equals("deltacommit.inflight") || action.equals("deltacommit.requested")) {
                    started.add(time);
                }
            }
        }
        started.removeAll(completed);
        return started;
    }

    /** Whether the table's schema (as created) has the column. */
    public static boolean hasColumn(Properties existing, String column) {
        String schemaText = existing.getProperty("hoodie.table.create.schema");
        return schemaText != null && new Schema.Parser().parse(schemaText).getField(column) != null;
    }

    /**
     * Differences between the existing table (its schema now: {@code current}) and the one the sink
     * would write; empty when none. With {@code schemaChangesFollowed} the rows may have columns the
     * table lacks, or a column narrower than the table holds it (see {@link HudiColumns}); never lack
     * one the table has (unless {@code droppedColumnsKept}: the source keeps dropped and renamed columns in
     * the lake, and the rows leave them NULL), or have one wider.
     */
    public static List<String> differences(
            String basePath,
            Properties existing,
            @Nullable Schema current,
            TableDescriptor t,
            String tableType,
            String precombine,
            List<String> partitionFields,
            boolean precombineAdded,
            boolean schemaChangesFollowed,
            boolean droppedColumnsKept) {
        List<String> problems = new ArrayList<>();
        String where = "The existing Hudi table at " + basePath;
        String type = existing.getProperty("hoodie.table.type");
        if (type != null && !type.equalsIgnoreCase(tableType)) {
            problems.add(where + " is " + type + ", not " + tableType + ". Set 'table.type' = '" + type
                    + "' or write to another path.");
        }
        List<String> keys = split(existing.getProperty("hoodie.table.recordkey.fields"));
        if (!keys.isEmpty() && !keys.equals(t.primaryKey())) {
            problems.add(where + " has the record key " + keys + " but " + t.tableId() + " has the primary key "
                    + t.primaryKey() + ". Write to another path, or rebuild the table with the key.");
        }
        String oldPrecombine = existing.getProperty("hoodie.table.precombine.field");
        if (precombineAdded && "_source_ts".equals(oldPrecombine)) {
            problems.add(where
                    + " orders versions of a row by '_source_ts', the source timestamp an earlier Inlet wrote:"
                    + " whole seconds from MySQL and 0 for snapshot rows, so changes within a second"
                    + " tie and a new snapshot"
                    + " never corrects a row. This version orders them by '_source_position', the change's place in the"
                    + " binlog, and will not mix the two in one table. Fix: write the table anew (delete " + basePath
                    + " or set another 'path', and start the job without state: its snapshot fills the table).");
            return problems;
        }
        if (oldPrecombine != null && !oldPrecombine.equals(precombine)) {
            problems.add(where + " orders versions by '" + oldPrecombine + "', the sink by '" + precombine
                    + "'. Set 'precombine.field' = '" + oldPrecombine + "'.");
        }
        List<String> oldPartitions = split(existing.getProperty("hoodie.table.partition.fields"));
        if (!oldPartitions.equals(partitionFields)) {
            problems.add(where + " is partitioned by " + oldPartitions + ", the sink would partition by "
                    + partitionFields + ". Set 'partition-fields." + t.tableId() + "' to match.");
        }
        if (current != null) {
            Schema schema = current;
            List<String> tableColumns = schema.getFields().stream()
                    .map(Schema.Field::name)
                    .filter(n -> !n.startsWith("_hoodie_"))
                    .collect(Collectors.toList());
            List<String> rowColumns = new ArrayList<>(t.columnNames());
            if (precombineAdded) {
                rowColumns.add(precombine);
            }
            if (schemaChangesFollowed) {
                problems.addAll(evolvable(where, schema, tableColumns, rowColumns, t, droppedColumnsKept));
            } else if (!tableColumns.equals(rowColumns)) {
                problems.add(where + " has the columns " + tableColumns + ", the rows of " + t.tableId() + " have "
                        + rowColumns + ". Align the table or write to another path.");
            } else {
                for (Column c : t.columns()) {
                    Schema field = schema.getField(c.name()).schema();
                    LogicalType columnType = c.type().getLogicalType();
                    if (!HudiColumns.storedAs(field, columnType)) {
                        problems.add(where + " stores column '" + c.name() + "' as Avro "
                                + HudiColumns.describe(field) + ", but " + t.tableId() + " has it as "
                                + columnType.asSummaryString() + " (Avro " + HudiColumns.avroBase(columnType) + ").");
                    }
                }
            }
        }
        return problems;
    }

    /** What keeps the rows from being written on into the table's columns after schema changes. */
    private static List<String> evolvable(
            String where,
            Schema schema,
            List<String> tableColumns,
            List<String> rowColumns,
            TableDescriptor t,
            boolean droppedColumnsKept) {
        List<String> problems = new ArrayList<>();
        for (String column : tableColumns) {
            if (rowColumns.contains(column)) {
                continue;
            }
            Schema field = schema.getField(column).schema();
            if (droppedColumnsKept && HudiColumns.flinkType(field) == null) {
                problems.add(where + " has a column '" + column + "' the rows of " + t.tableId() + " do not have,"
                        + " stored as Avro " + HudiColumns.describe(field) + ", which the sink cannot write on"
                        + " as NULL (it writes no such column). Write to another path.");
            } else if (!droppedColumnsKept) {
                problems.add(where + " has a column '" + column + "' the rows of " + t.tableId() + " do not have"
                        + " (dropped or renamed at the source; columns now: " + rowColumns + "). Hudi 0.14 writes"
                        + " whole rows, so each row written would overwrite its value with NULL. Keep the column"
                        + " at the source, write to another path, or, to keep the column's values in the rows"
                        + " that do not change, set 'exclude.schema.changes' = 'drop.column, rename.column' (or"
                        + " 'schema-change.behavior' = 'lenient') on the source.");
            }
        }
        for (Column c : t.columns()) {
            Schema.Field f = schema.getField(c.name());
            if (f == null) {
                continue; // added at the source: the sink writes it on, nullable
            }
            LogicalType want = HudiColumns.written(c.type().getLogicalType());
            LogicalType have = HudiColumns.numeric(f.schema());
            if (have != null && HudiColumns.widens(have, want)) {
                problems.add(where + " stores column '" + c.name() + "' as " + have.asSummaryString() + ", but "
                        + t.tableId() + " has it as "
                        + c.type().getLogicalType().asSummaryString() + ". "
                        + HudiColumns.NO_WIDENING + ".");
                continue;
            }
            // The same storage, or a source type narrower than the column (it stays); nothing else reads right.
            boolean fits = HudiColumns.storedAs(f.schema(), want) || (have != null && HudiColumns.widens(want, have));
            if (!fits) {
                problems.add(where + " stores column '" + c.name() + "' as Avro " + HudiColumns.describe(f.schema())
                        + (have == null ? "" : " (" + have.asSummaryString() + ")") + ", but " + t.tableId()
                        + " has it as " + c.type().getLogicalType().asSummaryString()
                        + ", which Hudi cannot read the rows written before as. Write to another path.");
            }
        }
        return problems;
    }

    private static List<String> split(String s) {
        if (s == null || s.trim().isEmpty()) {
            return List.of();
        }
        return Arrays.stream(s.split(",")).map(String::trim).collect(Collectors.toList());
    }
}
