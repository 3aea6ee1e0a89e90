package io.inlet.sink.hudi;

import io.inlet.core.InletValidationException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.spi.FactoryDiscovery;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.sink.hudi.internal.HudiDefaults;
import io.inlet.sink.hudi.internal.HudiTables;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.DataTypes;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HudiSinkTest {

    private static final TableDescriptor ORDERS = TableDescriptor.builder(TableId.of("shop", "orders"))
            .column("id", DataTypes.BIGINT())
            .column("qty", DataTypes.SMALLINT())
            .column("at", DataTypes.TIME(6))
            .column("region", DataTypes.STRING())
            .primaryKey("id")
            .build();

    @Test
    void writesEachTableUnderItsDatabaseWithTheSourcePositionAsPrecombine(@TempDir Path lake) {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        assertThat(sink.tablePath(ORDERS.tableId())).endsWith("/shop/orders");
        assertThat(sink.writeRowType(ORDERS).asSummaryString())
                .isEqualTo("ROW<`id` BIGINT NOT NULL, `qty` INT, `at` TIME(3), `region` STRING,"
                        + " `_source_position` BIGINT NOT NULL '...', `_hoodie_is_deleted` BOOLEAN '...'> NOT NULL");
        // A changelog keeps deletes as rows of their own kind: no soft-delete flag there.
        assertThat(HudiSink.builder()
                        .path(lake.toUri().toString())
                        .changelog(true)
                        .build()
                        .writeRowType(ORDERS)
                        .getFieldNames())
                .containsExactly("id", "qty", "at", "region", "_source_position");
        assertThat(sink.targetTables(List.of(ORDERS))).containsExactly("hudi:" + sink.tablePath(ORDERS.tableId()));
        sink.validate(List.of(ORDERS));
        assertThat(sink.requiresPrimaryKey()).isTrue();
        assertThat(sink.requiresCheckpointing()).isTrue();
    }

    @Test
    void takesHudiKeysThroughTheFactory(@TempDir Path lake) {
        HudiSink sink = (HudiSink) FactoryDiscovery.createSink(
                "hudi",
                Map.of(
                        "path", lake.toUri().toString(),
                        "table.type", "copy_on_write",
                        "precombine.field", "qty",
                        "index.type", "BUCKET",
                        "compaction.delta_commits", "3",
                        "hive_sync.enabled", "false",
                        "partition-fields.shop.orders", "region"));
        assertThat(sink.toString()).contains("table.type=COPY_ON_WRITE", "precombine.field=qty");
        assertThat(sink.writeRowType(ORDERS).getFieldNames()).containsExactly("id", "qty", "at", "region");
        sink.validate(List.of(ORDERS));
        assertThatThrownBy(() -> FactoryDiscovery.createSink("hudi", Map.of("path", "x", "hoodie.table.name", "t")))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Set 'hoodie.table.name' with the sink's own option");
    }

    @Test
    void hadoopSettingsReachEveryWriterAndTheSinksOwnLookAtTheTables(@TempDir Path lake) {
        HudiSink sink = (HudiSink) FactoryDiscovery.createSink(
                "hudi",
                Map.of(
                        "path", lake.toUri().toString(),
                        "hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000",
                        "hadoop.fs.s3a.secret.key", "s3cr3t"));
        assertThat(sink.options(ORDERS))
                .as("Hudi's writer applies hadoop.* to its Hadoop configuration")
                .containsEntry("hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000");
        assertThat(sink.toString()).doesNotContain("s3cr3t");
        org.apache.hadoop.conf.Configuration conf = HudiTables.hadoopConf(sink.options(ORDERS));
        assertThat(conf.get("fs.s3a.endpoint")).isEqualTo("http://127.0.0.1:9000");
        assertThat(conf.get("fs.s3a.impl"))
                .as("Hadoop's defaults, which map s3a:// to S3A")
                .isEqualTo("org.apache.hadoop.fs.s3a.S3AFileSystem");
        assertThat(conf.get("hoodie.table.name")).isNull();
    }

    @Test
    void eachTableSyncsToAHiveTableOfItsOwnName(@TempDir Path lake) {
        HudiSink sink = HudiSink.builder()
                .path(lake.toUri().toString())
                .option("hive_sync.enabled", "true")
                .option("hive_sync.metastore.uris", "thrift://127.0.0.1:9083")
                .build();
        assertThat(sink.options(ORDERS))
                .containsEntry("hive_sync.db", ORDERS.tableId().database())
                .containsEntry("hive_sync.table", ORDERS.tableId().table())
                .as("Hudi cannot write Spark's data source properties for the TIME column 'at'")
                .containsEntry("hoodie.datasource.hive_sync.sync_as_datasource", "false");
        TableDescriptor noTime = TableDescriptor.builder(TableId.of("shop", "items"))
                .column("id", DataTypes.BIGINT())
                .primaryKey("id")
                .build();
        assertThat(sink.options(noTime)).doesNotContainKey("hoodie.datasource.hive_sync.sync_as_datasource");
        HudiSink oneDatabase = HudiSink.builder()
                .path(lake.toUri().toString())
                .option("hive_sync.enabled", "true")
                .option("hive_sync.db", "lake")
                .build();
        assertThat(oneDatabase.options(ORDERS)).containsEntry("hive_sync.db", "lake");
        assertThat(HudiSink.builder().path(lake.toUri().toString()).build().options(ORDERS))
                .doesNotContainKeys("hive_sync.db", "hive_sync.table");
        assertThatThrownBy(() -> HudiSink.builder()
                        .path(lake.toUri().toString())
                        .option("hive_sync.table", "orders")
                        .build())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'hive_sync.table' would sync every table of the sink to one Hive table");
    }

    @Test
    void refusesSettingsThatWouldLoseChanges(@TempDir Path lake) {
        assertThatThrownBy(() -> HudiSink.builder()
                        .path("x")
                        .option("write.precombine", "false")
                        .build())
                .hasMessageContaining("'write.precombine' = 'false' would let a batch that deletes and re-inserts a"
                        + " key read as deleted");
        assertThatThrownBy(() -> HudiSink.builder()
                        .path("x")
                        .option("write.operation", "insert")
                        .build())
                .hasMessageContaining("appends rows without applying updates and deletes");
        assertThatThrownBy(() -> HudiSink.builder().build()).hasMessageContaining("Set 'path'");
        assertThatThrownBy(() -> HudiSink.builder().path("x").tableType("merge").build())
                .hasMessageContaining("'table.type' = 'MERGE' is unknown");
        TableDescriptor nanos = TableDescriptor.builder(TableId.of("shop", "events"))
                .column("id", DataTypes.INT())
                .column("at", DataTypes.TIMESTAMP(9))
                .primaryKey("id")
                .build();
        assertThatThrownBy(() ->
                        HudiSink.builder().path(lake.toUri().toString()).build().validate(List.of(nanos)))
                .hasMessageContaining(
                        "Column shop.events.at is TIMESTAMP(9); Hudi stores timestamps with at most microseconds");
        TableDescriptor clash = ORDERS.toBuilder()
                .column("_source_position", DataTypes.BIGINT())
                .build();
        assertThatThrownBy(() ->
                        HudiSink.builder().path(lake.toUri().toString()).build().validate(List.of(clash)))
                .hasMessageContaining("already has a column '_source_position'");
        TableDescriptor flag = ORDERS.toBuilder()
                .column("_hoodie_is_deleted", DataTypes.BOOLEAN())
                .build();
        assertThatThrownBy(() ->
                        HudiSink.builder().path(lake.toUri().toString()).build().validate(List.of(flag)))
                .hasMessageContaining("has a column '_hoodie_is_deleted', which Hudi reads as 'this row is deleted'");
        assertThatThrownBy(() -> HudiSink.builder()
                        .path(lake.toUri().toString())
                        .precombineField("version")
                        .build()
                        .validate(List.of(ORDERS)))
                .hasMessageContaining("'precombine.field' = 'version' is no column of table shop.orders");
        assertThatThrownBy(() -> HudiSink.builder()
                        .path(lake.toUri().toString())
                        .partitionFields("shop.order", "region")
                        .build()
                        .validate(List.of(ORDERS)))
                .hasMessageContaining("'partition-fields.shop.order' names no table");
    }

    @Test
    void writesATableCreatedWithoutTheSoftDeleteFlagAsItIsAndLoadsItsKeys(@TempDir Path lake) throws IOException {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        createTableWithoutTheSoftDeleteFlag(sink);
        sink.validate(List.of(ORDERS));
        assertThat(sink.writeRowType(ORDERS).getFieldNames())
                .containsExactly("id", "qty", "at", "region", "_source_position");
        assertThat(sink.describe(List.of(ORDERS)))
                .singleElement()
                .asString()
                .contains(": exists, MERGE_ON_READ")
                .contains("loads its keys into the index when the job starts")
                .doesNotContain("deletes rows it no longer finds");
        // Loads the keys in one task: Hudi 0.14's bootstrap tasks wait for each other in a loop that
        // cannot be cancelled, so a failure while one waits would keep the job from restarting.
        assertThat(sink.options(ORDERS))
                .containsEntry("index.bootstrap.enabled", "true")
                .containsEntry("write.index_bootstrap.tasks", "1")
                // Empty checkpoints commit too: Hudi 0.14's writer can otherwise hang in the next one.
                .containsEntry("hoodie.allow.empty.commit", "true");
        assertThat(HudiSink.builder()
                        .path(lake.toUri().toString())
                        .option("write.index_bootstrap.tasks", "4")
                        .option("hoodie.allow.empty.commit", "false")
                        .build()
                        .options(ORDERS))
                .containsEntry("index.bootstrap.enabled", "true")
                .containsEntry("write.index_bootstrap.tasks", "4")
                .containsEntry("hoodie.allow.empty.commit", "false");
        // A new table gets the flag; a payload of the user's or reconcile-snapshots=false leave it out.
        TableDescriptor other = TableDescriptor.builder(TableId.of("shop", "other"))
                .column("id", DataTypes.INT())
                .primaryKey("id")
                .build();
        assertThat(sink.writeRowType(other).getFieldNames())
                .containsExactly("id", "_source_position", "_hoodie_is_deleted");
        assertThat(sink.describe(List.of(other)))
                .singleElement()
                .asString()
                .contains(": will be created")
                .contains("a snapshot from scratch deletes rows it no longer finds")
                .doesNotContain("index");
        assertThat(HudiSink.builder()
                        .path(lake.toUri().toString())
                        .option("payload.class", "x.Mine")
                        .build()
                        .writeRowType(other)
                        .getFieldNames())
                .containsExactly("id", "_source_position");
        assertThat(HudiSink.builder()
                        .path(lake.toUri().toString())
                        .reconcileSnapshots(false)
                        .build()
                        .writeRowType(other)
                        .getFieldNames())
                .containsExactly("id", "_source_position");
    }

    @Test
    void anExistingTableIsWrittenOnWithTheColumnsTheRowsGainedNullableWhereItHoldsNulls(@TempDir Path lake)
            throws IOException {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        createTableWithoutTheSoftDeleteFlag(sink);
        // The source now says qty and region are NOT NULL and has a new NOT NULL column (added with a default):
        // the rows written before hold NULL in all three, so the table keeps taking NULL there.
        TableDescriptor now = TableDescriptor.builder(ORDERS.tableId())
                .column("id", DataTypes.BIGINT())
                .column("qty", DataTypes.SMALLINT().notNull())
                .column("note", DataTypes.STRING().notNull())
                .column("at", DataTypes.TIME(6))
                .column("region", DataTypes.STRING().notNull())
                .primaryKey("id")
                .build();
        sink.validate(List.of(now), true);
        assertThat(sink.writeRowType(now).asSummaryString())
                .isEqualTo("ROW<`id` BIGINT NOT NULL, `qty` INT, `note` STRING, `at` TIME(3), `region` STRING,"
                        + " `_source_position` BIGINT NOT NULL '...'> NOT NULL");
        // Without following schema changes the table must match; a column the rows lack is refused either way.
        assertThatThrownBy(() -> sink.validate(List.of(now), false)).hasMessageContaining("has the columns");
        TableDescriptor withoutRegion =
                ORDERS.toBuilder().columns(ORDERS.columns().subList(0, 3)).build();
        assertThatThrownBy(() -> sink.validate(List.of(withoutRegion), true))
                .hasMessageContaining("has a column 'region' the rows of shop.orders do not have");
    }

    /**
     * A job rebuilt (or restarted) under {@code lenient} after columns were dropped at the source: the table
     * keeps them, and the sink writes them on after the rows' columns, typed from the table, NULL.
     */
    @Test
    void columnsTheSourceDroppedStayInTheWriteTypeWhereTheSourceKeepsThem(@TempDir Path lake) throws IOException {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        createTableWithoutTheSoftDeleteFlag(sink);
        TableDescriptor idOnly =
                ORDERS.toBuilder().columns(ORDERS.columns().subList(0, 1)).build();
        assertThatThrownBy(() -> sink.validate(List.of(idOnly), true, false))
                .hasMessageContaining("has a column 'qty' the rows of shop.orders do not have")
                .hasMessageContaining("'exclude.schema.changes' = 'drop.column, rename.column'");
        // Without following schema changes, keeping dropped columns means nothing: the table must match.
        assertThatThrownBy(() -> sink.validate(List.of(idOnly), false, true)).hasMessageContaining("has the columns");
        sink.validate(List.of(idOnly), true, true);
        assertThat(sink.writeRowType(idOnly).asSummaryString())
                .isEqualTo("ROW<`id` BIGINT NOT NULL, `qty` INT '...', `at` TIME(3) '...', `region` STRING '...',"
                        + " `_source_position` BIGINT NOT NULL '...'> NOT NULL");
    }

    @Test
    void aKeptColumnOfATypeTheSinkNeverWritesIsRefused(@TempDir Path lake) throws IOException {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        TableDescriptor events = TableDescriptor.builder(TableId.of("shop", "events"))
                .column("id", DataTypes.BIGINT())
                .primaryKey("id")
                .build();
        createTable(
                sink,
                events.tableId(),
                "{\"name\":\"tags\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"string\"}]}");
        assertThatThrownBy(() -> sink.validate(List.of(events), true, true))
                .hasMessageContaining("has a column 'tags' the rows of shop.events do not have, stored as Avro array");
    }

    @Test
    void aTimestampOfAnotherPrecisionIsRefusedAsHudiWouldReadItsOldValuesInTheWrongUnit(@TempDir Path lake)
            throws IOException {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        TableDescriptor events = TableDescriptor.builder(TableId.of("shop", "events"))
                .column("id", DataTypes.BIGINT())
                .column("at", DataTypes.TIMESTAMP(3))
                .primaryKey("id")
                .build();
        createTable(
                sink,
                events.tableId(),
                "{\"name\":\"at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]}");
        sink.validate(List.of(events), false);
        sink.validate(List.of(events), true);
        TableDescriptor micros = events.toBuilder()
                .columns(
                        List.of(events.columns().get(0), events.columns().get(1).withType(DataTypes.TIMESTAMP(6))))
                .build();
        for (boolean followed : new boolean[] {false, true}) {
            assertThatThrownBy(() -> sink.validate(List.of(micros), followed))
                    .hasMessageContaining("stores column 'at' as Avro long timestamp-millis, but shop.events has it as"
                            + " TIMESTAMP(6)");
        }
    }

    /**
     * A column's default marked given by a job whose checkpoints the next job does not restore: a rebuild that
     * found none of them restores an older checkpoint, Hudi rolls back the instant that gave the rows their
     * default, and the rebuilt job must give it again (seen in HudiSchemaEvolutionITCase: a row kept NULL).
     */
    @Test
    void aDefaultMarkedGivenAfterTheRestoredCheckpointIsGivenAgain(@TempDir Path lake, @TempDir Path checkpoint)
            throws Exception {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        TableDescriptor events = TableDescriptor.builder(TableId.of("shop", "events"))
                .column("id", DataTypes.BIGINT())
                .column("status", DataTypes.STRING())
                .primaryKey("id")
                .build();
        String table = sink.tablePath(events.tableId());
        // As the sink creates its tables: with its ordering, soft deletes and the payload that compares them.
        HoodieTableMetaClient.withPropertyBuilder()
                .setTableType(HoodieTableType.MERGE_ON_READ)
                .setTableName("events")
                .setRecordKeyFields("id")
                .setPreCombineField("_source_position")
                .setPayloadClassName("org.apache.hudi.common.model.DefaultHoodieRecordPayload")
                .setTableCreateSchema("{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"status\",\"type\":[\"null\",\"string\"]},"
                        + "{\"name\":\"_source_position\",\"type\":\"long\"},"
                        + "{\"name\":\"_hoodie_is_deleted\",\"type\":[\"null\",\"boolean\"]}]}")
                .initTable(new org.apache.hadoop.conf.Configuration(false), table);
        HudiDefaults.record(
                table, HudiDefaults.Added.of("status", "new", 42L), new org.apache.hadoop.conf.Configuration(false));
        HudiDefaults.markDone(table, "status", new org.apache.hadoop.conf.Configuration(false));
        // A checkpoint that completed a minute before the mark.
        Path metadata = Files.writeString(checkpoint.resolve("_metadata"), "checkpoint");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(System.currentTimeMillis() - 60_000));

        assertThat(operators(sink, events, null)).doesNotContain(BACKFILL);
        assertThat(operators(sink, events, checkpoint.toUri().toString()))
                .as("restored from a checkpoint older than the mark")
                .contains(BACKFILL);
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        assertThat(operators(sink, events, checkpoint.toUri().toString()))
                .as("restored from a checkpoint newer than the mark")
                .doesNotContain(BACKFILL);
    }

    /** The context a pipeline of the one table gives the sink. */
    private static SinkContext context(TableDescriptor table) {
        return new SinkContext() {
            @Override
            public List<TableDescriptor> tables() {
                return List.of(table);
            }

            @Override
            public String uid(String part) {
                return "hudi-" + part;
            }
        };
    }

    private static final String BACKFILL = "Hudi: give rows from before an added column its default";

    /** The operators of a job with the sink for the table, restored from the checkpoint if one is named. */
    private static List<String> operators(HudiSink sink, TableDescriptor table, String restore) {
        Configuration conf = new Configuration();
        if (restore != null) {
            conf.set(SavepointConfigOptions.SAVEPOINT_PATH, restore);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(1_000);
        sink.validate(List.of(table), true);
        DataStream<ChangeEvent> changes = env.fromCollection(List.of(), ChangeEventTypeInfo.of(List.of(table)));
        sink.addSink(changes, context(table));
        return env.getStreamGraph().getStreamNodes().stream()
                .map(StreamNode::getOperatorName)
                .collect(Collectors.toList());
    }

    /**
     * A MERGE_ON_READ table keyed by {@code id} and ordered by {@code _source_position}, as Hudi's own table
     * creation leaves it (the properties file with its checksum), with these Avro fields between the two.
     */
    private static void createTable(HudiSink sink, TableId id, String fields) throws IOException {
        HoodieTableMetaClient.withPropertyBuilder()
                .setTableType(HoodieTableType.MERGE_ON_READ)
                .setTableName(id.table())
                .setRecordKeyFields("id")
                .setPreCombineField("_source_position")
                .setTableCreateSchema("{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"long\"}," + fields
                        + ",{\"name\":\"_source_position\",\"type\":\"long\"}]}")
                .initTable(new org.apache.hadoop.conf.Configuration(false), sink.tablePath(id));
    }

    /** A MERGE_ON_READ table of ORDERS as Hudi's own writer creates it: no soft-delete flag. */
    private static void createTableWithoutTheSoftDeleteFlag(HudiSink sink) throws IOException {
        createTable(
                sink,
                ORDERS.tableId(),
                "{\"name\":\"qty\",\"type\":[\"null\",\"int\"]},"
                        + "{\"name\":\"at\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"time-millis\"}]},"
                        + "{\"name\":\"region\",\"type\":[\"null\",\"string\"]}");
    }

    @Test
    void loadsTheKeysOfAnExistingTableInOneTaskOfTheBuiltJob(@TempDir Path lake) throws IOException {
        HudiSink sink = HudiSink.builder().path(lake.toUri().toString()).build();
        createTableWithoutTheSoftDeleteFlag(sink);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000);
        // A source of four tasks, as a Kafka source of four partitions has: without the setting, Hudi
        // bootstraps with the parallelism of its input.
        DataStream<ChangeEvent> changes = env.fromCollection(List.of(), ChangeEventTypeInfo.of(List.of(ORDERS)))
                .rebalance()
                .map(e -> e, ChangeEventTypeInfo.of(List.of(ORDERS)))
                .setParallelism(4);
        sink.addSink(changes, context(ORDERS));
        Map<String, Integer> parallelism = env.getStreamGraph().getStreamNodes().stream()
                .collect(Collectors.toMap(StreamNode::getOperatorName, StreamNode::getParallelism, (a, b) -> a));
        // Hudi 0.14's bootstrap tasks wait for each other in a loop that cannot be cancelled; one task
        // never enters it.
        assertThat(parallelism).containsEntry("Hudi: split by table", 4).containsEntry("index_bootstrap", 1);
    }
}
