package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.spi.SnapshotSignal;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.EOFException;
import java.io.IOException;
import java.io.Serializable;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Flink CDC's {@code MySqlSource}, unchanged but watched: its readers say at WARN, when it happens,
 * that the connection to MySQL was lost (Debezium reports it as a producer failure, the binlog
 * client's own reconnects only through java.util.logging, which Flink's logging does not show).
 * Splits, state and the enumerator are Flink CDC's own, so savepoints are the same.
 *
 * <p>It also tells the sinks about snapshots ({@link SnapshotSignal}), through the side channel: an
 * enumerator created without state in a startup mode that snapshots tells each reader, before any
 * split, that a snapshot starts from scratch, and the reader sends {@code STARTED} before its first
 * row. A reader that gets the binlog split after it started (the enumerator hands it out once every
 * snapshot split is read and reported), listing finished snapshot splits, sends {@code COMPLETED}
 * before the binlog's first change. The signals are not part of the reader's state: a checkpoint
 * taken between a signal's cause and its emission loses it on restore, and the sinks then leave the
 * tables as they are (they never act on a missing signal).
 * Splits a reader restores from a checkpoint reach it before {@link SourceReader#start()}, so a
 * restored binlog phase sends nothing.
 *
 * <p>The split and state types are Flink CDC's, whose package differs between its lines; {@link
 * FlinkCdc} creates this with them and says which split ends a snapshot ({@link Splits}).
 *
 * @param <SplitT> Flink CDC's {@code MySqlSplit}
 * @param <StateT> Flink CDC's {@code PendingSplitsState}
 */
