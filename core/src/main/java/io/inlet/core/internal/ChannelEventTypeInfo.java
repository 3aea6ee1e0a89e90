package io.inlet.core.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** The Flink type of a stream of {@link ChannelEvent}s: the events' own type, wrapped. */
@Internal
public final class ChannelEventTypeInfo extends TypeInformation<ChannelEvent> {

    private static final long serialVersionUID = 1L;

    private final TypeInformation<ChangeEvent> events;

    public ChannelEventTypeInfo(TypeInformation<ChangeEvent> events) {
        this.events = events;
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
    public Class<ChannelEvent> getTypeClass() {
        return ChannelEvent.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<ChannelEvent> createSerializer(ExecutionConfig config) {
        return new ChannelEventSerializer(events.createSerializer(config));
    }

    @Override
    public String toString() {
        return "ChannelEvent<" + events + ">";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ChannelEventTypeInfo && events.equals(((ChannelEventTypeInfo) obj).events);
    }

    @Override
    public int hashCode() {
        return events.hashCode() + 1;
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof ChannelEventTypeInfo;
    }
}
