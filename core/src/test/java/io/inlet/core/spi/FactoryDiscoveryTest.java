package io.inlet.core.spi;

import io.inlet.core.InletValidationException;
import io.inlet.core.transform.RouteTransform;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FactoryDiscoveryTest {

    @Test
    void findsTheBuiltInTransformsAndTheTestJarFactories() {
        assertThat(FactoryDiscovery.identifiers(ChangeTransformFactory.class))
                .containsExactly("filter", "metadata", "projection", "route");
        assertThat(FactoryDiscovery.identifiers(ChangeSourceFactory.class)).contains("values");
        assertThat(FactoryDiscovery.identifiers(ChangeSinkFactory.class)).contains("collect");
        assertThat(FactoryDiscovery.createTransform("route", Map.of("source-table", "a\\.(.*)", "sink-table", "b.$1")))
                .isInstanceOf(RouteTransform.class);
    }

    @Test
    void anUnknownIdentifierListsThoseAvailable() {
        assertThatThrownBy(() -> FactoryDiscovery.createSink("icebreg", Map.of()))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("No Inlet sink with the identifier 'icebreg'")
                .hasMessageContaining("Available sinks: collect")
                .hasMessageContaining("inlet-sink-icebreg");
        assertThatThrownBy(() -> FactoryDiscovery.createTransform("rename", Map.of()))
                .hasMessageContaining("Available transforms: filter, metadata, projection, route");
    }

    @Test
    void missingAndUnknownOptionsAreReportedTogether() {
        assertThatThrownBy(() -> FactoryDiscovery.createTransform("filter", Map.of("source-tabel", "x")))
                .isInstanceOf(InletValidationException.class)
                .satisfies(e ->
                        assertThat(((InletValidationException) e).problems()).hasSize(2))
                .hasMessageContaining("The transform 'filter' needs the option 'filter'")
                .hasMessageContaining("has no option 'source-tabel'. Supported options: filter, source-table");
    }
}
