package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;

/** The stop of a built-in transform that meets a schema change of a table it transforms. */
@Internal
public final class UnfollowedSchemaChange {

    private UnfollowedSchemaChange() {}

    /** Names the transform, the table and the change, and what to do; a stop, as a restart meets it again. */
    public static InletStopException of(String transform, ChangeEvent event) {
        return new InletStopException("The " + transform + " transform cannot follow the schema change of table "
                + event.tableId() + " while the job runs yet: "
                + event.schemaChange().changes()
                + event.schemaChange().statement().map(s -> " (" + s + ")").orElse("") + " at " + event.position()
                + ". Narrow the transform's 'source-table' to tables whose schema stays, or set"
                + " 'schema-change.behavior' = 'fail' on the source to stop at such a change before it is read.");
    }
}
