package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.ChangeTransformFactory;

import org.apache.flink.configuration.ConfigOption;

import java.util.Set;

/** Creates a {@link ProjectionTransform} from options; identifier {@code projection}. */
@PublicEvolving
public final class ProjectionTransformFactory implements ChangeTransformFactory {

    public static final String IDENTIFIER = "projection";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(CoreOptions.PROJECTION);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(CoreOptions.SOURCE_TABLE);
    }

    @Override
    public ChangeTransform createTransform(Context context) {
        return ProjectionTransform.builder()
                .sourceTable(context.options().get(CoreOptions.SOURCE_TABLE))
                .projection(context.options().get(CoreOptions.PROJECTION))
                .build();
    }
}
