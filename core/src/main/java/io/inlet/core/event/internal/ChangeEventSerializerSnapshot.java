package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.table.TableId;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The configuration snapshot of a {@link ChangeEventSerializer}: its tables with their schema
 * versions and row types, in index order.
 *
 * <p>Compatibility with a new serializer: the same tables in the same order are compatible as they
 * are. When the new serializer knows other tables or versions too, or fewer, the restored data is
 * read with a reconfigured serializer that keeps the old indexes and appends the new entries, so
 * events of every table either side knows can be read and written. A table at the same schema
 * version with a different row type is incompatible: the schema changed without a new version.
 *
 * <p>Versions born while the job ran are not in the snapshot: their events describe themselves
 * (see {@link ChangeEventSerializer}), so state and in-flight data holding them read with any
 * serializer, including one built with those versions later.
 */
@Internal
public final class ChangeEventSerializerSnapshot implements TypeSerializerSnapshot<ChangeEvent> {

    private static final int VERSION = 1;

    private List<TableSchemaEntry> entries;

    /** For reading a snapshot (Flink instantiates it by reflection). */
    public ChangeEventSerializerSnapshot() {}

    ChangeEventSerializerSnapshot(List<TableSchemaEntry> entries) {
        this.entries = entries;
    }

    @Override
    public int getCurrentVersion() {
        return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        VarInts.write(entries.size(), out);
        for (TableSchemaEntry e : entries) {
            SchemaChangeCodec.writeTableId(e.tableId(), out);
            out.writeInt(e.schemaVersion());
            TypeTexts.writeType(e.rowType(), out);
        }
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        if (readVersion != VERSION) {
            throw new IOException("Unknown ChangeEventSerializer snapshot version " + readVersion
                    + "; this Inlet reads version " + VERSION + ".");
        }
        int n = VarInts.read(in);
        List<TableSchemaEntry> read = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TableId id = SchemaChangeCodec.readTableId(in);
            int version = in.readInt();
            read.add(new TableSchemaEntry(id, version, (RowType) TypeTexts.readType(in, classLoader)));
        }
        this.entries = read;
    }

    @Override
    public TypeSerializer<ChangeEvent> restoreSerializer() {
        return new ChangeEventSerializer(entries);
    }

    @Override
    public TypeSerializerSchemaCompatibility<ChangeEvent> resolveSchemaCompatibility(
            TypeSerializer<ChangeEvent> newSerializer) {
        if (!(newSerializer instanceof ChangeEventSerializer)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        List<TableSchemaEntry> newEntries = ((ChangeEventSerializer) newSerializer).entries();
        if (newEntries.equals(entries)) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        List<TableSchemaEntry> merged = new ArrayList<>(entries);
        for (TableSchemaEntry candidate : newEntries) {
            Optional<TableSchemaEntry> old =
                    entries.stream().filter(candidate::sameKey).findFirst();
            if (old.isPresent()) {
                if (!old.get().rowType().equals(candidate.rowType())) {
                    return TypeSerializerSchemaCompatibility.incompatible();
                }
            } else {
                merged.add(candidate);
            }
        }
        return TypeSerializerSchemaCompatibility.compatibleWithReconfiguredSerializer(
                new ChangeEventSerializer(merged));
    }

    List<TableSchemaEntry> entries() {
        return entries;
    }
}
