package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.configuration.ConfigOption;

import java.util.Collections;
import java.util.Set;

/**
 * Base of the factories Inlet finds by identifier through {@link java.util.ServiceLoader}: register
 * the implementation in {@code META-INF/services/<factory interface>}. Modelled on Flink's table
 * factories: the option keys are those of the matching Flink SQL connector where there is one.
 */
@PublicEvolving
public interface InletFactory {

    /** The identifier pipelines name, for example {@code mysql-cdc}; unique per factory kind. */
    String identifier();

    /** Options that must be given. */
    Set<ConfigOption<?>> requiredOptions();

    /** Options that may be given. */
    Set<ConfigOption<?>> optionalOptions();

    /**
     * Key prefixes passed through unchecked to the system underneath, for example {@code
     * debezium.} or {@code properties.}.
     */
    default Set<String> passThroughPrefixes() {
        return Collections.emptySet();
    }

    /** What a factory gets: its options, already checked against its declared options. */
    @PublicEvolving
    interface Context {
        /** The options given for this source, transform or sink. */
        org.apache.flink.configuration.ReadableConfig options();

        /** The raw options, for pass-through prefixes. */
        java.util.Map<String, String> rawOptions();

        ClassLoader classLoader();
    }
}
