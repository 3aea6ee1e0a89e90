package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.table.TableDescriptor;

import java.util.List;

/** What a {@link ChangeSink} gets when it adds itself to a job. */
@PublicEvolving
public interface SinkContext {

    /** The tables of the stream the sink consumes. */
    List<TableDescriptor> tables();

    /** A stable operator uid for the given part of this sink. */
    String uid(String part);

    /** Whether the source may deliver a change more than once; see {@link ChangeSource#mayRepeatChanges()}. */
    default boolean changesMayRepeat() {
        return false;
    }
}
