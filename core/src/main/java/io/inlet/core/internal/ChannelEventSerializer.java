package io.inlet.core.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.internal.VarInts;

import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;

/** Writes a {@link ChannelEvent} as its channel (a variable-length int) and the event. */
@Internal
public final class ChannelEventSerializer extends TypeSerializer<ChannelEvent> {

    private static final long serialVersionUID = 1L;

    private final TypeSerializer<ChangeEvent> events;

    public ChannelEventSerializer(TypeSerializer<ChangeEvent> events) {
        this.events = events;
    }

    TypeSerializer<ChangeEvent> events() {
        return events;
    }

    @Override
    public boolean isImmutableType() {
        return events.isImmutableType();
    }

    @Override
    public TypeSerializer<ChannelEvent> duplicate() {
        TypeSerializer<ChangeEvent> d = events.duplicate();
        return d == events ? this : new ChannelEventSerializer(d);
    }

    @Override
    public ChannelEvent createInstance() {
        return null;
    }

    @Override
    public ChannelEvent copy(ChannelEvent from) {
        return ChannelEvent.of(from.channel(), events.copy(from.event()));
    }

    @Override
    public ChannelEvent copy(ChannelEvent from, ChannelEvent reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ChannelEvent record, DataOutputView target) throws IOException {
        VarInts.write(record.channel(), target);
        events.serialize(record.event(), target);
    }

    @Override
    public ChannelEvent deserialize(DataInputView source) throws IOException {
        int channel = VarInts.read(source);
        return ChannelEvent.of(channel, events.deserialize(source));
    }

    @Override
    public ChannelEvent deserialize(ChannelEvent reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        VarInts.write(VarInts.read(source), target);
        events.copy(source, target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ChannelEventSerializer && events.equals(((ChannelEventSerializer) obj).events);
    }

    @Override
    public int hashCode() {
        return events.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<ChannelEvent> snapshotConfiguration() {
        return new Snapshot(this);
    }

    /** The event serializer's snapshot, nested. */
    public static final class Snapshot extends CompositeTypeSerializerSnapshot<ChannelEvent, ChannelEventSerializer> {

        /** For reading a snapshot (Flink instantiates it by reflection). */
        public Snapshot() {
            super(ChannelEventSerializer.class);
        }

        Snapshot(ChannelEventSerializer serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return 1;
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(ChannelEventSerializer outer) {
            return new TypeSerializer<?>[] {outer.events()};
        }

        @Override
        @SuppressWarnings("unchecked")
        protected ChannelEventSerializer createOuterSerializerWithNestedSerializers(TypeSerializer<?>[] nested) {
            return new ChannelEventSerializer((TypeSerializer<ChangeEvent>) nested[0]);
        }
    }
}
