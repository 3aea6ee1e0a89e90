package io.inlet.source.iceberg.internal;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tables keyed by {@code (id, region)} with a value {@code v}, written by Iceberg's own Flink delta
 * writer and read back with Iceberg's generic reader; and a changelog materialized by key.
 */
public final class TestTables {

    public static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.required(2, "region", Types.IntegerType.get()),
                    Types.NestedField.optional(3, "v", Types.StringType.get())),
            Set.of(1, 2));

    private TestTables() {}

    /**
     * The properties of the tests' Hadoop catalog over {@code warehouse}. Its lock is Inlet's
     * JVM-wide one: Iceberg's default in-memory lock shares one heartbeat scheduler per JVM and
     * shuts it down when any catalog closes, so a job of an earlier test closing its catalog failed
     * this test's next commit with RejectedExecutionException.
     */
    public static Map<String, String> catalogProperties(Path warehouse) {
        return Map.of(
                "warehouse", warehouse.toUri().toString(), "lock-impl", "io.inlet.iceberg.internal.JvmLockManager");
    }

    /** The tests' Hadoop catalog over {@code warehouse}; see {@link #catalogProperties}. */
    public static HadoopCatalog catalog(Path warehouse) {
        HadoopCatalog catalog = new HadoopCatalog();
        catalog.setConf(new Configuration(false));
        catalog.initialize("lake", catalogProperties(warehouse));
        return catalog;
    }

    public static Table create(Path warehouse, String name, boolean partitioned) {
        return create(warehouse, name, partitioned, FileFormat.AVRO);
    }

    /** A table whose files are in the given format. */
    public static Table create(Path warehouse, String name, boolean partitioned, FileFormat format) {
        HadoopCatalog catalog = catalog(warehouse);
        PartitionSpec spec = partitioned
                ? PartitionSpec.builderFor(SCHEMA).identity("region").build()
                : PartitionSpec.unpartitioned();
        return catalog.createTable(
                TableIdentifier.of("db", name),
                SCHEMA,
                spec,
                Map.of(
                        "format-version",
                        "2",
                        "write.format.default",
                        format.name().toLowerCase(Locale.ROOT)));
    }

    /** Iceberg's Flink delta writer of the table, upsert or changelog. */
    public static TaskWriter<RowData> writer(Table table, boolean upsert, int attempt) {
        RowDataTaskWriterFactory factory = new RowDataTaskWriterFactory(
                table,
                FlinkSchemaUtil.convert(SCHEMA),
                128L << 20,
                FileFormat.fromString(table.properties().getOrDefault("write.format.default", "avro")),
                table.properties(),
                List.of(1, 2),
                upsert);
        factory.initialize(0, attempt);
        return factory.create();
    }

    public static RowData row(RowKind kind, long id, int region, String v) {
        GenericRowData r = GenericRowData.of(id, region, v == null ? null : StringData.fromString(v));
        r.setRowKind(kind);
        return r;
    }

    public static void commit(Table table, WriteResult result) {
        RowDelta delta = table.newRowDelta();
        Arrays.stream(result.dataFiles()).forEach(delta::addRows);
        Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
        delta.commit();
    }

    /** The table at its current snapshot, as {@link #batch}. */
    public static Map<String, String> current(Table table) throws Exception {
        table.refresh();
        return batch(table, table.currentSnapshot().snapshotId());
    }

    /**
     * Random inserts, updates and deletes over a few keys, one snapshot per {@link #commit} by Iceberg's
     * delta writer, and the rows a database applying them in order would hold.
     */
    public static final class Churn {
        /** Key "id/region" to v. */
        public final Map<String, String> rows = new TreeMap<>();

        private final Table table;
        private final boolean upsert;
        private final Random random;
        private final int ids;
        private final int regions;

        public Churn(Table table, boolean upsert, Random random, int ids, int regions) {
            this.table = table;
            this.upsert = upsert;
            this.random = random;
            this.ids = ids;
            this.regions = regions;
        }

        /** One snapshot of that many changes. */
        public void commit(int snapshot, int changes) throws Exception {
            TaskWriter<RowData> w = writer(table, upsert, snapshot);
            for (int i = 0; i < changes; i++) {
                long id = random.nextInt(ids);
                int region = random.nextInt(regions);
                String key = id + "/" + region;
                String old = rows.get(key);
                String now = "v" + snapshot + "-" + i;
                if (old == null) {
                    w.write(row(RowKind.INSERT, id, region, now));
                    rows.put(key, now);
                } else if (random.nextInt(3) == 0) {
                    w.write(row(RowKind.DELETE, id, region, old));
                    rows.remove(key);
                } else {
                    w.write(row(RowKind.UPDATE_BEFORE, id, region, old));
                    w.write(row(RowKind.UPDATE_AFTER, id, region, now));
                    rows.put(key, now);
                }
            }
            TestTables.commit(table, w.complete());
        }
    }

    /** The table at a snapshot, key "id/region" to v, read with Iceberg's generic reader. */
    public static Map<String, String> batch(Table table, long snapshotId) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            for (Record r : records) {
                out.put(r.getField("id") + "/" + r.getField("region"), String.valueOf(r.getField("v")));
            }
        }
        return out;
    }

    /**
     * A changelog applied change by change, each checked to be one the table at that point may carry.
     * A key's {@code -U} and {@code +U} come in that order; with a parallel read, other keys' changes
     * may come between them.
     */
    public static final class Materialized {
        public final Map<String, String> rows = new TreeMap<>();
        private final Set<String> updating = new HashSet<>();

        public void apply(RowData c) {
            String key = c.getLong(0) + "/" + c.getInt(1);
            String v = c.isNullAt(2) ? "null" : c.getString(2).toString();
            if (c.getRowKind() != RowKind.UPDATE_AFTER) {
                assertThat(updating).as("+U of %s right after its -U", key).doesNotContain(key);
            }
            switch (c.getRowKind()) {
                case INSERT:
                    assertThat(rows).as("+I of a new key").doesNotContainKey(key);
                    rows.put(key, v);
                    break;
                case UPDATE_BEFORE:
                    assertThat(rows).as("-U with the full before-image").containsEntry(key, v);
                    rows.remove(key);
                    updating.add(key);
                    break;
                case UPDATE_AFTER:
                    assertThat(updating.remove(key))
                            .as("+U of %s after its -U", key)
                            .isTrue();
                    rows.put(key, v);
                    break;
                case DELETE:
                    assertThat(rows).as("-D with the full row").containsEntry(key, v);
                    rows.remove(key);
                    break;
                default:
                    throw new AssertionError(c.getRowKind());
            }
        }
    }
}
