package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.ChangeTransformFactory;

import org.apache.flink.configuration.ConfigOption;

import java.util.Set;

/** Creates a {@link FilterTransform} from options; identifier {@code filter}. */
@PublicEvolving
public final class FilterTransformFactory implements ChangeTransformFactory {

    public static final String IDENTIFIER = "filter";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(CoreOptions.FILTER);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(CoreOptions.SOURCE_TABLE);
    }

    @Override
    public ChangeTransform createTransform(Context context) {
        return FilterTransform.builder()
                .sourceTable(context.options().get(CoreOptions.SOURCE_TABLE))
                .filter(context.options().get(CoreOptions.FILTER))
                .build();
    }
}
