package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.transform.MetadataTransform;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Metadata columns appended to one version of a table. They stay last: a column the table gains while
 * the job runs comes before them, at its place among the table's own columns.
 */
@Internal
public final class MetadataColumns implements FollowedTables.Planner<Void> {

    private static final long serialVersionUID = 1L;

    private final LinkedHashMap<MetadataTransform.Kind, String> columns;

    public MetadataColumns(Map<MetadataTransform.Kind, String> columns) {
        this.columns = new LinkedHashMap<>(columns);
    }

    /** The metadata kinds in column order. */
    public List<MetadataTransform.Kind> kinds() {
        return new ArrayList<>(columns.keySet());
    }

    /** Checks that the table has no column of a metadata column's name; there is nothing else to prepare. */
    @Override
    public Void prepare(TableDescriptor t) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<MetadataTransform.Kind, String> c : columns.entrySet()) {
            if (t.indexOf(c.getValue()) >= 0) {
                problems.add("metadata: table "
                        + t.tableId()
                        + " already has a column '"
                        + c.getValue()
                        + "'. Give the metadata column another name ('"
                        + c.getKey().defaultName()
                        + " AS other_name' in 'metadata-columns').");
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        return null;
    }

    @Override
    public TableDescriptor output(TableDescriptor t, Void nothing) {
        TableDescriptor.Builder b = t.toBuilder();
        columns.forEach((kind, name) -> b.column(name, kind.type()));
        return b.build();
    }
}
