package io.inlet.examples;

import io.inlet.testing.FlinkDistribution;
import io.inlet.testing.JobJar;

import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Iceberg APIs job jar: deployable contents, and run with {@code flink run} on a Flink without
 * Hadoop it uses one catalog from Flink SQL, the Table API and the DataStream API.
 */
class IcebergApisJobJarITCase {

    static final Duration TIMEOUT = Duration.ofMinutes(3);

    static final List<String> SQL_ROWS =
            List.of("[sql] +I[1, anna, 19.90]", "[sql] +I[2, bob, 7.50]", "[sql] +I[3, carla, 120.00]");

    @Test
    @Tag("every-flink-line") // the packaging check runs on Flink 1.18 too (see the README, Run the tests)
    void holdsTheCatalogHelpersAndTheRelocatedShimAndNothingOfFlinkOrPlainHadoop() {
        JobJar jar = JobJar.ofThisModule();
        assertThat(jar.deployabilityProblems("io.inlet.examples.IcebergApis")).isEmpty();
        assertThat(jar.icebergCatalogProblems()).isEmpty();
        assertThat(jar.has("io/inlet/shim/IcebergCatalogs.class")).isTrue();
    }

    /**
     * With Iceberg's own catalog type, which works here only through the relocated shim (see {@link
     * HadoopUtilsReproductionITCase}); the jar's default, {@code inlet-iceberg}, runs the same Inlet catalog code
     * the Table API and DataStream parts use, and runs unrelocated there.
     */
    @Test
    void sqlTableApiAndDataStreamShareOneCatalogOnAFlinkWithoutHadoop(@TempDir Path work) throws Exception {
        Path warehouse = work.resolve("warehouse");
        List<String> out = run(JobJar.ofThisModule().path(), warehouse, "iceberg");
        assertThat(lines(out, "[sql]")).containsExactlyElementsOf(SQL_ROWS);
        assertThat(lines(out, "[table-api]")).containsExactly("[table-api] +I[1, anna]", "[table-api] +I[3, carla]");
        assertThat(lines(out, "[datastream]"))
                .containsExactly(
                        "[datastream] +I[1, anna, 19.90]",
                        "[datastream] +I[2, bob, 7.50]",
                        "[datastream] +I[3, carla, 120.00]");
        try (HadoopCatalog catalog = new HadoopCatalog(
                new org.apache.hadoop.conf.Configuration(false),
                warehouse.toUri().toString())) {
            assertThat(catalog.listTables(org.apache.iceberg.catalog.Namespace.of("shop")))
                    .extracting(TableIdentifier::name)
                    .containsExactlyInAnyOrder("orders", "big_orders", "order_copies");
            assertThat(catalog.loadTable(TableIdentifier.of("shop", "orders"))
                            .schema()
                            .identifierFieldNames())
                    .containsExactly("id");
        }
    }

    /** Runs the jar to its end; returns its output's lines. */
    static List<String> run(Path jar, Path warehouse, String sqlCatalogType, String... more) throws Exception {
        List<String> args = new ArrayList<>(
                List.of("--catalog.warehouse", warehouse.toUri().toString(), "--sql.catalog-type", sqlCatalogType));
        args.addAll(List.of(more));
        try (FlinkDistribution.Run run = FlinkDistribution.run(jar, Map.of(), args.toArray(new String[0]))) {
            int exit = run.awaitExit(TIMEOUT);
            String output = run.output();
            assertThat(exit).as("exit code of flink run. %s", run.describe()).isZero();
            assertThat(output).as("the runtime has no Hadoop").contains("No Hadoop Dependency available");
            return Arrays.asList(output.split("\n"));
        }
    }

    static List<String> lines(List<String> output, String prefix) {
        return output.stream().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
    }
}
