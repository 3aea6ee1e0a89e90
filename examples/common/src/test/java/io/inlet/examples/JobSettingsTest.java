package io.inlet.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobSettingsTest {

    @Test
    void laterSourcesWinOverEarlierOnes(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("application_properties.json");
        Files.writeString(
                json,
                "[{\"PropertyGroupId\": \"source\", \"PropertyMap\": {\"hostname\":"
                        + " \"from-json\", \"port\": \"3307\"}},"
                        + " {\"PropertyGroupId\": \"FlinkApplicationProperties\", \"PropertyMap\":"
                        + " {\"sink.warehouse\": \"s3a://lake\"}}]");
        Path props = dir.resolve("job.properties");
        Files.writeString(props, "source.port=3308\nsink.type=iceberg\n");

        JobSettings s = JobSettings.of(
                new String[] {
                    "--application-properties",
                    json.toString(),
                    "--config",
                    props.toString(),
                    "--source.port=3309",
                    "pipeline.name=orders"
                },
                Map.of("source.type", "mysql-cdc", "source.hostname", "default-host"),
                dir.resolve("absent.json"),
                k -> null);

        assertThat(s.asMap())
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "source.type",
                        "mysql-cdc",
                        "source.hostname",
                        "from-json",
                        "source.port",
                        "3309",
                        "sink.type",
                        "iceberg",
                        "sink.warehouse",
                        "s3a://lake",
                        "pipeline.name",
                        "orders"));
        assertThat(s.origins())
                .containsExactly("application properties " + json, "properties file " + props, "program arguments");
        assertThat(s.withPrefix("source.")).containsOnlyKeys("type", "hostname", "port");
    }

    @Test
    void readsTheManagedRuntimesFileWhenItExists(@TempDir Path dir) throws Exception {
        Path managed = dir.resolve("application_properties.json");
        assertThat(JobSettings.of(new String[0], Map.of(), managed, k -> null).origins())
                .isEmpty();
        Files.writeString(managed, "[{\"PropertyGroupId\": \"inlet\", \"PropertyMap\": {\"sink.type\": \"hudi\"}}]");
        assertThat(JobSettings.of(new String[0], Map.of(), managed, k -> null).get("sink.type"))
                .isEqualTo("hudi");
    }

    @Test
    void secretsComeFromTheEnvironmentAndNeverShow() {
        JobSettings s = JobSettings.of(
                new String[] {"--source.password", "${env:DB_PASSWORD}"},
                Map.of(),
                Path.of("/nonexistent"),
                k -> k.equals("DB_PASSWORD") ? "s3cret" : null);
        assertThat(s.get("source.password")).isEqualTo("s3cret");
        assertThat(s.toString()).contains("source.password").doesNotContain("s3cret");
        assertThatThrownBy(() -> JobSettings.of(
                        new String[] {"--source.password", "${env:NOPE}"},
                        Map.of(),
                        Path.of("/nonexistent"),
                        k -> null))
                .hasMessageContaining(
                        "Setting 'source.password' refers to the environment variable NOPE, which is not set");
    }

    @Test
    void badInputNamesTheProblem(@TempDir Path dir) throws Exception {
        assertThatThrownBy(
                        () -> JobSettings.of(new String[] {"--source.hostname"}, Map.of(), dir.resolve("x"), k -> null))
                .hasMessageContaining("Program argument --source.hostname has no value");
        assertThatThrownBy(() -> JobSettings.of(new String[] {"hostname"}, Map.of(), dir.resolve("x"), k -> null))
                .hasMessageContaining("Program argument 'hostname' is not a setting");
        Path json = dir.resolve("bad.json");
        Files.writeString(json, "{\"PropertyGroupId\": \"x\"}");
        assertThatThrownBy(() -> JobSettings.of(
                        new String[] {"--application-properties", json.toString()},
                        Map.of(),
                        dir.resolve("x"),
                        k -> null))
                .hasMessageContaining("must be a JSON array");
        Files.writeString(json, "[{\"PropertyGroupId\": \"x\", \"PropertyMap\": ");
        assertThatThrownBy(() -> JobSettings.of(
                        new String[] {"--application-properties", json.toString()},
                        Map.of(),
                        dir.resolve("x"),
                        k -> null))
                .hasMessageContaining("are not valid JSON");
        assertThatThrownBy(() -> JobSettings.of(new String[0], Map.of(), dir.resolve("x"), k -> null)
                        .required("sink.warehouse", "where tables go"))
                .hasMessageContaining(
                        "Setting 'sink.warehouse' (where tables go) is missing. Pass --sink.warehouse <value>");
    }
}
