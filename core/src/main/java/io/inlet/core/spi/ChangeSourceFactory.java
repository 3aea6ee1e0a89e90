package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;

/** Creates a {@link ChangeSource} from options; found by {@link #identifier()}. */
@PublicEvolving
public interface ChangeSourceFactory extends InletFactory {
    ChangeSource createSource(Context context);
}
