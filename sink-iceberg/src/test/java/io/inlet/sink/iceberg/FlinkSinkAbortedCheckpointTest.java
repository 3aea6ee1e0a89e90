package io.inlet.sink.iceberg;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.WriteResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins down what Iceberg 1.6.1's own committer (the one behind {@link FlinkSink}, which the sink uses
 * today) does when a checkpoint is aborted before its barrier reaches the committer: the writers'
 * results of that checkpoint are filed under the next one and committed in one snapshot with it, so
 * the next checkpoint's equality deletes (same sequence number) miss the rows the aborted one wrote,
 * and an old row stays beside its update (apache/iceberg#10431). Driven through Flink's operator
 * test harness with real data and delete files, deterministically. When Inlet's own committer
 * replaces this path, the same scenario must end with the update only.
 */
class FlinkSinkAbortedCheckpointTest {

    private static final Schema SCHEMA = TestFiles.SCHEMA;

    /** Iceberg's committer operator, as FlinkSink adds it to a job. */
    @SuppressWarnings("unchecked")
    private static OneInputStreamOperator<WriteResult, Void> icebergCommitter(Table table, TableLoader loader) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        TypeInformation<RowData> type = InternalTypeInfo.of(FlinkSchemaUtil.convert(SCHEMA));
        DataStream<RowData> rows =
                env.fromCollection(List.<RowData>of(GenericRowData.of(1, StringData.fromString("x"))), type);
        FlinkSink.forRowData(rows)
                .table(table)
                .tableLoader(loader)
                .equalityFieldColumns(List.of("id"))
                .upsert(true)
                .append();
        for (StreamNode node : env.getStreamGraph().getStreamNodes()) {
            if (node.getOperatorName().contains("IcebergFilesCommitter")) {
                return (OneInputStreamOperator<WriteResult, Void>)
                        ((SimpleOperatorFactory<?>) node.getOperatorFactory()).getOperator();
            }
        }
        throw new AssertionError("FlinkSink added no IcebergFilesCommitter");
    }

    /**
     * The writers' results of checkpoint 1 (the row), then of checkpoint 2 (its update: delete of the
     * key, new row).
     */
    private static List<String> commit(Path warehouse, boolean checkpointOneAborted) throws Exception {
        try (HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(false), warehouse.toUri().toString())) {
            TableIdentifier id = TableIdentifier.of("lake", "orders");
            Table table = catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
            TableLoader loader = TableLoader.fromHadoopTable(table.location(), new Configuration(false));
            GenericAppenderFactory files = new GenericAppenderFactory(
                    SCHEMA, PartitionSpec.unpartitioned(), new int[] {1}, SCHEMA.select("id"), null);
            try (OneInputStreamOperatorTestHarness<WriteResult, Void> committer =
                    new OneInputStreamOperatorTestHarness<>(icebergCommitter(table, loader), 1, 1, 0)) {
                committer.open();
                committer.processElement(new StreamRecord<>(WriteResult.builder()
                        .addDataFiles(TestFiles.dataFile(table, files, 1, "v1"))
                        .build()));
                if (!checkpointOneAborted) {
                    committer.snapshot(1L, 1L);
                    committer.notifyOfCompletedCheckpoint(1L);
                }
                // Checkpoint 1 aborted before its barrier reached the committer: no snapshot, no notification.
                committer.processElement(new StreamRecord<>(WriteResult.builder()
                        .addDeleteFiles(TestFiles.deleteOfKey(table, files, 1))
                        .addDataFiles(TestFiles.dataFile(table, files, 1, "v2"))
                        .build()));
                committer.snapshot(2L, 2L);
                committer.notifyOfCompletedCheckpoint(2L);
            }
            return TestFiles.rows(catalog.loadTable(id));
        }
    }

    @Test
    void checkpointsCommittedOneByOneApplyTheUpdate(@TempDir Path warehouse) throws Exception {
        assertThat(commit(warehouse, false)).containsExactly("1=v2");
    }

    @Test
    void anAbortedCheckpointFoldedIntoTheNextLeavesTheOldRowBesideItsUpdate(@TempDir Path warehouse) throws Exception {
        assertThat(commit(warehouse, true))
                .as("Iceberg 1.6.1's committer commits both checkpoints' files in one snapshot; if this changes,"
                        + " the README's caveat about aborted checkpoints can go")
                .containsExactly("1=v1", "1=v2");
    }
}
