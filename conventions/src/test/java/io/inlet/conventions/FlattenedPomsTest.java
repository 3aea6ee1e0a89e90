package io.inlet.conventions;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a build installs for users is the pom of its Flink line, flattened (flatten-maven-plugin): the
 * version resolved ({@code 0.1.0-1.19}), no parent (whose defaults are the 1.17 line's), and every
 * dependency as the line set it. A consumer of {@code inlet-sink-iceberg:0.1.0-1.19} must get
 * {@code iceberg-flink-1.19} and Flink 1.19, never the defaults of another line.
 */
class FlattenedPomsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** Flink's own jars, which carry Flink's version (connectors carry their own). */
    private static final String FLINK_RUNTIME = "flink-(streaming-java|core|runtime|clients|table-common|table-runtime"
            + "|table-api-java.*|connector-base|connector-files)";

    private static final String STALE = " (a .flattened-pom.xml of another Flink line's or version's build: build the"
            + " whole reactor, mvn clean verify [-Pflink-1.1x], before this test)";

    private static List<Path> flattenedPoms() throws IOException {
        // A module of another line's build (Hudi's, on 1.18 and 1.19) keeps what that build left:
        // this line's clean does not reach it.
        Set<String> absent = PublicApiTest.absentModules();
        try (Stream<Path> files = Files.walk(ROOT, 3)) {
            return files.filter(p -> p.getFileName().toString().equals(".flattened-pom.xml"))
                    .filter(p -> !p.getParent().equals(ROOT))
                    .filter(p -> !absent.contains(
                            ROOT.relativize(p.getParent()).toString().replace('\\', '/')))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static String child(Element e, String name) {
        NodeList n = e.getElementsByTagName(name);
        return n.getLength() == 0 ? null : n.item(0).getTextContent().trim();
    }

    private static List<Element> dependencies(Document pom) {
        List<Element> deps = new ArrayList<>();
        NodeList n = pom.getElementsByTagName("dependency");
        for (int i = 0; i < n.getLength(); i++) {
            deps.add((Element) n.item(i));
        }
        return deps;
    }

    @Test
    void everyInstalledPomIsItsFlinkLinesOwn() throws Exception {
        String line = System.getProperty("inlet.flink.line");
        String version = System.getProperty("inlet.version");
        String flink = System.getProperty("inlet.flink.version");
        assertThat(line).as("inlet.flink.line (set by the pom)").isNotBlank();
        List<Path> poms = flattenedPoms();
        assertThat(poms).as("flattened poms under %s", ROOT).hasSizeGreaterThan(8);
        for (Path p : poms) {
            String text = Files.readString(p, StandardCharsets.UTF_8);
            assertThat(text).as("%s resolves every property", p).doesNotContain("${");
            Document pom = parse(p);
            Element project = pom.getDocumentElement();
            assertThat(pom.getElementsByTagName("parent").getLength())
                    .as("%s has no parent", p)
                    .isZero();
            assertThat(project.getElementsByTagName("version").item(0).getTextContent())
                    .as("%s's version%s", p, STALE)
                    .isEqualTo(version);
            for (Element d : dependencies(pom)) {
                String group = child(d, "groupId");
                String artifact = child(d, "artifactId");
                String v = child(d, "version");
                String what = p + ": " + group + ":" + artifact + ":" + v;
                if (artifact.startsWith("iceberg-flink-")) {
                    assertThat(artifact).as(what).isEqualTo("iceberg-flink-" + line);
                }
                if ("io.inlet".equals(group)) {
                    assertThat(v).as(what).isEqualTo(version);
                }
                if ("org.apache.flink".equals(group) && artifact.matches(FLINK_RUNTIME)) {
                    assertThat(v).as(what).isEqualTo(flink);
                }
                if (artifact.startsWith("flink-connector-kafka")) {
                    assertThat(v).as(what).endsWith("-" + line);
                }
            }
        }
    }

    @Test
    void theBomManagesInletAndItsLinesVersions() throws Exception {
        String line = System.getProperty("inlet.flink.line");
        Path path = ROOT.resolve("bom").resolve(".flattened-pom.xml");
        Document bom = parse(path);
        List<String> managed = dependencies(bom).stream()
                .map(d -> child(d, "groupId") + ":" + child(d, "artifactId") + ":" + child(d, "version"))
                .collect(Collectors.toList());
        String version = System.getProperty("inlet.version");
        assertThat(managed)
                .as("what %s manages%s", path, STALE)
                .contains(
                        "io.inlet:inlet-core:" + version,
                        "io.inlet:inlet-sink-iceberg:" + version,
                        "io.inlet:inlet-source-mysql-cdc:" + version,
                        "org.apache.flink:flink-streaming-java:" + System.getProperty("inlet.flink.version"),
                        "org.apache.iceberg:iceberg-flink-" + line + ":" + System.getProperty("inlet.iceberg.version"));
        if (PublicApiTest.absentModules().contains("sink-hudi")) {
            assertThat(managed).noneMatch(m -> m.contains("hudi"));
        } else {
            assertThat(managed).contains("io.inlet:inlet-sink-hudi:" + version);
        }
    }
}
