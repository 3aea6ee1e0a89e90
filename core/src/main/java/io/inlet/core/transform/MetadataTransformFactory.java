package io.inlet.core.transform;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.CoreOptions;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.ChangeTransformFactory;

import org.apache.flink.configuration.ConfigOption;

import java.util.Set;

/** Creates a {@link MetadataTransform} from options; identifier {@code metadata}. */
@PublicEvolving
public final class MetadataTransformFactory implements ChangeTransformFactory {

    public static final String IDENTIFIER = "metadata";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(CoreOptions.SOURCE_TABLE, CoreOptions.METADATA_COLUMNS);
    }

    @Override
    public ChangeTransform createTransform(Context context) {
        return MetadataTransform.builder()
                .sourceTable(context.options().get(CoreOptions.SOURCE_TABLE))
                .columns(context.options().get(CoreOptions.METADATA_COLUMNS))
                .build();
    }
}
