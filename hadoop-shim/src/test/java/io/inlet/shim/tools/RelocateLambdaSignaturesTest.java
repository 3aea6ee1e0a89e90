package io.inlet.shim.tools;

import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

class RelocateLambdaSignaturesTest {

    private static final String ENTRY = "org/apache/iceberg/hadoop/HadoopFileIO.class";

    @Test
    void rewritesTheDescriptorStringsOfLambdaDeserializationAndKeepsTheClassValid(@TempDir Path dir) throws Exception {
        byte[] original;
        try (InputStream in = HadoopFileIO.class.getClassLoader().getResourceAsStream(ENTRY)) {
            original = in.readAllBytes();
        }
        // HadoopFileIO's $deserializeLambda$ compares against "()Lorg/apache/hadoop/conf/Configuration;".
        assertThat(latin1(original)).contains("()Lorg/apache/hadoop/conf/Configuration;");

        Path jar = dir.resolve("job.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.inlet.examples.Job");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.putNextEntry(new JarEntry("readme.txt"));
            out.write("Lorg/apache/hadoop/ stays in resources".getBytes(StandardCharsets.UTF_8));
            out.putNextEntry(new JarEntry(ENTRY));
            out.write(original);
        }
        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(jar));
        int[] counts = RelocateLambdaSignatures.rewrite(jar, "org.apache.hadoop", "io.inlet.shaded.org.apache.hadoop");

        assertThat(counts[0]).isEqualTo(1);
        assertThat(counts[1]).isGreaterThan(0);
        byte[] rewritten;
        try (JarFile f = new JarFile(jar.toFile())) {
            try (InputStream in = f.getInputStream(f.getEntry(ENTRY))) {
                rewritten = in.readAllBytes();
            }
            try (InputStream in = f.getInputStream(f.getEntry("readme.txt"))) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .startsWith("Lorg/apache/hadoop/");
            }
        }
        // Still a jar that java -jar and JarInputStream read: the manifest first, the entries in their order.
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar))) {
            assertThat(in.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS))
                    .isEqualTo("io.inlet.examples.Job");
            assertThat(in.getNextJarEntry().getName()).isEqualTo("readme.txt");
            assertThat(in.getNextJarEntry().getName()).isEqualTo(ENTRY);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)))
                .isEqualTo(mode);
        assertThat(latin1(rewritten))
                .contains("()Lio/inlet/shaded/org/apache/hadoop/conf/Configuration;")
                .doesNotContain("Lorg/apache/hadoop/");
        // Still a well-formed class: the JVM parses and defines it (resolution would come later).
        Class<?> defined = new ClassLoader(getClass().getClassLoader()) {
            Class<?> define() {
                return defineClass("org.apache.iceberg.hadoop.HadoopFileIO", rewritten, 0, rewritten.length);
            }
        }.define();
        assertThat(defined.getName()).isEqualTo("org.apache.iceberg.hadoop.HadoopFileIO");
        // Only the prefix was added, once or more per rewritten string.
        int added = rewritten.length - original.length;
        assertThat(added % "io/inlet/shaded/".length()).isZero();
        assertThat(added).isGreaterThanOrEqualTo(counts[1] * "io/inlet/shaded/".length());
    }

    private static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
