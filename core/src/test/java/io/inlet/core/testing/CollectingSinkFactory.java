package io.inlet.core.testing;

import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.ChangeSinkFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.util.Set;

/** The {@code collect} sink: a {@link CollectingChangeSink} whose results are found by sink id. */
public final class CollectingSinkFactory implements ChangeSinkFactory {

    public static final ConfigOption<String> SINK_ID = ConfigOptions.key("sink-id")
            .stringType()
            .noDefaultValue()
            .withDescription("Where CollectingChangeSink.results(id) finds the rows.");
    public static final ConfigOption<Boolean> UPSERT = ConfigOptions.key("upsert")
            .booleanType()
            .defaultValue(false)
            .withDescription("Whether tables need primary keys.");
    public static final ConfigOption<String> TARGET = ConfigOptions.key("target")
            .stringType()
            .noDefaultValue()
            .withDescription("The target name; two sinks with one target conflict.");

    @Override
    public String identifier() {
        return "collect";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(SINK_ID);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(UPSERT, TARGET);
    }

    @Override
    public ChangeSink createSink(Context context) {
        CollectingChangeSink.Builder b = CollectingChangeSink.builder()
                .id(context.options().get(SINK_ID))
                .upsert(context.options().get(UPSERT));
        context.options().getOptional(TARGET).ifPresent(b::target);
        return b.build();
    }
}