@Internal
public final class WatchedMySqlSource<SplitT extends SourceSplit, StateT>
        implements Source<ChangeEvent, SplitT, StateT>, ResultTypeQueryable<ChangeEvent> {

    private static final long serialVersionUID = 2L;
    private static final Logger LOG = LoggerFactory.getLogger(WatchedMySqlSource.class);

    /** What the watcher needs to know of Flink CDC's splits. */
    public interface Splits<SplitT> extends Serializable {
        /** Whether the split is the binlog split handed out after a snapshot, listing its finished splits. */
        boolean isBinlogSplitAfterSnapshot(SplitT split);

        /**
         * Hands a binlog split's table schemas, as Debezium keeps them in the split (and its checkpoints),
         * to the deserializer before the split's first record: a job restored from after a schema change
         * it followed reads the tables as they are then, not as the job was built.
         */
        void tablesOf(SplitT split);
    }

    private final Source<ChangeEvent, SplitT, StateT> delegate;
    private final Splits<SplitT> splits;
    private final TypeInformation<ChangeEvent> producedType;
    private final String where;
    private final boolean snapshots;

    /**
     * @param delegate Flink CDC's {@code MySqlSource}
     * @param producedType the events' type (the delegate's deserializer's)
     * @param snapshots whether the startup mode reads a snapshot first ({@code initial})
     */
    public WatchedMySqlSource(
            Source<ChangeEvent, SplitT, StateT> delegate,
            Splits<SplitT> splits,
            TypeInformation<ChangeEvent> producedType,
            String hostAndPort,
            boolean snapshots) {
        this.delegate = delegate;
        this.splits = splits;
        this.producedType = producedType;
        this.where = hostAndPort;
        this.snapshots = snapshots;
    }

    @Override
    public Boundedness getBoundedness() {
        return delegate.getBoundedness();
    }

    @Override
    public SourceReader<ChangeEvent, SplitT> createReader(SourceReaderContext readerContext) throws Exception {
        BinlogClientLogs.install();
        return new Reader<>(delegate.createReader(readerContext), splits, where);
    }

    @Override
    public SplitEnumerator<SplitT, StateT> createEnumerator(SplitEnumeratorContext<SplitT> enumContext)
            throws Exception {
        return new Enumerator<>(delegate.createEnumerator(enumContext), enumContext, snapshots);
    }

    @Override
    public SplitEnumerator<SplitT, StateT> restoreEnumerator(
            SplitEnumeratorContext<SplitT> enumContext, StateT checkpoint) throws Exception {
        return new Enumerator<>(delegate.restoreEnumerator(enumContext, checkpoint), enumContext, false);
    }

    @Override
    public SimpleVersionedSerializer<SplitT> getSplitSerializer() {
        return delegate.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<StateT> getEnumeratorCheckpointSerializer() {
        return delegate.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<ChangeEvent> getProducedType() {
        return producedType;
    }

    /** Whether a failure is a lost connection rather than a fault of the data. */
    static boolean isConnectionLoss(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof EOFException || t instanceof SocketException || t instanceof ConnectException) {
                return true;
            }
            String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("communications link failure")
                    || m.contains("connection reset")
                    || m.contains("connection refused")
                    || m.contains("failed to read next byte")
                    || m.contains("connection closed")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** Tells a reader, before the enumerator can hand it a split, whether a snapshot starts from scratch. */
    static final class SnapshotFromScratch implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /**
     * Flink CDC's enumerator; when it was created without state and the startup mode snapshots, each
     * reader that registers before the first completed checkpoint hears that a snapshot starts from
     * scratch. A reader registering later (a restarted subtask under a living enumerator) does not:
     * its snapshot is a continued one.
     */
    private static final class Enumerator<SplitT extends SourceSplit, StateT>
            implements SplitEnumerator<SplitT, StateT> {
        private final SplitEnumerator<SplitT, StateT> delegate;
        private final SplitEnumeratorContext<SplitT> context;
        private boolean fromScratch;

        Enumerator(
                SplitEnumerator<SplitT, StateT> delegate, SplitEnumeratorContext<SplitT> context, boolean fromScratch) {
            this.delegate = delegate;
            this.context = context;
            this.fromScratch = fromScratch;
        }

        @Override
        public void start() {
            delegate.start();
        }

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
            delegate.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<SplitT> splits, int subtaskId) {
            delegate.addSplitsBack(splits, subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            if (fromScratch) {
                // Before the delegate can assign a split: events to one reader arrive in the order sent.
                context.sendEventToSourceReader(subtaskId, new SnapshotFromScratch());
            }
            delegate.addReader(subtaskId);
        }

        @Override
        public StateT snapshotState(long checkpointId) throws Exception {
            return delegate.snapshotState(checkpointId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
            delegate.handleSourceEvent(subtaskId, sourceEvent);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            fromScratch = false;
            delegate.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            delegate.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }

    /**
     * Flink CDC's reader; a failure that is a lost connection is said at WARN before it fails the
     * task, and snapshot signals go out through the side channel before the rows they precede.
     */
    private static final class Reader<SplitT extends SourceSplit> implements SourceReader<ChangeEvent, SplitT> {
        private final SourceReader<ChangeEvent, SplitT> delegate;
        private final Splits<SplitT> splits;
        private final String where;
        private final ArrayDeque<SnapshotSignal> signals = new ArrayDeque<>();
        private CompletableFuture<Void> signalled = new CompletableFuture<>();
        private boolean started;

        Reader(SourceReader<ChangeEvent, SplitT> delegate, Splits<SplitT> splits, String where) {
            this.delegate = delegate;
            this.splits = splits;
            this.where = where;
        }

        private RuntimeException reported(RuntimeException e) {
            if (isConnectionLoss(e)) {
                LOG.warn(
                        "Lost the binlog connection to MySQL at {}: {}. The source fails over: Flink"
                                + " restarts it from its last"
                                + " checkpoint (restart strategy), and it reconnects once the server answers again.",
                        where,
                        Causes.root(e));
            }
            return e;
        }

        @Override
        public void start() {
            started = true;
            delegate.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<ChangeEvent> output) throws Exception {
            SnapshotSignal signal = signals.poll();
            if (signal != null) {
                output.collect(SideChannel.snapshotSignal(signal));
                return InputStatus.MORE_AVAILABLE;
            }
            try {
                return delegate.pollNext(output);
            } catch (RuntimeException e) {
                throw reported(e);
            }
        }

        @Override
        public List<SplitT> snapshotState(long checkpointId) {
            return delegate.snapshotState(checkpointId);
        }

        /** Queues a signal for the next poll, and wakes a reader that waits for its delegate's data. */
        private void signal(SnapshotSignal signal) {
            signals.add(signal);
            signalled.complete(null);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            if (!signals.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            if (signalled.isDone()) {
                signalled = new CompletableFuture<>();
            }
            return CompletableFuture.anyOf(delegate.isAvailable(), signalled).thenApply(done -> null);
        }

        @Override
        public void addSplits(List<SplitT> added) {
            // Restored splits come before start(); a binlog split handed out later that lists finished snapshot
            // splits follows a finished snapshot (in a mode that reads none, it lists none).
            if (started && added.stream().anyMatch(splits::isBinlogSplitAfterSnapshot)) {
                signal(SnapshotSignal.COMPLETED);
            }
            added.forEach(splits::tablesOf);
            delegate.addSplits(added);
        }

        @Override
        public void notifyNoMoreSplits() {
            delegate.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent sourceEvent) {
            if (sourceEvent instanceof SnapshotFromScratch) {
                signal(SnapshotSignal.STARTED);
            } else {
                delegate.handleSourceEvents(sourceEvent);
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            delegate.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            delegate.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> splitsToPause, Collection<String> splitsToResume) {
            delegate.pauseOrResumeSplits(splitsToPause, splitsToResume);
        }

        @Override
        public void close() throws Exception {
            try {
                delegate.close();
            } finally {
                BinlogClientLogs.uninstall();
            }
        }
    }

    /** Forwards the binlog client's java.util.logging records to SLF4J, its reconnects at WARN. */
    static final class BinlogClientLogs extends Handler {
        private static final Logger BINLOG = LoggerFactory.getLogger("com.github.shyiko.mysql.binlog.BinaryLogClient");
        private static final Formatter FORMAT = new SimpleFormatter();
        private static final Pattern LOST = Pattern.compile("(?i)lost connection to (\\S+:\\d+)");
        // Held: java.util.logging keeps loggers only weakly, and a collected one would come back without the handler.
        private static java.util.logging.Logger jul;
        private static BinlogClientLogs handler;
        private static int readers;

        /**
         * Adds the handler to the JVM's logger while a reader of this class loader is open. Removed with
         * the last reader: it holds this job's class loader, which a session cluster must be able to drop.
         */
        static synchronized void install() {
            if (readers++ == 0) {
                jul = java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog.BinaryLogClient");
                handler = new BinlogClientLogs();
                jul.addHandler(handler);
            }
        }

        static synchronized void uninstall() {
            if (readers > 0 && --readers == 0) {
                jul.removeHandler(handler);
                handler = null;
                jul = null;
            }
        }

        @Override
        public void publish(LogRecord record) {
            if (record.getMessage() == null) {
                return;
            }
            String message = FORMAT.formatMessage(record);
            int level = record.getLevel().intValue();
            Matcher lost = LOST.matcher(message);
            if (lost.find()) {
                BINLOG.warn(
                        "Lost the binlog connection to MySQL at {}; the binlog client reconnects ({}). A"
                                + " connection that"
                                + " goes quiet is noticed after 'debezium.connect.keep.alive.interval.ms'," + " 10 s by"
                                + " default.",
                        lost.group(1),
                        message);
            } else if (level >= Level.WARNING.intValue()) {
                BINLOG.warn(message, record.getThrown());
            } else if (level >= Level.INFO.intValue()) {
                BINLOG.info(message);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
