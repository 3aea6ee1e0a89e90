package io.inlet.sink.hudi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.ChangeSinkFactory;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static io.inlet.sink.hudi.HudiSinkOptions.*;

/** Creates a {@link HudiSink} from Hudi's Flink option keys; identifier {@code hudi}. */
@PublicEvolving
public final class HudiSinkFactory implements ChangeSinkFactory {

    public static final String IDENTIFIER = "hudi";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(TABLE_TYPE, PRECOMBINE_FIELD, CHANGELOG_ENABLED, DEFAULT_DATABASE, RECONCILE_SNAPSHOTS);
    }

    @Override
    public Set<String> passThroughPrefixes() {
        Set<String> prefixes = new HashSet<>(HUDI_PREFIXES);
        prefixes.add(PARTITION_FIELDS_PREFIX);
        return prefixes;
    }

    @Override
    public ChangeSink createSink(Context context) {
        ReadableConfig o = context.options();
        HudiSink.Builder b = HudiSink.builder()
                .path(o.get(PATH))
                .tableType(o.get(TABLE_TYPE))
                .changelog(o.get(CHANGELOG_ENABLED))
                .defaultDatabase(o.get(DEFAULT_DATABASE))
                .reconcileSnapshots(o.get(RECONCILE_SNAPSHOTS));
        o.getOptional(PRECOMBINE_FIELD).ifPresent(b::precombineField);
        for (Map.Entry<String, String> e : context.rawOptions().entrySet()) {
            if (e.getKey().startsWith(PARTITION_FIELDS_PREFIX)) {
                b.partitionFields(e.getKey().substring(PARTITION_FIELDS_PREFIX.length()), e.getValue());
            } else if (HUDI_PREFIXES.stream().anyMatch(e.getKey()::startsWith)) {
                b.option(e.getKey(), e.getValue());
            }
        }
        return b.build();
    }
}
