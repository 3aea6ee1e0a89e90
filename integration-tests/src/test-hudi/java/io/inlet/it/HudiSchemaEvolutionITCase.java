package io.inlet.it;

import io.inlet.core.InletStopException;
import io.inlet.core.Pipeline;
import io.inlet.core.PipelineRunner;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.FactoryDiscovery;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.testing.MiniClusters;
import io.inlet.sink.hudi.HudiSink;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.KafkaExtension;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;
import io.inlet.testing.SchemaRegistryExtension;
import io.inlet.testing.TestNames;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Hudi 0.14's writers fix their schema when they open, so a column added at the source stops the job
 * and {@link PipelineRunner} rebuilds it with the table's new schema from its latest checkpoint: one new
 * job per change that needs one, none for a change the table takes as it is, and the table equal to
 * MariaDB after each step, read with Hudi's reader, compacted base files included. A widening, which
 * Hudi 0.14 cannot read its older files as, stops the run naming the column.
 */
@Tag("hudi") // in the 1.17 build's Hudi execution: one test JVM, alone (integration-tests/pom.xml)
@ExtendWith({MariaDbExtension.class, KafkaExtension.class, SchemaRegistryExtension.class})
class HudiSchemaEvolutionITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(4);

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @Test
    void addedColumnsRebuildTheJobFromItsLatestCheckpointAndAWideningStopsIt(
            MariaDbServer mysql, @TempDir Path lake, @TempDir Path checkpoints) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, name VARCHAR(20))",
                "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
        Map<String, String> source = MySqlOptions.of(mysql, db, "t");
        source.put("schema-change.behavior", "evolve");
        Path table = lake.resolve(db).resolve("t");
        try (Supervised run =
                        Supervised.start(lake, checkpoints, () -> FactoryDiscovery.createSource("mysql-cdc", source));
                Connection c = mysql.connection(db)) {
            run.awaitEqual(1, c, db);
            // The binlog phase runs: the checkpoints from here on hold the table's schema in the binlog split.
            // (One from between the snapshot and the binlog phase may not, and a job restored from it after a
            // DDL fails in Flink CDC 2.4.2 with "Data row is smaller than a column index": README.)
            mysql.execute(db, "UPDATE t SET name = 'one!' WHERE id = 1");
            run.awaitEqual(1, c, db);

            // Rows change before and after an added column, within a checkpoint or two: the job stops at the
            // change, and the rebuilt job reads again from its latest checkpoint, the rows before the change
            // included.
            mysql.execute(
                    db,
                    "UPDATE t SET name = 'uno' WHERE id = 1",
                    "ALTER TABLE t ADD COLUMN note VARCHAR(50) NULL AFTER v",
                    "UPDATE t SET note = 'second', v = 21 WHERE id = 2",
                    "INSERT INTO t VALUES (4, 40, 'four', 'fourth')");
            run.awaitEqual(2, c, db);
            assertThat(run.built.get().sinkTables().get(0).columnNames()).containsExactly("id", "v", "note", "name");
            assertThat(Jobs.messages(Jobs.awaitFailure(run.jobs.get(0), TIMEOUT)))
                    .contains("RebuildRequiredException")
                    .contains("column 'note' VARCHAR(50) is new");

            // A longer VARCHAR is stored alike: the running job takes it, no rebuild.
            mysql.execute(
                    db,
                    "ALTER TABLE t MODIFY name VARCHAR(200)",
                    "UPDATE t SET name = '" + "x".repeat(150) + "' WHERE id = 3");
            run.awaitEqual(2, c, db);

            // A required column made nullable: a rebuild; then compaction writes base files with the new
            // column, which the reader merges.
            mysql.execute(
                    db,
                    "ALTER TABLE t MODIFY v INT NULL",
                    "UPDATE t SET v = NULL WHERE id = 1",
                    "INSERT INTO t VALUES (5, 50, 'five', NULL)");
            run.awaitEqual(3, c, db);
            mysql.execute(db, "UPDATE t SET note = 'again' WHERE id = 4", "DELETE FROM t WHERE id = 2");
            run.awaitEqual(3, c, db);
            DebeziumKafkaToHudiITCase.awaitCompaction(run.jobs.get(2), table);
            assertThat(HudiReads.baseFiles(table)).isNotEmpty();
            run.awaitEqual(3, c, db);

            // A widening Hudi 0.14 cannot read its older files as: the run ends, naming the column and why.
            mysql.execute(db, "ALTER TABLE t MODIFY v BIGINT NULL", "UPDATE t SET v = 5000000000 WHERE id = 5");
            assertThat(run.result)
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .havingRootCause()
                    .isInstanceOf(InletStopException.class)
                    .withMessageContaining("column 'v' widened from INT to BIGINT")
                    .withMessageContaining("Unexpected type: INT32");
            assertThat(run.jobs).hasSize(3);

            // The table was created without 'note' and has it from its commits: a pipeline whose rows lack it
            // (dropped while no job ran) is refused at build, as Hudi would write NULL over its values.
            TableDescriptor withNote = run.built.get().sinkTables().get(0);
            TableDescriptor withoutNote = withNote.toBuilder()
                    .columns(withNote.columns().stream()
                            .filter(col -> !col.name().equals("note"))
                            .collect(Collectors.toList()))
                    .build();
            assertThatThrownBy(() -> HudiLakes.hudiSink(lake, 2).validate(List.of(withoutNote), true))
                    .hasMessageContaining("has a column 'note' the rows of " + withNote.tableId() + " do not have");
        }
    }

    /**
     * {@code ADD COLUMN ... DEFAULT} into Hudi: MySQL shows the default in the rows that existed before, and
     * so does the table. The job that meets the change records the default in the table and stops; the
     * rebuilt job gives the rows committed before it the default (read with Hudi's reader, written again
     * with their own ordering value, so the job's own changes of them win) and the rows it reads again
     * from its checkpoint too. Two more columns added with defaults in the schema the rebuilt job reads
     * cost one more job. With NULLs written on purpose, a delete and compaction, the table equals MariaDB.
     */
    @Test
    void columnsAddedWithADefaultHaveItInTheRowsFromBeforeAsInMySql(
            MariaDbServer mysql, @TempDir Path lake, @TempDir Path checkpoints) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, name VARCHAR(20))",
                "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')");
        Map<String, String> source = MySqlOptions.of(mysql, db, "t");
        source.put("schema-change.behavior", "evolve");
        Path table = lake.resolve(db).resolve("t");
        try (Supervised run =
                        Supervised.start(lake, checkpoints, () -> FactoryDiscovery.createSource("mysql-cdc", source));
                Connection c = mysql.connection(db)) {
            run.awaitEqual(1, c, db);
            mysql.execute(db, "UPDATE t SET name = 'one!' WHERE id = 1"); // the binlog phase runs (see above)
            run.awaitEqual(1, c, db);
            mysql.execute(
                    db,
                    "UPDATE t SET name = 'uno' WHERE id = 1",
                    "ALTER TABLE t ADD COLUMN status VARCHAR(10) NOT NULL DEFAULT 'new'",
                    "UPDATE t SET status = 'paid' WHERE id = 2",
                    "DELETE FROM t WHERE id = 4",
                    "INSERT INTO t (id, name) VALUES (5, 'five')",
                    "ALTER TABLE t ADD COLUMN qty INT NOT NULL DEFAULT 7,"
                            + " ADD COLUMN rate DECIMAL(6,3) NULL DEFAULT 1.5",
                    "INSERT INTO t (id, name, rate) VALUES (6, 'six', NULL)",
                    "UPDATE t SET rate = NULL, qty = 8 WHERE id = 3");
            run.awaitEqual(3, c, db);
            assertThat(Jobs.messages(Jobs.awaitFailure(run.jobs.get(0), TIMEOUT)))
                    .contains("column 'status' was added with the default 'new'");
            assertThat(Jobs.messages(Jobs.awaitFailure(run.jobs.get(1), TIMEOUT)))
                    .contains("column 'qty' was added with the default '7'")
                    .contains("column 'rate' was added with the default '1.5'");

            mysql.execute(db, "UPDATE t SET name = 'drei' WHERE id = 3", "DELETE FROM t WHERE id = 1");
            run.awaitEqual(3, c, db);
            DebeziumKafkaToHudiITCase.awaitCompaction(run.jobs.get(2), table);
            run.awaitEqual(3, c, db);
            assertThat(run.jobs).hasSize(3);
        }
    }

    /**
     * {@code lenient} into Hudi: the lake keeps a dropped column and a renamed column's old name with their
     * values, and the new name is a new column, which needs a new writer. The rebuilt job builds its tables
     * from MariaDB's schema, which lacks the kept columns; it writes them on, NULL in the rows that change
     * from then on (lenient's meaning, as the job before it did), while rows that do not change keep their
     * values. It goes on through later changes and rebuilds, the kept columns with it.
     */
    @Test
    void lenientRebuildsTheJobKeepingTheColumnsTheSourceDroppedOrRenamed(
            MariaDbServer mysql, @TempDir Path lake, @TempDir Path checkpoints) throws Exception {
        String db = mysql.createDatabase();
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, name VARCHAR(20), gone VARCHAR(10))",
                "INSERT INTO t VALUES (1, 'one', 'g1'), (2, 'two', 'g2')");
        Map<String, String> source = MySqlOptions.of(mysql, db, "t");
        source.put("schema-change.behavior", "lenient");
        try (Supervised run =
                Supervised.start(lake, checkpoints, () -> FactoryDiscovery.createSource("mysql-cdc", source))) {
            run.awaitHudi(1, Map.of(1, "name=one, gone=g1", 2, "name=two, gone=g2"));
            mysql.execute(db, "UPDATE t SET gone = 'g2!' WHERE id = 2"); // the binlog phase runs (see above)
            run.awaitHudi(1, Map.of(1, "name=one, gone=g1", 2, "name=two, gone=g2!"));
            mysql.execute(
                    db,
                    "ALTER TABLE t DROP COLUMN gone",
                    "ALTER TABLE t RENAME COLUMN name TO label",
                    "UPDATE t SET label = 'uno' WHERE id = 1");
            run.awaitHudi(2, Map.of(1, "label=uno, name=NULL, gone=NULL", 2, "label=NULL, name=two, gone=g2!"));
            assertThat(Jobs.messages(Jobs.awaitFailure(run.jobs.get(0), TIMEOUT)))
                    .contains("column 'label' VARCHAR(20) is new");
            assertThat(run.built.get().sinkTables().get(0).columnNames()).containsExactly("id", "label");

            mysql.execute(
                    db,
                    "INSERT INTO t VALUES (3, 'three')",
                    "UPDATE t SET label = 'dos' WHERE id = 2",
                    "ALTER TABLE t ADD COLUMN extra INT NULL",
                    "INSERT INTO t VALUES (4, 'four', 40)");
            run.awaitHudi(
                    3,
                    Map.of(
                            1, "label=uno, name=NULL, gone=NULL, extra=NULL",
                            2, "label=dos, name=NULL, gone=NULL, extra=NULL",
                            3, "label=three, name=NULL, gone=NULL, extra=NULL",
                            4, "label=four, name=NULL, gone=NULL, extra=40"));
            assertThat(run.sink
                            .get()
                            .writeRowType(run.built.get().sinkTables().get(0))
                            .getFieldNames())
                    .containsExactly("id", "label", "extra", "name", "gone", "_source_position", "_hoodie_is_deleted");
            assertThat(run.result).isNotDone();
        }
    }

    /**
     * The same through Kafka: a real Debezium connector (embedded) writes the table into a topic of two
     * partitions; a new writer schema with an added column rebuilds the job, whose source then reads the
     * topic's newest schema, and the table equals MariaDB.
     */
    @Test
    void aColumnAddedBehindKafkaRebuildsTheJob(
            MariaDbServer mysql,
            KafkaBroker kafka,
            SchemaRegistry registry,
            @TempDir Path lake,
            @TempDir Path checkpoints)
            throws Exception {
        String db = mysql.createDatabase();
        String server = TestNames.unique("dbz");
        String topic = server + "." + db + ".t";
        mysql.execute(
                db,
                "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, name VARCHAR(20))",
                "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
        kafka.createTopics(2, topic);
        try (DebeziumProducer dbz = DebeziumProducer.start(mysql, db, server, kafka, registry)) {
            dbz.awaitProduced(3, Duration.ofSeconds(60));
            Supplier<ChangeSource> source = () -> KafkaSources.debezium(kafka, registry, topic)
                    .schemaChangeBehavior(SchemaChangeBehavior.EVOLVE)
                    .build();
            try (Supervised run = Supervised.start(lake, checkpoints, source);
                    Connection c = mysql.connection(db)) {
                run.awaitEqual(1, c, db);
                mysql.execute(
                        db,
                        "UPDATE t SET v = 11 WHERE id = 1",
                        "ALTER TABLE t ADD COLUMN note VARCHAR(50) NULL AFTER v,"
                                + " ADD COLUMN grade INT NOT NULL DEFAULT 3",
                        "UPDATE t SET note = 'second' WHERE id = 2",
                        "UPDATE t SET v = 31, note = 'third', grade = 4 WHERE id = 3",
                        "INSERT INTO t VALUES (4, 40, 'fourth', 'four', 5)");
                run.awaitEqual(2, c, db); // rows 1 and 2 have grade 3, the default, as in MariaDB
                assertThat(run.built.get().sinkTables().get(0).columnNames())
                        .containsExactly("id", "v", "note", "name", "grade");
                assertThat(Jobs.messages(Jobs.awaitFailure(run.jobs.get(0), TIMEOUT)))
                        .contains("column 'note' STRING is new") // Debezium's Avro has no lengths
                        .contains("column 'grade' was added with the default '3'");
            }
        }
    }

    /**
     * A {@link PipelineRunner} running in the background: each build makes a fresh Hudi sink into the lake
     * (one writer task, compaction every 2 delta commits) over a fresh source and checkpoints into the
     * directory; the jobs it submitted and its last build are kept for the test. Closing it cancels them.
     */
    private static final class Supervised implements AutoCloseable {
        final List<JobClient> jobs = new CopyOnWriteArrayList<>();
        final AtomicReference<Pipeline> built = new AtomicReference<>();
        final AtomicReference<HudiSink> sink = new AtomicReference<>();
        final Path lake;
        CompletableFuture<?> result;

        private Supervised(Path lake) {
            this.lake = lake;
        }

        static Supervised start(Path lake, Path checkpoints, Supplier<ChangeSource> source) {
            Supervised s = new Supervised(lake);
            PipelineRunner runner = PipelineRunner.builder()
                    .pipeline(conf -> {
                        conf.set(
                                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                                checkpoints.toUri().toString());
                        s.sink.set(HudiLakes.hudiSink(lake, 2));
                        s.built.set(Pipeline.builder()
                                .environment(Jobs.checkpointingEnvironment(conf, 2))
                                .source(source.get())
                                .sink(s.sink.get())
                                .build());
                        return s.built.get();
                    })
                    .onJobSubmitted(s.jobs::add)
                    .build();
            s.result = CompletableFuture.runAsync(() -> {
                try {
                    runner.run();
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            return s;
        }

        @Override
        public void close() throws Exception {
            // The runner ends with its cancelled job, after removing superseded checkpoints: it must be done with
            // the test's directories before JUnit deletes them.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!result.isDone() && System.nanoTime() < deadline) {
                for (JobClient job : jobs) {
                    Jobs.cancelIfRunning(job); // also one the runner submitted since the last round
                }
                try {
                    result.get(1, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    // not done yet: the next round cancels what it may have submitted meanwhile
                } catch (ExecutionException | CancellationException e) {
                    return; // the cancelled job's failure, or the failure the test expected
                }
            }
        }

        /**
         * Waits until the runner has submitted {@code n} jobs, the last runs, and the table {@code t} holds the
         * rows: per id its other columns as {@code column=value, ...}, in any order.
         */
        void awaitHudi(int n, Map<Integer, String> rows) throws Exception {
            awaitJobs(n);
            TableDescriptor t = built.get().sinkTables().get(0);
            RowType type = sink.get().writeRowType(t);
            HudiLakes.awaitHudi(
                    jobs.get(n - 1),
                    lake.resolve(t.tableId().database()).resolve(t.tableId().table()),
                    type,
                    t.primaryKey(),
                    () -> {
                        List<String> out = new ArrayList<>();
                        rows.forEach((id, columns) -> {
                            Map<String, String> byName = new HashMap<>();
                            for (String cv : columns.split(", ")) {
                                byName.put(cv.substring(0, cv.indexOf('=')), cv.substring(cv.indexOf('=') + 1));
                            }
                            byName.put("id", String.valueOf(id));
                            StringJoiner j = new StringJoiner(", ");
                            for (String name : type.getFieldNames()) {
                                if (!List.of(HudiOrdering.COLUMNS).contains(name)) {
                                    j.add(name + "=" + byName.get(name));
                                }
                            }
                            out.add(j.toString());
                        });
                        out.sort(null);
                        return out;
                    },
                    HudiOrdering.COLUMNS);
        }

        private void awaitJobs(int n) throws Exception {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while ((jobs.size() < n || jobs.get(n - 1).getJobStatus().get(30, TimeUnit.SECONDS) != JobStatus.RUNNING)
                    && System.nanoTime() < deadline
                    && !result.isDone()) {
                Thread.sleep(100); // polling for the runner's next job; the deadline bounds it
            }
            if (jobs.size() < n && result.isCompletedExceptionally()) {
                try {
                    result.join();
                } catch (CompletionException e) {
                    // The run ended (e.g. a rebuilt pipeline refused at build): say why, not just how many jobs.
                    throw new AssertionError("The runner ended after " + jobs.size() + " job(s), not " + n, e);
                }
            }
            assertThat(jobs).as("jobs the runner submitted").hasSize(n);
        }

        /** Waits until the runner has submitted {@code n} jobs, the last runs, and the table equals MariaDB's. */
        void awaitEqual(int n, Connection c, String db) throws Exception {
            awaitJobs(n);
            HudiLakes.awaitEqualToMySql(
                    jobs.get(n - 1), c, db, lake, sink.get(), built.get().sinkTables());
            assertThat(jobs).as("jobs the runner submitted").hasSize(n);
        }
    }
}
