package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.table.TableDescriptor;

import java.util.List;

/** What a {@link ChangeTransform} gets when it adds itself to a job. */
@PublicEvolving
public interface TransformContext {

    /** The tables of the incoming stream. */
    List<TableDescriptor> inputTables();

    /** The tables the transform returned from {@link ChangeTransform#transformTables}. */
    List<TableDescriptor> outputTables();

    /** The type the transformed stream must have. */
    ChangeEventTypeInfo outputTypeInfo();

    /** A stable operator uid for the given part of this transform. */
    String uid(String part);
}
