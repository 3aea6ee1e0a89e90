package io.inlet.source.iceberg.internal;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ValuesChangeSource;
import io.inlet.sink.iceberg.IcebergSink;
import io.inlet.sink.iceberg.WriteMode;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The differential over Inlet's own writer: a random churn of inserts, updates, deletes and key
 * changes (the key columns of a row updated, which the sink writes as a delete of the old key and an
 * insert of the new one), written by Inlet's Iceberg sink in each write mode over many checkpoints;
 * the changes read from every snapshot, applied in order, equal Iceberg's batch read at that
 * snapshot.
 */
class InletWrittenChangelogITCase {

    /** One cluster for the class's jobs: starting one per job cost seconds each. */
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static final TableDescriptor CHURN = TableDescriptor.builder(TableId.of("db", "churn"))
            .column("id", DataTypes.BIGINT().notNull())
            .column("region", DataTypes.INT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id", "region")
            .build();

    @TempDir
    Path warehouse;

    @ParameterizedTest(name = "write-mode {0}, partitioned {1}")
    @CsvSource({"UPSERT, false", "CHANGELOG, true", "AUTO, true"})
    void everySnapshotInletWritesReadsAsTheChangesFromItsParent(WriteMode mode, boolean partitioned) throws Exception {
        Map<String, Object[]> model = new TreeMap<>();
        ValuesChangeSource.Builder values = ValuesChangeSource.builder().table(CHURN);
        Random random = new Random(mode.ordinal() * 31L + (partitioned ? 7 : 0));
        int keyChanges = 0;
        for (int i = 0; i < 400; i++) {
            long id = random.nextInt(30);
            int region = random.nextInt(3);
            String key = id + "/" + region;
            Object[] old = model.get(key);
            String v = "v" + i;
            if (old == null) {
                Object[] row = {id, region, v};
                values.insert(CHURN, row);
                model.put(key, row);
            } else if (random.nextInt(4) == 0) {
                values.delete(CHURN, old);
                model.remove(key);
            } else if (random.nextInt(3) == 0) {
                // A key change: the row moves to a key no row has (often another partition).
                long newId = 100 + i;
                int newRegion = random.nextInt(3);
                Object[] row = {newId, newRegion, v};
                values.update(CHURN, old, row);
                model.remove(key);
                model.put(newId + "/" + newRegion, row);
                keyChanges++;
            } else {
                Object[] row = {id, region, v};
                values.update(CHURN, old, row);
                model.put(key, row);
            }
        }
        assertThat(keyChanges).isGreaterThan(10);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(100);
        IcebergSink.Builder sink =
                IcebergSink.builder().warehouse(warehouse.toUri().toString()).writeMode(mode);
        if (partitioned) {
            sink.partitionSpec("db.churn", "region");
        }
        Pipeline.builder()
                .environment(env)
                .source(values.checkpointEvery(25).build())
                .sink(sink.build())
                .jobName("churn into iceberg, " + mode)
                .build()
                .execute();

        try (HadoopCatalog catalog = TestTables.catalog(warehouse)) {
            Table table = catalog.loadTable(TableIdentifier.of("db", "churn"));
            Map<String, String> expected = new TreeMap<>();
            model.forEach((k, row) -> expected.put(k, (String) row[2]));
            assertThat(TestTables.current(table)).as("the table Inlet wrote").isEqualTo(expected);

            List<Snapshot> snapshots = new ArrayList<>();
            table.snapshots().forEach(snapshots::add);
            assertThat(snapshots).as("one snapshot per checkpoint with changes").hasSizeGreaterThan(8);
            // Both ways to the before-images: read from the files, and kept in the pairing's state; one pass,
            // so each snapshot's batch read (the expensive part) is done once for both.
            try (SnapshotChanges fromFiles = new SnapshotChanges(table, false);
                    SnapshotChanges fromState = new SnapshotChanges(table, true)) {
                TestTables.Materialized byFiles = new TestTables.Materialized();
                TestTables.Materialized byState = new TestTables.Materialized();
                for (Snapshot s : snapshots) {
                    fromFiles.of(s).forEach(byFiles::apply);
                    fromState.of(s).forEach(byState::apply);
                    Map<String, String> batch = TestTables.batch(table, s.snapshotId());
                    assertThat(byFiles.rows)
                            .as("after snapshot %s (%s), before-images from the files", s.sequenceNumber(), s.summary())
                            .isEqualTo(batch);
                    assertThat(byState.rows)
                            .as("after snapshot %s (%s), before-images from state", s.sequenceNumber(), s.summary())
                            .isEqualTo(batch);
                }
            }
        }
    }
}
