package io.inlet.sink.iceberg;

import io.inlet.iceberg.IcebergCatalogConfig;
import io.inlet.iceberg.internal.JvmLockManager;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Hadoop catalog whose commits fail and whose files fail or stall when a test asks: the real
 * catalog and files underneath, with faults where a store or a network would have them. The faults
 * live in this JVM (the MiniCluster's), found through the catalog property {@value #FAULTS}.
 *
 * <pre>{@code
 * FaultyCatalog.Faults faults = FaultyCatalog.faults();
 * faults.failCommitsAfterApplying(1);
 * IcebergCatalogConfig config = faults.catalog(warehouse);
 * }</pre>
 */
public class FaultyCatalog extends HadoopCatalog {

    /** The catalog property naming the {@link Faults} to apply. */
    public static final String FAULTS = "test.faults";

    private static final Map<String, Faults> REGISTRY = new ConcurrentHashMap<>();

    private String key;

    /** New faults, none armed yet. */
    public static Faults faults() {
        Faults f = new Faults(UUID.randomUUID().toString());
        REGISTRY.put(f.key, f);
        return f;
    }

    @Override
    public void initialize(String name, Map<String, String> properties) {
        super.initialize(name, properties);
        key = properties.get(FAULTS);
    }

    @Override
    protected TableOperations newTableOps(TableIdentifier identifier) {
        TableOperations ops = super.newTableOps(identifier);
        return key == null ? ops : new FaultyOps(ops, key);
    }

    /** What goes wrong, and counts of what did. */
    public static final class Faults {
        final String key;
        private final AtomicInteger commitsToFailBefore = new AtomicInteger();
        private final AtomicInteger commitsToFailAfter = new AtomicInteger();
        private final AtomicInteger writesToFail = new AtomicInteger();
        private final AtomicInteger files = new AtomicInteger();
        private volatile int fileToFail = -1;
        private final AtomicInteger commits = new AtomicInteger();
        private volatile int commitToCrash = -1;
        private volatile boolean crashAfterApplying;
        private volatile String stallPrefix;
        private volatile boolean stallCommit;
        private volatile CountDownLatch release;
        private final CountDownLatch stalled = new CountDownLatch(1);
        private final AtomicInteger failed = new AtomicInteger();
        private final AtomicReference<Runnable> beforeNextCommit = new AtomicReference<>();

        private Faults(String key) {
            this.key = key;
        }

        /** A catalog over the warehouse with these faults. */
        public IcebergCatalogConfig catalog(String warehouse) {
            return IcebergCatalogConfig.of(
                    "faulty", "hadoop", FaultyCatalog.class.getName(), properties(warehouse), Map.of());
        }

        /** The catalog properties of {@link #catalog}: for a sink's builder, with {@code catalogImpl}. */
        public Map<String, String> properties(String warehouse) {
            Map<String, String> props = new HashMap<>();
            props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
            props.put(CatalogProperties.LOCK_IMPL, JvmLockManager.class.getName());
            props.put(FAULTS, key);
            return props;
        }

        /** The next n commits fail before they change the table, as a lost race with another writer would. */
        public Faults failCommitsBeforeApplying(int n) {
            commitsToFailBefore.set(n);
            return this;
        }

        /** The next n commits change the table and then fail, as a timeout after a successful commit would. */
        public Faults failCommitsAfterApplying(int n) {
            commitsToFailAfter.set(n);
            return this;
        }

        /** The next n data or delete files fail when written, as a full disk would. */
        public Faults failFileWrites(int n) {
            writesToFail.set(n);
            return this;
        }

        /** The nth data or delete file written (from 1) fails, once. */
        public Faults failFileWrite(int nth) {
            fileToFail = nth;
            return this;
        }

        /**
         * The nth commit (from 1) kills its task with an {@link InjectedCrash}, before or after it changed the
         * table, as a task manager dying would: the committer cannot catch it, the job restores.
         */
        public Faults crashCommit(int nth, boolean afterApplying) {
            commitToCrash = nth;
            crashAfterApplying = afterApplying;
            return this;
        }

        /**
         * Closing the first file whose name starts with the prefix (e.g. {@code 00001-}, the files of writer
         * subtask 1) waits until {@link #release()}, as a slow store would: the writer stalls in its flush.
         */
        public Faults stallFirstClose(String fileNamePrefix) {
            release = new CountDownLatch(1);
            stallPrefix = fileNamePrefix;
            return this;
        }

        /**
         * The next commit (not a table's creation) first runs {@code another}, which commits to the table
         * through another handle: another writer committing between this one's plan and its commit.
         */
        public Faults beforeNextCommit(Runnable another) {
            beforeNextCommit.set(another);
            return this;
        }

        /** The next commit (not a table's creation) waits until {@link #release()}, as a slow catalog would. */
        public Faults stallNextCommit() {
            release = new CountDownLatch(1);
            stallCommit = true;
            return this;
        }

        /** Waits until a close or a commit stalled; false if none did in time. */
        public boolean awaitStalled(long timeout, TimeUnit unit) throws InterruptedException {
            return stalled.await(timeout, unit);
        }

        public void release() {
            release.countDown();
        }

        /** How many faults fired. */
        public int failed() {
            return failed.get();
        }

        private static boolean take(AtomicInteger counter) {
            return counter.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
        }
    }

    /** A crash no operator can handle: an {@link Error}, as the death of a task would be. */
    public static final class InjectedCrash extends Error {
        private static final long serialVersionUID = 1L;

        InjectedCrash(String when) {
            super("Injected crash " + when);
        }
    }

    private static Faults faultsOf(String key) {
        Faults f = REGISTRY.get(key);
        if (f == null) {
            throw new IllegalStateException("No faults registered under " + key);
        }
        return f;
    }

    private static final class FaultyOps implements TableOperations {
        private final TableOperations delegate;
        private final String key;

        FaultyOps(TableOperations delegate, String key) {
            this.delegate = delegate;
            this.key = key;
        }

        @Override
        public TableMetadata current() {
            return delegate.current();
        }

        @Override
        public TableMetadata refresh() {
            return delegate.refresh();
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            Faults f = faultsOf(key);
            if (base == null) { // the table's creation
                delegate.commit(null, metadata);
                return;
            }
            Runnable another = f.beforeNextCommit.getAndSet(null);
            if (another != null) {
                another.run();
            }
            if (f.stallCommit) {
                f.stallCommit = false;
                f.stalled.countDown();
                try {
                    if (!f.release.await(60, TimeUnit.SECONDS)) {
                        throw new CommitFailedException("The stalled commit was never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommitFailedException(e, "Interrupted in a stalled commit");
                }
            }
            boolean crash = f.commits.incrementAndGet() == f.commitToCrash;
            if (crash && !f.crashAfterApplying) {
                f.failed.incrementAndGet();
                throw new InjectedCrash("before the commit");
            }
            if (Faults.take(f.commitsToFailBefore)) {
                f.failed.incrementAndGet();
                throw new CommitFailedException("Injected: the commit lost a race and changed nothing");
            }
            delegate.commit(base, metadata);
            if (crash) {
                f.failed.incrementAndGet();
                throw new InjectedCrash("after the commit");
            }
            if (Faults.take(f.commitsToFailAfter)) {
                f.failed.incrementAndGet();
                throw new CommitStateUnknownException(new RuntimeException("Injected: timed out after the commit"));
            }
        }

        @Override
        public FileIO io() {
            return new FaultyIO(delegate.io(), key);
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return delegate.metadataFileLocation(fileName);
        }

        @Override
        public LocationProvider locationProvider() {
            return delegate.locationProvider();
        }

        @Override
        public EncryptionManager encryption() {
            return delegate.encryption();
        }

        @Override
        public TableOperations temp(TableMetadata uncommittedMetadata) {
            return delegate.temp(uncommittedMetadata);
        }

        @Override
        public long newSnapshotId() {
            return delegate.newSnapshotId();
        }
    }

    /** Serializable: the writers' tables carry it to the task managers. */
    private static final class FaultyIO implements FileIO, Serializable {
        private static final long serialVersionUID = 1L;
        private final FileIO delegate;
        private final String key;

        FaultyIO(FileIO delegate, String key) {
            this.delegate = delegate;
            this.key = key;
        }

        @Override
        public InputFile newInputFile(String path) {
            return delegate.newInputFile(path);
        }

        @Override
        public InputFile newInputFile(String path, long length) {
            return delegate.newInputFile(path, length);
        }

        @Override
        public OutputFile newOutputFile(String path) {
            OutputFile out = delegate.newOutputFile(path);
            if (path.contains("/metadata/")) {
                return out;
            }
            Faults f = faultsOf(key);
            String name = path.substring(path.lastIndexOf('/') + 1);
            if (Faults.take(f.writesToFail) || f.files.incrementAndGet() == f.fileToFail) {
                f.failed.incrementAndGet();
                throw new UncheckedIOException(new IOException("Injected: cannot write " + path));
            }
            String prefix = f.stallPrefix;
            if (prefix != null && name.startsWith(prefix)) {
                f.stallPrefix = null;
                return new StallingOutputFile(out, f);
            }
            return out;
        }

        @Override
        public void deleteFile(String path) {
            delegate.deleteFile(path);
        }

        @Override
        public Map<String, String> properties() {
            return delegate.properties();
        }
    }

    private static final class StallingOutputFile implements OutputFile {
        private final OutputFile delegate;
        private final Faults faults;

        StallingOutputFile(OutputFile delegate, Faults faults) {
            this.delegate = delegate;
            this.faults = faults;
        }

        @Override
        public PositionOutputStream create() {
            return stalling(delegate.create());
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return stalling(delegate.createOrOverwrite());
        }

        private PositionOutputStream stalling(PositionOutputStream out) {
            return new PositionOutputStream() {
                @Override
                public long getPos() throws IOException {
                    return out.getPos();
                }

                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    out.flush();
                }

                @Override
                public void close() throws IOException {
                    faults.stalled.countDown();
                    try {
                        if (!faults.release.await(2, TimeUnit.MINUTES)) {
                            throw new IOException("The stalled close was never released");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                    out.close();
                }
            };
        }

        @Override
        public String location() {
            return delegate.location();
        }

        @Override
        public InputFile toInputFile() {
            return delegate.toInputFile();
        }
    }
}
