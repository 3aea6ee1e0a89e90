package io.inlet.core.event.internal;

import io.inlet.annotation.Internal;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** Unsigned variable-length ints: 7 bits a byte, so lengths and indexes below 128 take one byte. */
@Internal
public final class VarInts {

    private VarInts() {}

    public static void write(int value, DataOutput out) throws IOException {
        if (value < 0) {
            throw new IllegalArgumentException("Negative length or index " + value);
        }
        while ((value & ~0x7F) != 0) {
            out.writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.writeByte(value);
    }

    public static int read(DataInput in) throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.readUnsignedByte();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("Malformed variable-length int: more than 5 bytes.");
    }
}
