package io.inlet.conventions;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import java.net.URI;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The main classes of every Inlet module, and which module each comes from: read off where the class
 * file lies, a module's {@code target/classes} directory in the reactor or its jar ({@code
 * inlet-sink-iceberg-0.1.0.jar}); examples as {@code examples/<name>}.
 */
final class Modules {

    /** Our classes outside io.inlet: hadoop-shim's replacement of Flink's HadoopUtils. */
    private static final String SHIM_PACKAGE = "org.apache.flink.runtime.util";

    private static final Pattern DIRECTORY = Pattern.compile("/([^/]+)/([^/]+)/target/classes/");
    private static final Pattern JAR = Pattern.compile("/inlet-([a-z0-9-]+?)-\\d[^/]*\\.jar!");

    static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> module(location.asURI()).isPresent())
            .importPackages("io.inlet", SHIM_PACKAGE);

    private Modules() {}

    /** The module a class comes from, or empty for a class that is not Inlet's. */
    static Optional<String> of(JavaClass c) {
        return c.getSource().flatMap(source -> module(source.getUri()));
    }

    static String name(JavaClass c) {
        return of(c).orElse("(not inlet)");
    }

    static Optional<String> module(URI location) {
        String uri = location.toString();
        Matcher jar = JAR.matcher(uri);
        if (jar.find()) {
            String id = jar.group(1);
            return Optional.of(id.startsWith("examples-") ? "examples/" + id.substring("examples-".length()) : id);
        }
        Matcher dir = DIRECTORY.matcher(uri);
        if (dir.find()) {
            return Optional.of("examples".equals(dir.group(1)) ? "examples/" + dir.group(2) : dir.group(2));
        }
        return Optional.empty();
    }

    static boolean isSource(String module) {
        return module.startsWith("source-");
    }

    static boolean isSink(String module) {
        return module.startsWith("sink-");
    }

    static boolean isExample(String module) {
        return module.startsWith("examples/");
    }
}
