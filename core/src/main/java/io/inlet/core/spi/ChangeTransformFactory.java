package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;

/** Creates a {@link ChangeTransform} from options; found by {@link #identifier()}. */
@PublicEvolving
public interface ChangeTransformFactory extends InletFactory {
    ChangeTransform createTransform(Context context);
}
