package io.inlet.core.testing;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

class ForklessLocalFileSystemTest {

    @Test
    void everyFileSystemGetOfTheJvmReturnsItAndItWritesFilesWithTheirModeAndChecksum(@TempDir Path dir)
            throws Exception {
        // Installed by ForklessLocalFiles (auto-detected) before this class ran.
        FileSystem fs = FileSystem.get(dir.toUri(), new Configuration(false));
        assertThat(fs).isInstanceOf(ForklessLocalFileSystem.class);

        org.apache.hadoop.fs.Path file =
                new org.apache.hadoop.fs.Path(dir.resolve("a/b/data").toUri());
        try (FSDataOutputStream out =
                fs.create(file, new FsPermission((short) 0640), true, 4096, (short) 1, 1 << 20, null)) {
            out.write("rows".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(Files.readString(dir.resolve("a/b/data"))).isEqualTo("rows");
        assertThat(Files.exists(dir.resolve("a/b/.data.crc"))).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a/b/data"))))
                .isEqualTo("rw-r-----");
        fs.setPermission(file, new FsPermission((short) 0755));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a/b/data"))))
                .isEqualTo("rwxr-xr-x");
    }
}
