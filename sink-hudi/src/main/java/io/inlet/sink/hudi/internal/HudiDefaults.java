package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * The columns added at the source with a default ({@code ADD COLUMN ... DEFAULT x}) whose value the
 * rows that existed before take in MySQL, recorded in the Hudi table itself so that whichever job
 * writes the table next gives it to them: one small file per column under {@code
 * .hoodie/.aux/inlet-defaults/}, {@code <hex of the column name>.pending} until the rows are given
 * their default, then {@code .done}.
 *
 * <p>Hudi 0.14's Flink writer fixes its schema when it opens, so the job that meets the change records
 * it here and stops for a rebuild; the rebuilt job finds it pending, reads the table and writes each
 * row from before the change again with the default (see {@link HudiDefaultsBackfill}), and rows of
 * the older shape it reads again from the source get the default as it writes them. A done column
 * keeps its file: a job restored from before the change writes that change's rows again, with it, and a
 * job restored from a checkpoint older than the mark gives the rows their default again ({@link
 * Added#givenBefore}).
 */
@Internal
public final class HudiDefaults {

    private static final String DIR = ".hoodie/.aux/inlet-defaults";
    private static final String PENDING = ".pending";
    private static final String DONE = ".done";

    private HudiDefaults() {}

    /** One column's default for the rows from before it was added. Immutable. */
    public static final class Added implements Serializable {
        private static final long serialVersionUID = 1L;

        private final String column;
        private final String defaultText;
        private final long order;
        private final boolean done;
        /** When it was marked done (the marker's modification time, ms); Long.MAX_VALUE if it is not. */
        private final long doneAt;

        private Added(String column, String defaultText, long order, boolean done, long doneAt) {
            this.column = Objects.requireNonNull(column, "column");
            this.defaultText = Objects.requireNonNull(defaultText, "defaultText");
            this.order = order;
            this.done = done;
            this.doneAt = done ? doneAt : Long.MAX_VALUE;
        }

        /**
         * @param order the change's {@link io.inlet.core.event.SourcePosition#order()}: rows whose
         *     ordering value is lower were written before the column existed
         */
        public static Added of(String column, String defaultText, long order) {
            return new Added(column, defaultText, order, false, Long.MAX_VALUE);
        }

        public String column() {
            return column;
        }

        public String defaultText() {
            return defaultText;
        }

        public long order() {
            return order;
        }

        /** Whether the rows before the change have been given the default. */
        public boolean done() {
            return done;
        }

        /**
         * Whether a job restored from a checkpoint completed at {@code restoredAt} (ms) finds the rows given
         * their default: marked done before that checkpoint. The job that gives them marks it when a
         * checkpoint holding them completes; a job restored from an earlier checkpoint (a rebuild that found
         * no later one, a savepoint) rolls their instant back, and must give them again.
         *
         * @param restoredAt when the checkpoint the job restores from completed; {@link Long#MAX_VALUE} for a
         *     job that restores none
         */
        public boolean givenBefore(long restoredAt) {
            return done && doneAt < restoredAt;
        }

        @Override
        public String toString() {
            return "'" + column + "' DEFAULT '" + defaultText + "' at order " + order + (done ? " (given)" : "");
        }
    }

    /**
     * What the writer of one table knows of its defaults when the job is built: where it records a new
     * one, and the ones recorded. Immutable.
     */
    public static final class Table implements Serializable {
        private static final long serialVersionUID = 1L;

        private final String path;
        private final List<Added> recorded;
        private final boolean filling;
        private final Map<String, String> options;

        /**
         * @param filling whether this job gives the rows from before pending defaults their value ({@link
         *     HudiDefaultsBackfill}): its writer then writes the source's deletes as soft ones
         * @param options the table's writer options, whose {@code hadoop.*} entries reach its files
         */
        public Table(String path, List<Added> recorded, boolean filling, Map<String, String> options) {
            this.path = Objects.requireNonNull(path, "path");
            this.recorded = List.copyOf(recorded);
            this.filling = filling;
            this.options = Map.copyOf(options);
        }

        /** The Hadoop configuration of the table's files. */
        public Configuration hadoopConf() {
            return HudiTables.hadoopConf(options);
        }

        /** Whether this job gives rows from before an added column its default. */
        public boolean filling() {
            return filling;
        }

        public String path() {
            return path;
        }

        public List<Added> recorded() {
            return recorded;
        }

        /** The column's recorded default, if any. */
        public Optional<Added> recorded(String column) {
            return recorded.stream().filter(a -> a.column.equals(column)).findFirst();
        }
    }

    /** The columns recorded for the table at {@code tablePath}, oldest change first; none if it has none. */
    public static List<Added> read(String tablePath, Configuration conf) {
        Path dir = new Path(tablePath, DIR);
        List<Added> out = new ArrayList<>();
        try {
            FileSystem fs = dir.getFileSystem(conf);
            FileStatus[] files;
            try {
                files = fs.listStatus(dir);
            } catch (FileNotFoundException e) {
                return out;
            }
            for (FileStatus f : files) {
                String name = f.getPath().getName();
                boolean done = name.endsWith(DONE);
                if (!done && !name.endsWith(PENDING)) {
                    continue; // a file being written
                }
                Properties p = new Properties();
                try (InputStream in = fs.open(f.getPath())) {
                    p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
                }
                out.add(new Added(
                        p.getProperty("column"),
                        p.getProperty("default"),
                        Long.parseLong(p.getProperty("order")),
                        done,
                        f.getModificationTime()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the defaults recorded in " + dir + ": " + e, e);
        }
        out.sort(Comparator.comparingLong(Added::order));
        return out;
    }

    /**
     * Records the column's default as pending, unless the table has it already: written to a file of its
     * own, then renamed. Every writer subtask meets the change and records the same (a binlog change has
     * one position); where two race, the file system's rename keeps one of them.
     */
    public static void record(String tablePath, Added added, Configuration conf) {
        Path dir = new Path(tablePath, DIR);
        try {
            FileSystem fs = dir.getFileSystem(conf);
            Path pending = new Path(dir, fileName(added.column) + PENDING);
            Path done = new Path(dir, fileName(added.column) + DONE);
            if (fs.exists(pending) || fs.exists(done)) {
                return;
            }
            fs.mkdirs(dir);
            Path tmp = new Path(dir, fileName(added.column) + "." + UUID.randomUUID() + ".tmp");
            Properties p = new Properties();
            p.setProperty("column", added.column);
            p.setProperty("default", added.defaultText);
            p.setProperty("order", Long.toString(added.order));
            try (FSDataOutputStream out = fs.create(tmp, false)) {
                p.store(new OutputStreamWriter(out, StandardCharsets.UTF_8), "Inlet: a column added with a default");
            }
            if (!fs.rename(tmp, pending)) {
                fs.delete(tmp, false); // another subtask recorded it first
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot record the default of '" + added.column + "' in " + dir + ": " + e, e);
        }
    }

    /** Marks the column's default as given to the rows before it. */
    public static void markDone(String tablePath, String column, Configuration conf) {
        Path dir = new Path(tablePath, DIR);
        try {
            FileSystem fs = dir.getFileSystem(conf);
            Path pending = new Path(dir, fileName(column) + PENDING);
            if (fs.exists(pending) && !fs.rename(pending, new Path(dir, fileName(column) + DONE))) {
                throw new IOException("rename to " + fileName(column) + DONE + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot mark the default of '" + column + "' in " + dir + " given: " + e, e);
        }
    }

    /** The column's name in hex: any name makes a file name. */
    private static String fileName(String column) {
        StringBuilder sb = new StringBuilder();
        for (byte b : column.getBytes(StandardCharsets.UTF_8)) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }
}
