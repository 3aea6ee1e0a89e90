package io.inlet.conventions;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API (every {@code @PublicEvolving} type, and its public and protected members) as text,
 * compared with {@code src/test/resources/public-api.txt}: a change to the API shows in the diff of
 * that file, where a reviewer sees it. After an intended change, write the file anew with {@code mvn
 * -pl conventions test -Dinlet.api.update=true} and commit it with the change.
 */
class PublicApiTest {

    private static final Path LISTING = Path.of("src", "test", "resources", "public-api.txt");

    /**
     * Modules a build leaves out ({@code inlet.absent-modules}, comma-separated): Hudi's, in the builds
     * for Flink lines without a Hudi bundle. Their part of the listing is not compared there.
     */
    static Set<String> absentModules() {
        return Arrays.stream(System.getProperty("inlet.absent-modules", "").split(","))
                .map(String::trim)
                .filter(m -> !m.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void thePublicApiIsTheListedOne() throws IOException {
        String actual = listing();
        Set<String> absent = absentModules();
        if (Boolean.getBoolean("inlet.api.update")) {
            assertThat(absent)
                    .as(
                            "The listing is written by the build with every module, the one for Flink 1.17 (no"
                                    + " -P), this one leaves out %s",
                            absent)
                    .isEmpty();
            Files.writeString(LISTING, actual, StandardCharsets.UTF_8);
        }
        String listed = Files.exists(LISTING) ? Files.readString(LISTING, StandardCharsets.UTF_8) : "";
        listed = without(listed, absent);
        assertThat(actual)
                .as(
                        "The public API differs from %s. If the change is intended, run 'mvn -pl conventions test"
                                + " -Dinlet.api.update=true' and commit the file with it.",
                        LISTING)
                .isEqualTo(listed);
    }

    /** The listing without the types (and their members) of the given modules. */
    static String without(String listing, Set<String> modules) {
        if (modules.isEmpty()) {
            return listing;
        }
        StringBuilder kept = new StringBuilder();
        boolean keep = true;
        for (String line : listing.split("\n", -1)) {
            if (!line.startsWith(" ") && !line.isEmpty()) {
                int open = line.lastIndexOf('[');
                keep = open < 0 || !modules.contains(line.substring(open + 1, line.length() - 1));
            }
            if (keep) {
                kept.append(line).append('\n');
            }
        }
        return kept.substring(0, kept.length() - 1);
    }

    static String listing() {
        List<String> lines = new ArrayList<>();
        Modules.CLASSES.stream()
                .filter(ModuleBoundariesTest::isPublicApi)
                .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC)
                        && c.getPackageName().startsWith("io.inlet"))
                .sorted((a, b) -> a.getName().compareTo(b.getName()))
                .forEach(c -> {
                    lines.add(c.getName() + " " + kind(c) + "   [" + Modules.name(c) + "]");
                    Set<String> members = new TreeSet<>();
                    for (JavaField f : c.getFields()) {
                        if (visible(f.getModifiers())) {
                            members.add("field " + modifiers(f.getModifiers())
                                    + f.getRawType().getName() + " " + f.getName());
                        }
                    }
                    for (JavaCodeUnit m : c.getCodeUnits()) {
                        if (visible(m.getModifiers()) && !m.getName().equals("<clinit>")) {
                            members.add((m.isConstructor() ? "constructor " : "method ") + modifiers(m.getModifiers())
                                    + (m.isConstructor()
                                            ? ""
                                            : m.getRawReturnType().getName() + " ") + m.getName() + "("
                                    + m.getRawParameterTypes().stream()
                                            .map(JavaClass::getName)
                                            .collect(Collectors.joining(", "))
                                    + ")");
                        }
                    }
                    members.forEach(m -> lines.add("  " + m));
                });
        return String.join("\n", lines) + "\n";
    }

    private static String kind(JavaClass c) {
        return c.isAnnotation() ? "@interface" : c.isEnum() ? "enum" : c.isInterface() ? "interface" : "class";
    }

    private static boolean visible(Set<JavaModifier> modifiers) {
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
                && !modifiers.contains(JavaModifier.SYNTHETIC)
                && !modifiers.contains(JavaModifier.BRIDGE);
    }

    private static String modifiers(Set<JavaModifier> modifiers) {
        StringBuilder b = new StringBuilder();
        for (JavaModifier m : List.of(
                JavaModifier.PUBLIC,
                JavaModifier.PROTECTED,
                JavaModifier.STATIC,
                JavaModifier.FINAL,
                JavaModifier.ABSTRACT)) {
            if (modifiers.contains(m)) {
                b.append(m.name().toLowerCase(java.util.Locale.ROOT)).append(' ');
            }
        }
        return b.toString();
    }
}
