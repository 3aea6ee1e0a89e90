package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.util.InstantiationUtil;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * How Inlet writes Flink logical types and strings into serializer snapshots and events: a type as
 * its SQL text where it has one (readable and stable across Flink versions), as Java serialization
 * otherwise (RAW types); a string as its UTF-8 length and bytes.
 */
@Internal
public final class TypeTexts {

    private TypeTexts() {}

    /** The type's encoding as {@link #writeType} writes it. */
    public static byte[] encode(LogicalType type) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            String text;
            try {
                text = type.asSerializableString();
            } catch (TableException e) {
                text = null;
            }
            out.writeBoolean(text != null);
            byte[] payload =
                    text != null ? text.getBytes(StandardCharsets.UTF_8) : InstantiationUtil.serializeObject(type);
            VarInts.write(payload.length, out);
            out.write(payload);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode the type " + type, e);
        }
        return bytes.toByteArray();
    }

    /** Writes a flag (SQL text or Java serialization), the payload's length and the payload. */
    public static void writeType(LogicalType type, DataOutputView out) throws IOException {
        out.write(encode(type));
    }

    public static LogicalType readType(DataInputView in, ClassLoader classLoader) throws IOException {
        boolean text = in.readBoolean();
        byte[] payload = new byte[VarInts.read(in)];
        in.readFully(payload);
        return decode(text, payload, classLoader);
    }

    /** Reads a type from the bytes {@link #encode} made. */
    public static LogicalType decode(byte[] encoded, ClassLoader classLoader) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
        boolean text = in.readBoolean();
        byte[] payload = new byte[VarInts.read(in)];
        in.readFully(payload);
        return decode(text, payload, classLoader);
    }

    private static LogicalType decode(boolean text, byte[] payload, ClassLoader classLoader) throws IOException {
        if (text) {
            return LogicalTypeParser.parse(new String(payload, StandardCharsets.UTF_8), classLoader);
        }
        try {
            return InstantiationUtil.deserializeObject(payload, classLoader);
        } catch (ClassNotFoundException e) {
            throw new IOException("Cannot read a Java-serialized Flink type: " + e.getMessage(), e);
        }
    }

    public static void writeString(String s, DataOutputView out) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        VarInts.write(bytes.length, out);
        out.write(bytes);
    }

    public static String readString(DataInputView in) throws IOException {
        byte[] bytes = new byte[VarInts.read(in)];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
