package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;

import java.io.IOException;

/** Skips a value of any Avro schema in a binary stream, without building it. */
@Internal
final class Skipper {

    private Skipper() {}

    static void skip(Schema s, BinaryDecoder in) throws IOException {
        switch (s.getType()) {
            case NULL:
                break;
            case BOOLEAN:
                in.readBoolean();
                break;
            case INT:
                in.readInt();
                break;
            case LONG:
                in.readLong();
                break;
            case FLOAT:
                in.skipFixed(4);
                break;
            case DOUBLE:
                in.skipFixed(8);
                break;
            case STRING:
                in.skipString();
                break;
            case BYTES:
                in.skipBytes();
                break;
            case FIXED:
                in.skipFixed(s.getFixedSize());
                break;
            case ENUM:
                in.readEnum();
                break;
            case UNION:
                skip(s.getTypes().get(in.readIndex()), in);
                break;
            case RECORD:
                for (Schema.Field f : s.getFields()) {
                    skip(f.schema(), in);
                }
                break;
            case ARRAY:
                for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                    for (long i = 0; i < n; i++) {
                        skip(s.getElementType(), in);
                    }
                }
                break;
            case MAP:
                for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                    for (long i = 0; i < n; i++) {
                        in.skipString();
                        skip(s.getValueType(), in);
                    }
                }
                break;
            default:
                throw new IOException("Cannot skip an Avro " + s.getType());
        }
    }
}
