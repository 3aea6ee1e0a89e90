package io.inlet.source.iceberg.internal;

import io.inlet.source.iceberg.internal.ChangelogEvents.EpochsComplete;
import io.inlet.source.iceberg.internal.ChangelogEvents.ReaderProgress;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.TaskWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader against a real table: a checkpoint in the middle of a file resumes after the rows
 * already emitted, a split read to the end is reported and kept in the state until its epoch is
 * complete, and the watermark never passes an epoch the reader still has rows of.
 */
class ChangelogReaderTest {

    private static final int ROWS = 3000;

    @TempDir
    Path warehouse;

    /** Flink's reader context, as far as the reader uses it: the events it sends. */
    static final class Context implements SourceReaderContext {
        final List<SourceEvent> sent = new ArrayList<>();

        @Override
        public SourceReaderMetricGroup metricGroup() {
            throw new UnsupportedOperationException("the reader registers no metrics");
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {
            throw new AssertionError("the reader asks through ReaderProgress");
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent event) {
            sent.add(event);
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
        }
    }

    /** What the reader emits, in order: ids with their epoch, and watermarks as "wm N". */
    static final class Output implements ReaderOutput<RowData> {
        final List<String> emitted = new ArrayList<>();
        final List<Long> ids = new ArrayList<>();
        /** Each row's commit columns, as "snapshot/sequence/millis". */
        final java.util.Set<String> commits = new java.util.HashSet<>();

        @Override
        public void collect(RowData row) {
            throw new AssertionError("rows carry their epoch as the timestamp");
        }

        @Override
        public void collect(RowData row, long timestamp) {
            // The initial scan removes nothing: its rows are marked to pass the pairing at once.
            assertThat(row.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
            ids.add(row.getLong(0));
            commits.add(row.getLong(row.getArity() - 3) + "/" + row.getLong(row.getArity() - 2) + "/"
                    + row.getLong(row.getArity() - 1));
            emitted.add("row@" + timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            emitted.add("wm " + watermark.getTimestamp());
        }

        @Override
        public void markIdle() {}

        public void markActive() {}

        @Override
        public SourceOutput<RowData> createOutputForSplit(String splitId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }

    private ChangelogReader reader(Context context, Table table) {
        ChangelogReader reader = new ChangelogReader(
                context,
                CatalogLoader.hadoop(
                        "lake",
                        new org.apache.hadoop.conf.Configuration(false),
                        TestTables.catalogProperties(warehouse)),
                "db." + table.name().substring(table.name().lastIndexOf('.') + 1),
                SchemaParser.toJson(table.schema()));
        reader.start();
        return reader;
    }

    private ChangeSplit oneFile(Table table) throws Exception {
        TaskWriter<RowData> w = TestTables.writer(table, false, 0);
        for (int i = 0; i < ROWS; i++) {
            w.write(TestTables.row(RowKind.INSERT, i, 0, "v" + i));
        }
        TestTables.commit(table, w.complete());
        table.refresh();
        List<ChangeSplit> splits = SnapshotPlanner.scan(table, table.currentSnapshot(), 4);
        assertThat(splits).hasSize(1);
        return splits.get(0);
    }

    @Test
    void aCheckpointWithinAFileResumesAfterTheRowsEmitted() throws Exception {
        Table table = TestTables.create(warehouse, "resumed", false);
        ChangeSplit split = oneFile(table);

        Context first = new Context();
        ChangelogReader a = reader(first, table);
        a.addSplits(List.of(split));
        Output out = new Output();
        assertThat(a.pollNext(out)).isEqualTo(InputStatus.MORE_AVAILABLE);
        List<ChangeSplit> state = a.snapshotState(1);
        assertThat(state).containsExactly(split.at(out.ids.size()));
        assertThat(out.ids).hasSizeBetween(1, ROWS - 1);
        a.close();

        Context second = new Context();
        ChangelogReader b = reader(second, table);
        b.addSplits(state);
        while (b.pollNext(out) == InputStatus.MORE_AVAILABLE) {}
        Set<Long> distinct = new HashSet<>(out.ids);
        assertThat(out.ids).as("every row once").hasSize(ROWS);
        assertThat(distinct).hasSize(ROWS);
        assertThat(out.commits)
                .as("every row carries its snapshot's sequence number and commit time")
                .containsExactly(table.currentSnapshot().snapshotId() + "/"
                        + table.currentSnapshot().sequenceNumber() + "/"
                        + table.currentSnapshot().timestampMillis());

        assertThat(second.sent).hasSize(1);
        ReaderProgress progress = (ReaderProgress) second.sent.get(0);
        assertThat(progress.finished).containsExactly(split.splitId());
        assertThat(progress.wantsSplit).isTrue();
        assertThat(b.snapshotState(2))
                .as("kept until its epoch is complete")
                .singleElement()
                .satisfies(s -> assertThat(s.splitId()).isEqualTo(split.splitId()))
                .satisfies(s -> assertThat(s.finished()).isTrue());

        b.handleSourceEvents(new EpochsComplete(4));
        assertThat(b.isAvailable()).isDone();
        b.pollNext(out);
        assertThat(out.emitted).last().isEqualTo("wm 4");
        assertThat(b.snapshotState(3)).isEmpty();
        b.close();
    }

    @Test
    void theWatermarkStaysBelowAnEpochTheReaderStillHasRowsOf() throws Exception {
        Table table = TestTables.create(warehouse, "held", false);
        ChangeSplit split = oneFile(table);

        Context context = new Context();
        ChangelogReader reader = reader(context, table);
        // As after a failover that did not reset the enumerator: the epoch was announced, the split comes back.
        reader.addSplits(List.of(split.at(100)));
        reader.handleSourceEvents(new EpochsComplete(4));
        Output out = new Output();
        while (reader.pollNext(out) == InputStatus.MORE_AVAILABLE) {}
        assertThat(out.ids).hasSize(ROWS - 100);
        int lastRow = out.emitted.lastIndexOf("row@4");
        assertThat(out.emitted.subList(0, lastRow)).doesNotContain("wm 4").contains("wm 3");
        assertThat(out.emitted.subList(lastRow, out.emitted.size())).contains("wm 4");
        reader.close();
    }
}
