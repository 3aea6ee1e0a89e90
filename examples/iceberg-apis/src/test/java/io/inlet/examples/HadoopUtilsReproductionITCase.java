package io.inlet.examples;

import io.inlet.testing.FlinkDistribution;
import io.inlet.testing.JobJar;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure users of managed, serverless Flink report, rebuilt: a Flink runtime whose class path
 * has Flink and no Hadoop, {@code flink run} putting the job jar in Flink's child-first user-code
 * class loader with the default parent-first patterns ({@code org.apache.flink.} among them).
 *
 * <ul>
 *   <li>A jar that bundles Hadoop as it is, and even Inlet's HadoopUtils class unrelocated: {@code
 *       CREATE CATALOG ... 'type' = 'iceberg'} fails with {@code NoClassDefFoundError:
 *       org/apache/hadoop/conf/Configuration} in {@code FlinkCatalogFactory.clusterHadoopConf}, since
 *       Flink's HadoopUtils is loaded by the parent, which cannot see the jar's Hadoop.
 *   <li>The same job built with the shim and Hadoop relocated: CREATE CATALOG, CREATE TABLE, INSERT
 *       and SELECT succeed, and so do the Table API and DataStream parts ({@link IcebergApisJobJarITCase},
 *       whose run is this one's).
 *   <li>The unrelocated jar with {@code 'type' = 'inlet-iceberg'}: they succeed too, no shading needed.
 * </ul>
 */
class HadoopUtilsReproductionITCase {

    private static Path noShimJar() {
        Path job = JobJar.ofThisModule().path();
        return job.resolveSibling(job.getFileName().toString().replace("-job.jar", "-no-shim.jar"));
    }

    @Test
    void withoutTheShimIcebergsCatalogFactoryFailsWithNoClassDefFoundError(@TempDir Path work) throws Exception {
        JobJar unshaded = JobJar.of(noShimJar());
        // The shim class is in the jar, unrelocated: parent-first loading ignores it.
        assertThat(unshaded.has("org/apache/flink/runtime/util/HadoopUtils.class"))
                .isTrue();
        assertThat(unshaded.has("org/apache/hadoop/conf/Configuration.class")).isTrue();

        try (FlinkDistribution.Run run = FlinkDistribution.run(
                unshaded.path(),
                Map.of(),
                "--catalog.warehouse",
                work.resolve("warehouse").toUri().toString(),
                "--sql.catalog-type",
                "iceberg",
                "--apis",
                "sql")) {
            int exit = run.awaitExit(IcebergApisJobJarITCase.TIMEOUT);
            String output = run.output();
            assertThat(exit).as(run.describe()).isNotZero();
            assertThat(output)
                    .contains("No Hadoop Dependency available")
                    .contains("java.lang.NoClassDefFoundError: org/apache/hadoop/conf/Configuration")
                    .contains("at org.apache.iceberg.flink.FlinkCatalogFactory.clusterHadoopConf")
                    .doesNotContain("[sql]");
        }
    }

    @Test
    void theInletIcebergCatalogTypeNeedsNoShading(@TempDir Path work) throws Exception {
        assertThat(IcebergApisJobJarITCase.lines(
                        IcebergApisJobJarITCase.run(
                                noShimJar(), work.resolve("warehouse"), "inlet-iceberg", "--apis", "sql"),
                        "[sql]"))
                .containsExactlyElementsOf(IcebergApisJobJarITCase.SQL_ROWS);
    }
}
