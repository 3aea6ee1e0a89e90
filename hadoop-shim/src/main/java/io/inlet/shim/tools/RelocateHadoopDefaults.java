package io.inlet.shim.tools;

import io.inlet.annotation.PublicEvolving;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A build step for job jars that relocate Hadoop: writes copies of Hadoop's {@code *-default.xml}
 * files whose class names carry the relocation prefix.
 *
 * <p>maven-shade rewrites class names in bytecode, but not in these XML files. Every {@code new
 * Configuration()} reads them, and Hadoop then looks up classes such as {@code
 * org.apache.hadoop.net.DNSDomainNameResolver} by a name that no longer exists in the jar ({@code
 * ClassNotFoundException} in {@code SecurityUtil}'s static initializer). The job jar's shade
 * configuration leaves Hadoop's own files out ({@code DontIncludeResourceTransformer}) and adds these
 * ({@code IncludeResourceTransformer}); run it before {@code package}, e.g. with
 * exec-maven-plugin's {@code java} goal:
 *
 * <pre>{@code
 * <mainClass>io.inlet.shim.tools.RelocateHadoopDefaults</mainClass>
 * <arguments>
 *   <argument>io.inlet.shaded.org.apache.hadoop</argument>
 *   <argument>${project.build.directory}/relocated-hadoop-defaults</argument>
 * </arguments>
 * }</pre>
 */
@PublicEvolving
public final class RelocateHadoopDefaults {

    /** Hadoop's default resources; each is written, empty when the class path lacks it. */
    public static final List<String> FILES =
            List.of("core-default.xml", "hdfs-default.xml", "mapred-default.xml", "yarn-default.xml");

    /** {@code org.apache.hadoop.} not preceded by a name character: a class or package name. */
    private static final Pattern HADOOP_NAME = Pattern.compile("(?<![A-Za-z0-9_$.])org\\.apache\\.hadoop\\.");

    private RelocateHadoopDefaults() {}

    /** Arguments: the shaded package of {@code org.apache.hadoop}, and the output directory. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "Usage: RelocateHadoopDefaults <shaded package of org.apache.hadoop> <output directory>");
        }
        List<String> written =
                write(args[0], Path.of(args[1]), Thread.currentThread().getContextClassLoader());
        System.out.println("Relocated Hadoop defaults to " + args[0] + ": " + written);
    }

    /** Writes the relocated files; returns, per file, where its original came from. */
    public static List<String> write(String shadedPackage, Path outputDir, ClassLoader classLoader) throws IOException {
        if (!shadedPackage.endsWith("org.apache.hadoop")) {
            throw new IllegalArgumentException(
                    "The shaded package must end with org.apache.hadoop (the relocation's shadedPattern), was "
                            + shadedPackage);
        }
        String prefix = shadedPackage.substring(0, shadedPackage.length() - "org.apache.hadoop".length());
        Files.createDirectories(outputDir);
        List<String> sources = new ArrayList<>();
        for (String file : FILES) {
            URL original = hadoopResource(classLoader, file);
            String xml;
            if (original == null) {
                xml = "<?xml version=\"1.0\"?>\n<configuration/>\n";
                sources.add(file + " (absent, written empty)");
            } else {
                try (InputStream in = original.openStream()) {
                    xml = relocate(new String(in.readAllBytes(), StandardCharsets.UTF_8), prefix);
                }
                sources.add(file + " from " + original);
            }
            Files.writeString(outputDir.resolve(file), xml, StandardCharsets.UTF_8);
        }
        return sources;
    }

    /** The text with every Hadoop class or package name prefixed. */
    public static String relocate(String text, String prefix) {
        return HADOOP_NAME.matcher(text).replaceAll(Matcher.quoteReplacement(prefix + "org.apache.hadoop."));
    }

    /** The file from a Hadoop jar, not a copy some other jar carries. */
    private static URL hadoopResource(ClassLoader classLoader, String name) throws IOException {
        List<URL> all = Collections.list(classLoader.getResources(name));
        for (URL url : all) {
            if (url.toString().contains("/hadoop-")) {
                return url;
            }
        }
        return all.isEmpty() ? null : all.get(0);
    }
}
