package io.inlet.sink.iceberg;

import io.inlet.core.Pipeline;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.core.testing.MiniClusters;
import io.inlet.core.testing.ValuesChangeSource;
import io.inlet.sink.iceberg.internal.TablesWriter;

import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failures injected into the writer (a file that cannot be written) and the committer (a commit
 * that fails, or a task that dies, before and after the catalog took the commit), in a MiniCluster
 * job that restores from its checkpoints: every table ends equal to the changes sent, no row lost,
 * none twice. Changelog mode writes every change as it comes, so a change applied twice would show.
 */
class InjectedFailuresITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static final int KEYS = 30;
    private static final int ROUNDS = 6;

    @TempDir
    Path warehouse;

    static Stream<Arguments> failures() {
        List<Arguments> out = new ArrayList<>();
        Map<String, Consumer<FaultyCatalog.Faults>> faults = new TreeMap<>();
        faults.put("writer: the fifth file cannot be written", f -> f.failFileWrite(5));
        faults.put("committer: the second commit dies before the catalog takes it", f -> f.crashCommit(2, false));
        faults.put("committer: the second commit dies after the catalog took it", f -> f.crashCommit(2, true));
        faults.put("committer: a commit fails after the catalog took it", f -> f.failCommitsAfterApplying(1));
        faults.put("committer: two commits fail before the catalog takes them", f -> f.failCommitsBeforeApplying(2));
        for (WriteMode mode : List.of(WriteMode.UPSERT, WriteMode.CHANGELOG)) {
            faults.forEach((name, fault) -> out.add(Arguments.of(name, mode, fault, false)));
            // Writers closed early for memory: checkpoints in parts, a death between two of them.
            out.add(Arguments.of("committer: the third commit dies after the catalog took it", mode, crash(3), true));
            out.add(Arguments.of("writer: the ninth file cannot be written", mode, failWrite(9), true));
        }
        return out.stream();
    }

    private static Consumer<FaultyCatalog.Faults> crash(int nth) {
        return f -> f.crashCommit(nth, true);
    }

    private static Consumer<FaultyCatalog.Faults> failWrite(int nth) {
        return f -> f.failFileWrite(nth);
    }

    @ParameterizedTest(name = "{0}, {1}, tight bounds {3}")
    @MethodSource("failures")
    void endsEqualToTheChanges(String name, WriteMode mode, Consumer<FaultyCatalog.Faults> fault, boolean tight)
            throws Exception {
        String db = "faults_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        TableDescriptor table = TableDescriptor.builder(TableId.of(db, "t"))
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .build();
        // Rounds of changes: inserts, updates, deletes of every seventh key and their return. Key k is last
        // changed in round k % ROUNDS, so every checkpoint holds the last change of some keys: a checkpoint
        // committed twice or not at all shows, later changes do not cover it.
        ValuesChangeSource.Builder source = ValuesChangeSource.builder().table(table);
        Map<Integer, String> expected = new TreeMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (int id = 0; id < KEYS; id++) {
                if (round > id % ROUNDS) {
                    continue;
                }
                String v = "r" + round + "-" + id;
                String before = expected.get(id);
                if (before == null) {
                    source.insert(table, id, v);
                    expected.put(id, v);
                } else if (round == 3 && id % 7 == 0) {
                    source.delete(table, id, before);
                    expected.remove(id);
                } else {
                    source.update(table, new Object[] {id, before}, new Object[] {id, v});
                    expected.put(id, v);
                }
            }
        }
        FaultyCatalog.Faults faults = FaultyCatalog.faults();
        fault.accept(faults);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        // The source waits for a checkpoint every few changes: short intervals keep the waits short.
        env.enableCheckpointing(100);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(3, 100));
        // Nothing on the way from the source to the committer falls back to Kryo.
        env.getConfig().disableGenericTypes();
        IcebergSink.Builder sink = IcebergSink.builder()
                .catalogImpl(FaultyCatalog.class.getName())
                .writeMode(mode)
                .writeParallelism(2)
                .tableProperty("write.format.default", "avro");
        if (tight) {
            // About 5 rows per writer before it closes early: every checkpoint comes in parts.
            sink.maxBufferedBytes(TablesWriter.openCost(FileFormat.AVRO, Map.of(), 2) + 450);
        }
        faults.properties(warehouse.toUri().toString()).forEach(sink::catalogProperty);
        Pipeline.builder()
                .environment(env)
                .source(source.checkpointEvery(KEYS / 2).build())
                .sink(sink.build())
                .build()
                .execute();

        assertThat(faults.failed()).as("the fault fired").isPositive();
        List<String> rows = new ArrayList<>();
        expected.forEach((id, v) -> rows.add(id + "=" + v));
        rows.sort(String::compareTo);
        assertThat(TestFiles.rows(faults.catalog(warehouse.toUri().toString())
                        .loader()
                        .loadCatalog()
                        .loadTable(TableIdentifier.of(db, "t"))))
                .containsExactlyElementsOf(rows);
    }
}
