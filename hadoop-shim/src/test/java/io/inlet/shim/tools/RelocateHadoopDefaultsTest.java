package io.inlet.shim.tools;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class RelocateHadoopDefaultsTest {

    @Test
    void relocatesEveryClassNameAndKeepsEverythingElse(@TempDir Path out) throws Exception {
        assertThat(RelocateHadoopDefaults.write(
                        "io.inlet.shaded.org.apache.hadoop", out, getClass().getClassLoader()))
                .anySatisfy(
                        s -> assertThat(s).startsWith("core-default.xml from ").contains("hadoop-client-api"));

        Map<String, String> original = entries(new Configuration(false), "core-default.xml", null);
        Map<String, String> relocated =
                entries(new Configuration(false), "core-default.xml", out.resolve("core-default.xml"));
        assertThat(relocated).hasSameSizeAs(original).hasSizeGreaterThan(300);
        assertThat(relocated.get("hadoop.domainname.resolver.impl"))
                .isEqualTo("io.inlet.shaded.org.apache.hadoop.net.DNSDomainNameResolver");
        original.forEach((k, v) -> assertThat(relocated.get(k))
                .as(k)
                .isEqualTo(v.replaceAll(
                        "(?<![A-Za-z0-9_$.])org\\.apache\\.hadoop\\.", "io.inlet.shaded.org.apache.hadoop.")));
        assertThat(RelocateHadoopDefaults.relocate(
                        "a,org.apache.hadoop.X, xorg.apache.hadoop.Y io.inlet.shaded.org.apache.hadoop.Z", "p."))
                .isEqualTo("a,p.org.apache.hadoop.X, xorg.apache.hadoop.Y io.inlet.shaded.org.apache.hadoop.Z");
    }

    private static Map<String, String> entries(Configuration conf, String resource, Path file) {
        if (file == null) {
            conf.addResource(resource);
        } else {
            conf.addResource(new org.apache.hadoop.fs.Path(file.toUri()));
        }
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : conf) {
            out.put(e.getKey(), conf.getRaw(e.getKey()));
        }
        return out;
    }
}
