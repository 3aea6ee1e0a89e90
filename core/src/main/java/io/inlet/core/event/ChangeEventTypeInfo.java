package io.inlet.core.event;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.internal.ChangeEventSerializer;
import io.inlet.core.event.internal.TableSchemaEntry;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * The Flink type of a stream of {@link ChangeEvent}s of a known set of tables. It gives Flink
 * Inlet's own serializer, so events never fall back to Kryo. Every stream of change events needs
 * one: pass it to {@code map(fn, typeInfo)}, {@code returns(...)} or the source.
 *
 * <pre>{@code
 * DataStream<ChangeEvent> events =
 *     input.map(new MyRouting(), ChangeEventTypeInfo.of(outputTables));
 * }</pre>
 */
@PublicEvolving
public final class ChangeEventTypeInfo extends TypeInformation<ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final List<TableSchemaEntry> entries;

    private ChangeEventTypeInfo(List<TableSchemaEntry> entries) {
        this.entries = Collections.unmodifiableList(entries);
    }

    /** The type of a stream carrying the rows of these tables, at their schema versions. */
    public static ChangeEventTypeInfo of(Collection<TableDescriptor> tables) {
        List<TableSchemaEntry> entries = new ArrayList<>(tables.size());
        for (TableDescriptor t : tables) {
            entries.add(new TableSchemaEntry(t.tableId(), t.schemaVersion(), t.toRowType()));
        }
        // Validates (no table and version twice) early, at graph-building time.
        new ChangeEventSerializer(entries);
        return new ChangeEventTypeInfo(entries);
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<ChangeEvent> getTypeClass() {
        return ChangeEvent.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<ChangeEvent> createSerializer(ExecutionConfig config) {
        return new ChangeEventSerializer(entries);
    }

    @Override
    public String toString() {
        return "ChangeEvent" + entries;
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ChangeEventTypeInfo && entries.equals(((ChangeEventTypeInfo) obj).entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof ChangeEventTypeInfo;
    }
}
