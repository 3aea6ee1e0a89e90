package io.inlet.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;

/** What a built job jar holds: entries, merged service files, manifest, class bytes. */
public final class JobJar {

    private final Path path;
    private final List<String> entries;

    private JobJar(Path path, List<String> entries) {
        this.path = path;
        this.entries = entries;
    }

    /** The job jar a module's shade execution wrote to {@code target/<artifactId>-<version>-job.jar}. */
    public static JobJar of(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist: the job jar is built in the package phase"
                    + " (run the ITCases with mvn verify, not from the test phase).");
        }
        try (JarFile f = new JarFile(jar.toFile())) {
            List<String> names = Collections.list(f.entries()).stream()
                    .map(ZipEntry::getName)
                    .collect(Collectors.toList());
            return new JobJar(jar, Collections.unmodifiableList(names));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The job jar of the module whose tests run now (working directory: the module). */
    public static JobJar ofThisModule() {
        String artifact = System.getProperty("inlet.job-jar");
        if (artifact == null) {
            throw new IllegalStateException(
                    "System property inlet.job-jar is not set; the examples' pom sets it for Surefire.");
        }
        return of(Path.of(artifact));
    }

    public Path path() {
        return path;
    }

    public List<String> entries() {
        return entries;
    }

    /** Entries under a path prefix, e.g. {@code org/apache/hadoop/}. */
    public List<String> entriesUnder(String prefix) {
        return entries.stream().filter(e -> e.startsWith(prefix)).collect(Collectors.toList());
    }

    public boolean has(String entry) {
        return entries.contains(entry);
    }

    /** The lines of a service file, e.g. {@code io.inlet.core.spi.ChangeSinkFactory}; empty when absent. */
    public List<String> services(String service) {
        String text = text("META-INF/services/" + service);
        if (text == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.replaceAll("#.*", "").trim();
            if (!l.isEmpty()) {
                out.add(l);
            }
        }
        return out;
    }

    public Manifest manifest() {
        try (JarFile f = new JarFile(path.toFile())) {
            return f.getManifest();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A text entry, or null. */
    public String text(String entry) {
        byte[] b = bytes(entry);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** An entry's bytes, or null. */
    public byte[] bytes(String entry) {
        try (JarFile f = new JarFile(path.toFile())) {
            ZipEntry e = f.getEntry(entry);
            if (e == null) {
                return null;
            }
            try (InputStream in = f.getInputStream(e)) {
                return in.readAllBytes();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The class names (internal form, {@code a/b/C}) a class file refers to that start with the
     * prefix: from the UTF-8 entries of its constant pool, which hold every referenced class name and
     * every descriptor.
     */
    public List<String> references(String classEntry, String prefix) {
        byte[] b = bytes(classEntry);
        if (b == null) {
            throw new IllegalArgumentException(path.getFileName() + " has no " + classEntry);
        }
        List<String> found = new ArrayList<>();
        for (String utf8 : constantPoolStrings(b)) {
            for (String token : utf8.split("[;()<>:]")) {
                int i = token.indexOf(prefix);
                // A class name alone, or in a descriptor after array dimensions, primitives and 'L'.
                if (i == 0 || (i > 0 && token.substring(0, i).matches("[BCDFIJSZ\\[]*L"))) {
                    found.add(token.substring(i));
                }
            }
        }
        return found;
    }

    /** Class entries with a constant pool string that contains the text. */
    public List<String> classesWithStrings(String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        try (JarFile f = new JarFile(path.toFile())) {
            for (ZipEntry e : Collections.list(f.entries())) {
                if (!e.getName().endsWith(".class")) {
                    continue;
                }
                byte[] b;
                try (InputStream in = f.getInputStream(e)) {
                    b = in.readAllBytes();
                }
                if (indexOf(b, needle) >= 0 && constantPoolStrings(b).stream().anyMatch(s -> s.contains(text))) {
                    found.add(e.getName());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static int indexOf(byte[] b, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= b.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (b[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static List<String> constantPoolStrings(byte[] b) {
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(b);
        if (in.getInt() != 0xCAFEBABE) {
            throw new IllegalArgumentException("not a class file");
        }
        in.getShort(); // minor
        in.getShort(); // major
        int count = in.getShort() & 0xFFFF;
        List<String> strings = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.get() & 0xFF;
            switch (tag) {
                case 1:
                    byte[] utf = new byte[in.getShort() & 0xFFFF];
                    in.get(utf);
                    strings.add(new String(utf, StandardCharsets.UTF_8)); // modified UTF-8; fine for names
                    break;
                case 5:
                case 6:
                    in.position(in.position() + 8);
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
                    in.position(in.position() + 4);
                    break;
                case 15:
                    in.position(in.position() + 3);
                    break;
                case 7:
                case 8:
                case 16:
                case 19:
                case 20:
                    in.position(in.position() + 2);
                    break;
                default:
                    throw new IllegalArgumentException("unknown constant pool tag " + tag);
            }
        }
        return strings;
    }

    /** Where Inlet's job jars relocate Hadoop and the HadoopUtils shim (see inlet-hadoop-shim). */
    public static final String SHADED = "io/inlet/shaded/";

    private static volatile java.util.Set<String> flinkDistClasses;

    /**
     * The Flink classes of the Flink distribution the harness runs jobs on: a job jar must leave them to
     * the runtime (org.apache.flink. is loaded parent-first, so copies in the jar are dead weight at
     * best and a version clash at worst).
     */
    public static java.util.Set<String> flinkDistributionClasses() {
        if (flinkDistClasses == null) {
            java.util.Set<String> classes = new java.util.HashSet<>();
            for (String entry : FlinkDistribution.classPath()) {
                if (!entry.endsWith(".jar")) {
                    continue;
                }
                try (JarFile f = new JarFile(entry)) {
                    for (ZipEntry e : Collections.list(f.entries())) {
                        if (e.getName().startsWith("org/apache/flink/")
                                && e.getName().endsWith(".class")) {
                            classes.add(e.getName());
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            flinkDistClasses = java.util.Set.copyOf(classes);
        }
        return flinkDistClasses;
    }

    /**
     * What keeps the jar from deploying on a Hadoop-less runtime, or next to a runtime's own Hadoop
     * and logging: each problem a sentence; empty when there is none.
     */
    public List<String> deployabilityProblems(String mainClass) {
        List<String> problems = new ArrayList<>();
        String main = manifest() == null ? null : manifest().getMainAttributes().getValue("Main-Class");
        if (!mainClass.equals(main)) {
            problems.add("Main-Class is " + main + ", not " + mainClass);
        }
        if (!has(SHADED + "org/apache/flink/runtime/util/HadoopUtils.class")) {
            problems.add("the relocated HadoopUtils shim is missing");
        }
        if (!has(SHADED + "org/apache/hadoop/conf/Configuration.class")) {
            problems.add("the relocated Hadoop Configuration is missing");
        }
        List<String> plainHadoop = entriesUnder("org/apache/hadoop/");
        if (!plainHadoop.isEmpty()) {
            problems.add("unrelocated Hadoop classes: " + sample(plainHadoop));
        }
        if (has("org/apache/flink/runtime/util/HadoopUtils.class")) {
            problems.add("an unrelocated HadoopUtils, which the runtime's parent-first loading ignores");
        }
        java.util.Set<String> dist = flinkDistributionClasses();
        List<String> flink = entries.stream().filter(dist::contains).collect(Collectors.toList());
        if (!flink.isEmpty()) {
            problems.add("classes of the Flink distribution, which the runtime loads parent-first: " + sample(flink));
        }
        for (String logging : List.of("org/slf4j/", "org/apache/logging/log4j/", "org/apache/log4j/")) {
            List<String> found = entriesUnder(logging);
            if (!found.isEmpty()) {
                problems.add("logging classes the runtime brings, under " + logging + ": " + sample(found));
            }
        }
        List<String> fileSystems = services("io.inlet.shaded.org.apache.hadoop.fs.FileSystem");
        if (!fileSystems.contains("io.inlet.shaded.org.apache.hadoop.fs.LocalFileSystem")) {
            problems.add("the relocated Hadoop FileSystem service file does not name the relocated LocalFileSystem: "
                    + fileSystems);
        }
        for (String defaults : List.of("core-default.xml", "mapred-default.xml", "yarn-default.xml")) {
            String xml = text(defaults);
            if (xml == null) {
                problems.add(defaults + " is missing, so Hadoop runs without its defaults");
            } else if (java.util.regex.Pattern.compile("(?<![A-Za-z0-9_$.])org\\.apache\\.hadoop\\.")
                    .matcher(xml)
                    .find()) {
                problems.add(defaults + " names unrelocated Hadoop classes, which Hadoop then fails to load");
            }
        }
        List<String> unrelocated = classesWithStrings("Lorg/apache/hadoop/");
        if (!unrelocated.isEmpty()) {
            problems.add("classes whose constant pool still names unrelocated Hadoop types (lambda deserialization"
                    + " then fails): " + sample(unrelocated));
        }
        List<String> signatures = entries.stream()
                .filter(e ->
                        e.startsWith("META-INF/") && (e.endsWith(".SF") || e.endsWith(".DSA") || e.endsWith(".RSA")))
                .collect(Collectors.toList());
        if (!signatures.isEmpty()) {
            problems.add("signature files of bundled jars, which make the JVM refuse the jar: " + signatures);
        }
        return problems;
    }

    /** What keeps Iceberg catalogs from working in this jar on a Hadoop-less runtime; empty when nothing does. */
    public List<String> icebergCatalogProblems() {
        List<String> problems = new ArrayList<>();
        List<String> factories = services("org.apache.flink.table.factories.Factory");
        for (String f : List.of(
                "io.inlet.shim.InletIcebergCatalogFactory", "org.apache.iceberg.flink.FlinkDynamicTableFactory")) {
            if (!factories.contains(f)) {
                problems.add("META-INF/services/org.apache.flink.table.factories.Factory does not name " + f + ": "
                        + factories);
            }
        }
        if (!services("org.apache.flink.table.factories.TableFactory")
                .contains("org.apache.iceberg.flink.FlinkCatalogFactory")) {
            problems.add("Iceberg's FlinkCatalogFactory is not registered as a TableFactory");
        }
        String factory = "org/apache/iceberg/flink/FlinkCatalogFactory.class";
        if (references(factory, SHADED + "org/apache/flink/runtime/util/HadoopUtils")
                .isEmpty()) {
            problems.add("Iceberg's FlinkCatalogFactory does not call the relocated HadoopUtils");
        }
        List<String> plain = references(factory, "org/apache/flink/runtime/util/HadoopUtils");
        if (!plain.isEmpty()) {
            problems.add("Iceberg's FlinkCatalogFactory still calls Flink's HadoopUtils: " + plain);
        }
        return problems;
    }

    @Override
    public String toString() {
        return path.getFileName() + " (" + entries.size() + " entries)";
    }

    /** For messages: a few of the given entries. */
    public static String sample(List<String> entries) {
        return entries.size() + " entries, e.g. "
                + Arrays.toString(entries.stream().limit(5).toArray());
    }
}
