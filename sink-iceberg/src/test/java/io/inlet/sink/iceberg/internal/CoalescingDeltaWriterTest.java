package io.inlet.sink.iceberg.internal;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
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
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coalescing writer against real Iceberg tables read back with Iceberg's generic reader: random
 * churn over a few keys, many checkpoints, both write modes, one-column and two-column keys (the
 * latter partitioned by a key column), with and without keys written out early.
 */
class CoalescingDeltaWriterTest {

    /** {@code id BIGINT} and {@code region INT} (the key when two columns), {@code v STRING}. */
    private static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.required(2, "region", Types.IntegerType.get()),
                    Types.NestedField.optional(3, "v", Types.StringType.get())),
            java.util.Set.of(1, 2));

    private static final RowType TYPE = FlinkSchemaUtil.convert(SCHEMA);

    @TempDir
    Path warehouse;

    private Table table(String name, boolean compositeKey) {
        HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(false), warehouse.toUri().toString());
        Schema schema = compositeKey ? SCHEMA : new Schema(SCHEMA.columns(), java.util.Set.of(1));
        PartitionSpec spec = compositeKey
                ? PartitionSpec.builderFor(schema).identity("region").build()
                : PartitionSpec.unpartitioned();
        // Avro files: Iceberg's Parquet writer needs parquet-avro, which this module's tests leave out.
        return catalog.createTable(
                TableIdentifier.of("db", name),
                schema,
                spec,
                Map.of("format-version", "2", "write.format.default", "avro"));
    }

    private static CoalescingDeltaWriter writer(Table table, boolean upsert, int maxHeldKeys, int checkpoint) {
        List<String> key = new ArrayList<>();
        List<Integer> keyIds = new ArrayList<>();
        for (Integer id : table.schema().identifierFieldIds()) {
            key.add(table.schema().findColumnName(id));
            keyIds.add(id);
        }
        RowDataTaskWriterFactory factory = new RowDataTaskWriterFactory(
                table, TYPE, 128L << 20, FileFormat.AVRO, table.properties(), keyIds, upsert);
        factory.initialize(0, checkpoint);
        return new CoalescingDeltaWriter(factory.create(), new RowKeys(TYPE, key), upsert, maxHeldKeys);
    }

    private static RowData row(RowKind kind, long id, int region, String v) {
        GenericRowData r = GenericRowData.of(id, region, v == null ? null : StringData.fromString(v));
        r.setRowKind(kind);
        return r;
    }

    private static void commit(Table table, WriteResult result) {
        RowDelta delta = table.newRowDelta();
        Arrays.stream(result.dataFiles()).forEach(delta::addRows);
        Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
        delta.commit();
    }

    private static Map<String, String> rows(Table table) throws Exception {
        table.refresh();
        Map<String, String> out = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                String key = r.getField("id") + "/" + r.getField("region");
                assertThat(out.put(key, String.valueOf(r.getField("v"))))
                        .as("key %s once", key)
                        .isNull();
            }
        }
        return out;
    }

    @ParameterizedTest(name = "upsert={0}, two-column key={1}, held keys={2}")
    @CsvSource({
        "true, false, 100000",
        "true, false, 3",
        "true, true, 100000",
        "true, true, 3",
        "false, false, 100000",
        "false, false, 3",
        "false, true, 100000",
        "false, true, 3"
    })
    void randomChurnEndsEqualToTheChangesAppliedInOrder(boolean upsert, boolean compositeKey, int maxHeldKeys)
            throws Exception {
        Table table = table("churn", compositeKey);
        Random random = new Random(upsert ? 17 : 29);
        // The model: key "id/region" -> v, as a database applying the changes in order would hold.
        Map<String, String> expected = new TreeMap<>();
        long coalesced = 0;
        for (int checkpoint = 0; checkpoint < 8; checkpoint++) {
            CoalescingDeltaWriter w = writer(table, upsert, maxHeldKeys, checkpoint);
            int changes = 20 + random.nextInt(60);
            for (int i = 0; i < changes; i++) {
                long id = random.nextInt(15);
                int region = compositeKey ? random.nextInt(3) : 0;
                String key = id + "/" + region;
                String old = expected.get(key);
                String now = "v" + checkpoint + "-" + i;
                // The first checkpoint reads a snapshot of some keys first: rows whose key arrives once.
                boolean snapshotRow = checkpoint == 0 && i < 10 && old == null;
                if (old == null) {
                    if (snapshotRow || random.nextInt(4) > 0) {
                        w.write(row(RowKind.INSERT, id, region, now), snapshotRow);
                        expected.put(key, now);
                    }
                } else if (random.nextInt(3) == 0) {
                    w.write(row(RowKind.DELETE, id, region, old), false);
                    expected.remove(key);
                } else if (random.nextInt(4) == 0) {
                    // An update of the key itself: the row moves to a key no row has.
                    long newId = 1000L * (checkpoint + 1) + i;
                    w.write(row(RowKind.UPDATE_BEFORE, id, region, old), false);
                    w.write(row(RowKind.UPDATE_AFTER, newId, region, now), false);
                    expected.remove(key);
                    expected.put(newId + "/" + region, now);
                } else {
                    w.write(row(RowKind.UPDATE_BEFORE, id, region, old), false);
                    w.write(row(RowKind.UPDATE_AFTER, id, region, now), false);
                    expected.put(key, now);
                }
            }
            coalesced += w.coalesced();
            WriteResult result = w.complete();
            if (maxHeldKeys > 1000 && checkpoint > 0) {
                // Every change of a key is held until the barrier: nothing is deleted by position.
                for (DeleteFile d : result.deleteFiles()) {
                    assertThat(d.content()).isEqualTo(FileContent.EQUALITY_DELETES);
                }
            }
            commit(table, result);
            assertThat(rows(table)).as("after checkpoint %s", checkpoint).isEqualTo(expected);
        }
        assertThat(coalesced).isPositive();
    }

    @ParameterizedTest(name = "upsert={0}, held keys={1}")
    @CsvSource({"true, 10", "true, 1", "false, 10", "false, 1"})
    void anUpdateOfTheKeyDeletesTheOldKey(boolean upsert, int maxHeldKeys) throws Exception {
        Table table = table("moved", false);
        CoalescingDeltaWriter first = writer(table, upsert, maxHeldKeys, 0);
        first.write(row(RowKind.INSERT, 1, 0, "a"), false);
        first.write(row(RowKind.INSERT, 2, 0, "b"), false);
        commit(table, first.complete());

        // A key of an earlier snapshot, and one of this checkpoint, each updated to a new key.
        CoalescingDeltaWriter second = writer(table, upsert, maxHeldKeys, 1);
        second.write(row(RowKind.UPDATE_BEFORE, 1, 0, "a"), false);
        second.write(row(RowKind.UPDATE_AFTER, 10, 0, "a"), false);
        second.write(row(RowKind.INSERT, 3, 0, "c"), false);
        second.write(row(RowKind.UPDATE_BEFORE, 3, 0, "c"), false);
        second.write(row(RowKind.UPDATE_AFTER, 30, 0, "c"), false);
        commit(table, second.complete());

        assertThat(rows(table)).isEqualTo(Map.of("10/0", "a", "2/0", "b", "30/0", "c"));
    }

    @Test
    void anUpsertOfAKeyFromAnEarlierSnapshotReplacesItEvenWhenItIsTheKeysOnlyChange() throws Exception {
        Table table = table("upsert", false);
        CoalescingDeltaWriter first = writer(table, true, 10, 0);
        first.write(row(RowKind.INSERT, 1, 0, "a"), false);
        first.write(row(RowKind.INSERT, 2, 0, "b"), false);
        commit(table, first.complete());

        // Debezium may repeat a create after a connector restart: an upsert replaces the key all the same.
        CoalescingDeltaWriter second = writer(table, true, 10, 1);
        second.write(row(RowKind.INSERT, 1, 0, "a2"), false);
        second.write(row(RowKind.DELETE, 2, 0, "b"), false);
        second.write(row(RowKind.INSERT, 2, 0, "b2"), false);
        second.write(row(RowKind.INSERT, 3, 0, "c"), false);
        second.write(row(RowKind.DELETE, 3, 0, "c"), false);
        assertThat(second.coalesced()).isEqualTo(2);
        WriteResult result = second.complete();
        commit(table, result);

        assertThat(rows(table)).isEqualTo(Map.of("1/0", "a2", "2/0", "b2"));
        // Two rows written, not four: the key inserted and deleted never reached a file.
        assertThat(Arrays.stream(result.dataFiles())
                        .mapToLong(f -> f.recordCount())
                        .sum())
                .isEqualTo(2);
    }

    @Test
    void aChangelogDeleteOfARowFromAnEarlierSnapshotIsKeptThroughALaterInsertAndDelete() throws Exception {
        Table table = table("changelog", false);
        CoalescingDeltaWriter first = writer(table, false, 10, 0);
        first.write(row(RowKind.INSERT, 1, 0, "a"), true);
        commit(table, first.complete());

        CoalescingDeltaWriter second = writer(table, false, 10, 1);
        second.write(row(RowKind.DELETE, 1, 0, "a"), false);
        second.write(row(RowKind.INSERT, 1, 0, "again"), false);
        second.write(row(RowKind.DELETE, 1, 0, "again"), false);
        commit(table, second.complete());

        assertThat(rows(table)).isEmpty();
    }
}
