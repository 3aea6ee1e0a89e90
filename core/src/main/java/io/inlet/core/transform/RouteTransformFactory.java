package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.ChangeTransformFactory;

import org.apache.flink.configuration.ConfigOption;

import java.util.Set;

/** Creates a {@link RouteTransform} from options; identifier {@code route}. */
@PublicEvolving
public final class RouteTransformFactory implements ChangeTransformFactory {

    public static final String IDENTIFIER = "route";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(CoreOptions.SOURCE_TABLE, CoreOptions.SINK_TABLE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public ChangeTransform createTransform(Context context) {
        return RouteTransform.builder()
                .route(
                        context.options().get(CoreOptions.SOURCE_TABLE),
                        context.options().get(CoreOptions.SINK_TABLE))
                .build();
    }
}
