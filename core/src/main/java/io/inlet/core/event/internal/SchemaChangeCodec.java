package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.table.Column;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.utils.TypeConversions;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes and reads {@link SchemaChange}s inside change events: both descriptors, the column changes
 * and the statement, without Java serialization. Column types travel as logical types and come back
 * with Flink's default conversion classes, as Inlet's sources make them.
 */
@Internal
public final class SchemaChangeCodec {

    private static final ColumnChange.Kind[] KINDS = ColumnChange.Kind.values();

    /**
     * Set in the kind byte of an added column with a default for the rows before, which follows its other
     * fields. Events written before defaults travelled never set it, so they read as they did.
     */
    private static final int HAS_DEFAULT = 0x80;

    private SchemaChangeCodec() {}

    public static void write(SchemaChange change, DataOutputView out) throws IOException {
        writeDescriptor(change.before(), out);
        writeDescriptor(change.after(), out);
        VarInts.write(change.changes().size(), out);
        for (ColumnChange c : change.changes()) {
            out.writeByte(c.kind().ordinal() | (c.defaultValue().isPresent() ? HAS_DEFAULT : 0));
            TypeTexts.writeString(c.column(), out);
            switch (c.kind()) {
                case ADDED:
                    TypeTexts.writeType(c.newType().orElseThrow(), out);
                    writeNullable(c.after().orElse(null), out);
                    if (c.defaultValue().isPresent()) {
                        TypeTexts.writeString(c.defaultValue().get(), out);
                    }
                    break;
                case RENAMED:
                    TypeTexts.writeString(c.newName().orElseThrow(), out);
                    break;
                case RETYPED:
                    TypeTexts.writeType(c.oldType().orElseThrow(), out);
                    TypeTexts.writeType(c.newType().orElseThrow(), out);
                    break;
                default:
                    break;
            }
        }
        writeNullable(change.statement().orElse(null), out);
        out.writeBoolean(change.isBestEffort());
    }

    public static SchemaChange read(DataInputView in, ClassLoader classLoader) throws IOException {
        TableDescriptor before = readDescriptor(in, classLoader);
        TableDescriptor after = readDescriptor(in, classLoader);
        int n = VarInts.read(in);
        List<ColumnChange> changes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int flags = in.readUnsignedByte();
            int kind = flags & ~HAS_DEFAULT;
            if (kind >= KINDS.length) {
                throw new IOException("Corrupt schema change event: column change kind " + kind);
            }
            String column = TypeTexts.readString(in);
            switch (KINDS[kind]) {
                case ADDED: {
                    LogicalType type = TypeTexts.readType(in, classLoader);
                    ColumnChange added = ColumnChange.added(column, type, readNullable(in));
                    changes.add((flags & HAS_DEFAULT) != 0 ? added.withDefaultValue(TypeTexts.readString(in)) : added);
                    break;
                }
                case RENAMED:
                    changes.add(ColumnChange.renamed(column, TypeTexts.readString(in)));
                    break;
                case RETYPED: {
                    LogicalType was = TypeTexts.readType(in, classLoader);
                    changes.add(ColumnChange.retyped(column, was, TypeTexts.readType(in, classLoader)));
                    break;
                }
                default:
                    changes.add(ColumnChange.dropped(column));
            }
        }
        String statement = readNullable(in);
        return SchemaChange.of(before, after, changes, statement).withBestEffort(in.readBoolean());
    }

    private static void writeDescriptor(TableDescriptor table, DataOutputView out) throws IOException {
        writeTableId(table.tableId(), out);
        out.writeInt(table.schemaVersion());
        VarInts.write(table.columns().size(), out);
        for (Column c : table.columns()) {
            TypeTexts.writeString(c.name(), out);
            TypeTexts.writeType(c.type().getLogicalType(), out);
            writeNullable(c.comment().orElse(null), out);
        }
        writeList(table.primaryKey(), out);
        writeList(table.partitionKeys(), out);
        VarInts.write(table.properties().size(), out);
        for (Map.Entry<String, String> e : table.properties().entrySet()) {
            TypeTexts.writeString(e.getKey(), out);
            TypeTexts.writeString(e.getValue(), out);
        }
        writeNullable(table.comment().orElse(null), out);
    }

    private static TableDescriptor readDescriptor(DataInputView in, ClassLoader classLoader) throws IOException {
        TableDescriptor.Builder b = TableDescriptor.builder(readTableId(in));
        b.schemaVersion(in.readInt());
        int columns = VarInts.read(in);
        for (int i = 0; i < columns; i++) {
            String name = TypeTexts.readString(in);
            LogicalType type = TypeTexts.readType(in, classLoader);
            b.column(name, TypeConversions.fromLogicalToDataType(type), readNullable(in));
        }
        b.primaryKey(readList(in));
        b.partitionKeys(readList(in));
        int properties = VarInts.read(in);
        for (int i = 0; i < properties; i++) {
            String key = TypeTexts.readString(in);
            b.property(key, TypeTexts.readString(in));
        }
        b.comment(readNullable(in));
        return b.build();
    }

    /** A table id: whether it has a database, the database, the table. */
    static void writeTableId(TableId id, DataOutputView out) throws IOException {
        writeNullable(id.database(), out);
        TypeTexts.writeString(id.table(), out);
    }

    static TableId readTableId(DataInputView in) throws IOException {
        String database = readNullable(in);
        String table = TypeTexts.readString(in);
        return database == null ? TableId.of(table) : TableId.of(database, table);
    }

    private static void writeList(List<String> values, DataOutputView out) throws IOException {
        VarInts.write(values.size(), out);
        for (String v : values) {
            TypeTexts.writeString(v, out);
        }
    }

    private static List<String> readList(DataInputView in) throws IOException {
        int n = VarInts.read(in);
        List<String> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(TypeTexts.readString(in));
        }
        return values;
    }

    private static void writeNullable(@Nullable String s, DataOutputView out) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            TypeTexts.writeString(s, out);
        }
    }

    @Nullable
    private static String readNullable(DataInputView in) throws IOException {
        return in.readBoolean() ? TypeTexts.readString(in) : null;
    }
}
