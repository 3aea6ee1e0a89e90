package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.connector.source.SourceEvent;

import java.util.List;

/** What the enumerator and the readers tell each other beyond split assignments. */
@Internal
public final class ChangelogEvents {

    private ChangelogEvents() {}

    /** Reader to enumerator: the splits it read to their end since it last said, and whether it wants another. */
    public static final class ReaderProgress implements SourceEvent {
        private static final long serialVersionUID = 1L;

        final List<String> finished;
        final boolean wantsSplit;

        ReaderProgress(List<String> finished, boolean wantsSplit) {
            this.finished = List.copyOf(finished);
            this.wantsSplit = wantsSplit;
        }

        @Override
        public String toString() {
            return "ReaderProgress{finished=" + finished + ", wantsSplit=" + wantsSplit + "}";
        }
    }

    /**
     * Enumerator to readers: every split of every epoch up to this one has been read, so the readers
     * may let the keyed pairing emit those epochs (a watermark).
     */
    public static final class EpochsComplete implements SourceEvent {
        private static final long serialVersionUID = 1L;

        final long epoch;

        EpochsComplete(long epoch) {
            this.epoch = epoch;
        }

        @Override
        public String toString() {
            return "EpochsComplete{" + epoch + "}";
        }
    }
}
