package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletStopException;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.internal.ChannelEvent;
import io.inlet.core.internal.ChannelEventTypeInfo;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;

/**
 * For sinks: spreads a change stream over the sink's writer subtasks: each row by its key (so the changes of a key
 * reach one writer, in order), and each schema change event to every writer, in order with the rows
 * around it on each channel, so that every writer learns a new table version before the first row of
 * it. Flink sends a record to one channel or, for a broadcast stream, to all; so the channel is chosen
 * before the shuffle ({@link ChannelEvent}) and the event unwrapped after it.
 *
 * <pre>{@code
 * DataStream<ChangeEvent> toWriters = ChangePartitioning.byKey(
 *     stream, new MyKeySelector(), new MyPartitioner(), writerParallelism, "Iceberg", context.uid("route"));
 * toWriters.transform("Iceberg: write", ..., writer).setParallelism(writerParallelism);
 * }</pre>
 */
@PublicEvolving
public final class ChangePartitioning {

    private ChangePartitioning() {}

    /**
     * @param parallelism the writers' parallelism; the returned stream has it
     * @param name for the operators' names
     * @param uid the prefix of the two stateless operators' uids
     */
    public static DataStream<ChangeEvent> byKey(
            DataStream<ChangeEvent> stream,
            KeySelector<ChangeEvent, Integer> key,
            Partitioner<Integer> partitioner,
            int parallelism,
            String name,
            String uid) {
        return stream.flatMap(new Route(key, partitioner, parallelism), new ChannelEventTypeInfo(stream.getType()))
                .name(name + ": choose writer")
                .uid(uid + "-choose-writer")
                // Chained to the stream's last operator: the order of each key's changes stays.
                .setParallelism(stream.getParallelism())
                .partitionCustom(new ByChannel(parallelism), new Channel())
                .map(new Unwrap(), stream.getType())
                .name(name + ": receive")
                .uid(uid + "-receive")
                .setParallelism(parallelism);
    }

    /** Chooses the writer of each row, and every writer for a schema change. */
    static final class Route extends RichFlatMapFunction<ChangeEvent, ChannelEvent> {
        private static final long serialVersionUID = 1L;

        private final KeySelector<ChangeEvent, Integer> key;
        private final Partitioner<Integer> partitioner;
        private final int parallelism;

        Route(KeySelector<ChangeEvent, Integer> key, Partitioner<Integer> partitioner, int parallelism) {
            this.key = key;
            this.partitioner = partitioner;
            this.parallelism = parallelism;
        }

        @Override
        public void flatMap(ChangeEvent event, Collector<ChannelEvent> out) throws Exception {
            if (event.isSchemaChange()) {
                for (int channel = 0; channel < parallelism; channel++) {
                    out.collect(ChannelEvent.of(channel, event));
                }
            } else {
                out.collect(ChannelEvent.of(partitioner.partition(key.getKey(event), parallelism), event));
            }
        }
    }

    /**
     * The chosen channel. The writers must run at the parallelism {@link Route} chose for: with more, some
     * would miss schema changes; so another one (a scheduler that rescales the running graph) stops the job.
     */
    static final class ByChannel implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        private final int parallelism;

        ByChannel(int parallelism) {
            this.parallelism = parallelism;
        }

        @Override
        public int partition(Integer channel, int partitions) {
            if (partitions != parallelism) {
                throw new InletStopException("The sink's writers run at parallelism " + partitions + ", but the job"
                        + " was built for " + parallelism + ": schema changes would not reach every writer. Rebuild"
                        + " the job for the new parallelism instead of rescaling the running graph (reactive or"
                        + " adaptive scheduler).");
            }
            return channel;
        }
    }

    static final class Channel implements KeySelector<ChannelEvent, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(ChannelEvent value) {
            return value.channel();
        }
    }

    static final class Unwrap implements MapFunction<ChannelEvent, ChangeEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public ChangeEvent map(ChannelEvent value) {
            return value.event();
        }
    }
}
