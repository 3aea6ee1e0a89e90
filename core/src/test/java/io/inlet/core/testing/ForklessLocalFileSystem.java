package io.inlet.core.testing;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Hadoop's checksummed local file system, with file modes set in the JVM. Without Hadoop's native
 * library (never there in these tests) {@link RawLocalFileSystem#setPermission} starts a {@code
 * chmod} process for every file and directory it creates, and for every {@code .crc} beside them:
 * about 7 ms each on the CI machine, thousands per test class that commits to Iceberg or Hudi.
 * Everything else, the bytes on disk and the checksums included, is Hadoop's own code.
 *
 * <p>{@link #install()} puts one in Hadoop's file system cache for {@code file:} URIs, which every
 * {@code FileSystem.get} of this JVM then returns, whatever its configuration (Inlet's code and
 * Iceberg's and Hudi's build theirs without {@code fs.file.impl}).
 */
public final class ForklessLocalFileSystem extends LocalFileSystem {

    public ForklessLocalFileSystem() {
        super(new Raw());
    }

    /** Caches one for {@code file:} URIs in this JVM (idempotent). */
    public static void install() throws IOException {
        Configuration conf = new Configuration(false);
        conf.set("fs.file.impl", ForklessLocalFileSystem.class.getName());
        FileSystem fs = FileSystem.get(URI.create("file:///"), conf);
        if (!(fs instanceof ForklessLocalFileSystem)) {
            // Another file system was cached first (only this JVM's tests could have): leave it.
            System.err.println("ForklessLocalFileSystem not installed, file: is cached as " + fs.getClass());
        }
    }

    private static final class Raw extends RawLocalFileSystem {
        @Override
        public void setPermission(Path p, FsPermission permission) throws IOException {
            Files.setPosixFilePermissions(pathToFile(p).toPath(), posix(permission.toShort()));
        }
    }

    static Set<PosixFilePermission> posix(short mode) {
        // PosixFilePermission's order is owner rwx, group rwx, others rwx: bits 8 down to 0.
        PosixFilePermission[] all = PosixFilePermission.values();
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        for (int i = 0; i < 9; i++) {
            if ((mode & (1 << (8 - i))) != 0) {
                out.add(all[i]);
            }
        }
        return out;
    }
}
