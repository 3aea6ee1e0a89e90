package io.inlet.core.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;

import java.util.Objects;

/**
 * A change event and the writer subtask it goes to, chosen before the shuffle: the form in which
 * {@link io.inlet.core.spi.ChangePartitioning} sends one schema change event to every subtask and each row to one.
 */
@Internal
public final class ChannelEvent {

    private final int channel;
    private final ChangeEvent event;

    private ChannelEvent(int channel, ChangeEvent event) {
        this.channel = channel;
        this.event = event;
    }

    public static ChannelEvent of(int channel, ChangeEvent event) {
        if (channel < 0) {
            throw new IllegalArgumentException("A channel is 0 or more, not " + channel);
        }
        return new ChannelEvent(channel, Objects.requireNonNull(event, "event"));
    }

    public int channel() {
        return channel;
    }

    public ChangeEvent event() {
        return event;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelEvent
                && channel == ((ChannelEvent) o).channel
                && event.equals(((ChannelEvent) o).event);
    }

    @Override
    public int hashCode() {
        return 31 * channel + event.hashCode();
    }

    @Override
    public String toString() {
        return "#" + channel + " " + event;
    }
}
