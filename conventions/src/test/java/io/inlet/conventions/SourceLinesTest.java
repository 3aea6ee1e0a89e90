package io.inlet.conventions;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The line limit of every Java source in the repository: 120 characters. The formatter keeps code
 * within it but leaves long string literals and comments as they are; split or re-wrap those.
 */
class SourceLinesTest {

    private static final int LIMIT = 120;

    @Test
    void noJavaLineIsLongerThanTheLimit() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent(); // conventions/ is one level below the repository root
        assertThat(root.resolve("pom.xml")).exists();
        List<String> tooLong = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/") && !p.toString().contains("/target/"))
                    .forEach(p -> {
                        try {
                            List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
                            for (int i = 0; i < lines.size(); i++) {
                                if (lines.get(i).length() > LIMIT) {
                                    tooLong.add(root.relativize(p) + ":" + (i + 1) + " has "
                                            + lines.get(i).length() + " characters");
                                }
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
        assertThat(tooLong)
                .as("lines longer than %d characters (split the string, wrap the comment)", LIMIT)
                .isEmpty();
    }
}
