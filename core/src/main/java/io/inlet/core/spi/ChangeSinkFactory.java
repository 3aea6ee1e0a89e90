package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;

/** Creates a {@link ChangeSink} from options; found by {@link #identifier()}. */
@PublicEvolving
public interface ChangeSinkFactory extends InletFactory {
    ChangeSink createSink(Context context);
}
