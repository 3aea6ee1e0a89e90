package io.inlet.shim.tools;

import io.inlet.annotation.PublicEvolving;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A build step after maven-shade for job jars that relocate Hadoop: rewrites the method descriptors
 * that shade leaves in string constants (MSHADE-260).
 *
 * <p>A class that deserializes lambdas compares {@code SerializedLambda.getImplMethodSignature()}
 * with descriptor strings such as {@code ()Lorg/apache/hadoop/conf/Configuration;}. Shade relocates
 * the lambda but not those strings, so deserializing it fails ("Invalid lambda deserialization",
 * surfacing as {@code ReflectiveOperationException during deserialization}): Iceberg's {@code
 * HadoopFileIO} ships its configuration as such a lambda. This step rewrites {@code L<package>/}
 * to {@code L<shaded package>/} in every constant pool string of the jar. Only the constant pool
 * changes, and it is referenced by index, so the rest of each class file is copied as it is.
 *
 * <p>Arguments: the jar (rewritten in place), the package and the shaded package, e.g. {@code
 * org.apache.hadoop io.inlet.shaded.org.apache.hadoop}.
 */
@PublicEvolving
public final class RelocateLambdaSignatures {

    private RelocateLambdaSignatures() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("Usage: RelocateLambdaSignatures <jar> <package> <shaded package>");
        }
        Path jar = Path.of(args[0]);
        int[] counts = rewrite(jar, args[1], args[2]);
        System.out.println("Relocated " + counts[1] + " descriptor string(s) in " + counts[0] + " class(es) of "
                + jar.getFileName());
    }

    /** Rewrites the jar in place; returns the number of classes and of strings changed. */
    public static int[] rewrite(Path jar, String pkg, String shadedPkg) throws IOException {
        byte[] from = ("L" + pkg.replace('.', '/') + "/").getBytes(StandardCharsets.US_ASCII);
        byte[] to = ("L" + shadedPkg.replace('.', '/') + "/").getBytes(StandardCharsets.US_ASCII);
        Set<PosixFilePermission> mode = permissions(jar);
        int classes = 0;
        int strings = 0;
        // A copy is rewritten and then moved over the jar: a failure leaves the jar as shade wrote it.
        Path copy = Files.createTempFile(
                jar.toAbsolutePath().getParent(), jar.getFileName().toString(), ".tmp");
        Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
        // Through the zip file system: only the classes written to are compressed again, the other
        // entries (nearly all of a job jar) are copied as they are, in their order.
        try (FileSystem zip = FileSystems.newFileSystem(copy, (ClassLoader) null)) {
            List<Path> classFiles;
            try (Stream<Path> all = Files.walk(zip.getPath("/"))) {
                classFiles = all.filter(f -> f.toString().endsWith(".class"))
                        .filter(Files::isRegularFile)
                        .collect(Collectors.toList());
            }
            for (Path c : classFiles) {
                byte[] bytes = Files.readAllBytes(c);
                if (!contains(bytes, from)) {
                    continue;
                }
                int[] changed = new int[1];
                byte[] rewritten = rewriteClass(bytes, from, to, changed);
                if (changed[0] > 0) {
                    FileTime time = Files.getLastModifiedTime(c);
                    Files.write(c, rewritten);
                    Files.setLastModifiedTime(c, time);
                    classes++;
                    strings += changed[0];
                }
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(copy);
            throw e;
        }
        if (mode != null) {
            // The copy is private to its owner: the jar keeps the permissions it had.
            Files.setPosixFilePermissions(copy, mode);
        }
        Files.move(copy, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new int[] {classes, strings};
    }

    private static Set<PosixFilePermission> permissions(Path file) throws IOException {
        try {
            return Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException e) {
            return null; // not a POSIX file system: nothing to keep
        }
    }

    static byte[] rewriteClass(byte[] b, byte[] from, byte[] to, int[] changed) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(b);
        ByteArrayOutputStream buf = new ByteArrayOutputStream(b.length + 256);
        DataOutputStream out = new DataOutputStream(buf);
        if (in.getInt() != 0xCAFEBABE) {
            return b; // not a class file (a resource named .class); leave it
        }
        out.writeInt(0xCAFEBABE);
        out.writeShort(in.getShort());
        out.writeShort(in.getShort());
        int count = in.getShort() & 0xFFFF;
        out.writeShort(count);
        for (int i = 1; i < count; i++) {
            int tag = in.get() & 0xFF;
            out.writeByte(tag);
            int size;
            switch (tag) {
                case 1:
                    byte[] utf = new byte[in.getShort() & 0xFFFF];
                    in.get(utf);
                    byte[] replaced = replace(utf, from, to);
                    if (replaced != utf) {
                        changed[0]++;
                    }
                    out.writeShort(replaced.length);
                    out.write(replaced);
                    continue;
                case 5:
                case 6:
                    size = 8;
                    i++; // longs and doubles take two slots
                    break;
                case 3:
                case 4:
                case 9:
                case 10:
                case 11:
                case 12:
                case 17:
                case 18:
                    size = 4;
                    break;
                case 15:
                    size = 3;
                    break;
                case 7:
                case 8:
                case 16:
                case 19:
                case 20:
                    size = 2;
                    break;
                default:
                    throw new IOException("Unknown constant pool tag " + tag);
            }
            byte[] raw = new byte[size];
            in.get(raw);
            out.write(raw);
        }
        out.write(b, in.position(), b.length - in.position()); // everything after the constant pool, unchanged
        out.flush();
        return buf.toByteArray();
    }

    private static byte[] replace(byte[] s, byte[] from, byte[] to) {
        if (!contains(s, from)) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length + 32);
        int i = 0;
        while (i < s.length) {
            if (startsWith(s, i, from)) {
                out.write(to, 0, to.length);
                i += from.length;
            } else {
                out.write(s[i++]);
            }
        }
        return out.toByteArray();
    }

    private static boolean contains(byte[] s, byte[] part) {
        for (int i = 0; i + part.length <= s.length; i++) {
            if (startsWith(s, i, part)) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWith(byte[] s, int at, byte[] part) {
        if (at + part.length > s.length) {
            return false;
        }
        for (int j = 0; j < part.length; j++) {
            if (s[at + j] != part[j]) {
                return false;
            }
        }
        return true;
    }
}
