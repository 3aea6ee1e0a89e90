package io.inlet.core.testing;

import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.ChangeSourceFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.util.Set;

/** The {@code values} source: a {@link ValuesChangeSource} registered under a data id. */
public final class ValuesSourceFactory implements ChangeSourceFactory {

    public static final ConfigOption<String> DATA_ID = ConfigOptions.key("data-id")
            .stringType()
            .noDefaultValue()
            .withDescription("The id ValuesChangeSource.register() returned.");

    @Override
    public String identifier() {
        return "values";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(DATA_ID);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public ChangeSource createSource(Context context) {
        return ValuesChangeSource.registered(context.options().get(DATA_ID));
    }
}
