package io.inlet.core.spi;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.description.TextElement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Finds source, transform and sink factories by identifier and creates them from options, checking
 * the options first.
 *
 * <pre>{@code
 * ChangeSink sink = FactoryDiscovery.createSink("iceberg", Map.of("warehouse", "/tmp/wh"));
 * }</pre>
 */
@PublicEvolving
public final class FactoryDiscovery {

    private FactoryDiscovery() {}

    public static ChangeSource createSource(String identifier, Map<String, String> options) {
        ClassLoader cl = classLoader();
        ChangeSourceFactory f = find(ChangeSourceFactory.class, "source", identifier, cl);
        return f.createSource(context(f, "source", options, cl));
    }

    public static ChangeTransform createTransform(String identifier, Map<String, String> options) {
        ClassLoader cl = classLoader();
        ChangeTransformFactory f = find(ChangeTransformFactory.class, "transform", identifier, cl);
        return f.createTransform(context(f, "transform", options, cl));
    }

    public static ChangeSink createSink(String identifier, Map<String, String> options) {
        ClassLoader cl = classLoader();
        ChangeSinkFactory f = find(ChangeSinkFactory.class, "sink", identifier, cl);
        return f.createSink(context(f, "sink", options, cl));
    }

    /** The identifiers of the factories of this kind on the classpath, sorted. */
    public static <T extends InletFactory> List<String> identifiers(Class<T> kind) {
        return new ArrayList<>(load(kind, classLoader()).keySet());
    }

    /**
     * The factory of this kind with this identifier.
     *
     * @throws InletValidationException listing the identifiers available when none matches, or the
     *     classes when several claim the identifier
     */
    public static <T extends InletFactory> T find(
            Class<T> kind, String what, String identifier, ClassLoader classLoader) {
        Map<String, List<T>> all = load(kind, classLoader);
        List<T> matches = all.getOrDefault(identifier, Collections.emptyList());
        if (matches.isEmpty()) {
            throw new InletValidationException("No Inlet "
                    + what
                    + " with the identifier '"
                    + identifier
                    + "'. Available "
                    + what
                    + "s: "
                    + (all.isEmpty() ? "none" : String.join(", ", all.keySet()))
                    + ". Fix the identifier, or add the module that provides it (for example"
                    + " inlet-"
                    + what
                    + "-"
                    + identifier
                    + ") to the job's classpath.");
        }
        if (matches.size() > 1) {
            throw new InletValidationException("Several Inlet "
                    + what
                    + "s claim the identifier '"
                    + identifier
                    + "': "
                    + matches.stream().map(m -> m.getClass().getName()).collect(Collectors.joining(", "))
                    + ". Remove all but one from the classpath.");
        }
        return matches.get(0);
    }

    private static <T extends InletFactory> Map<String, List<T>> load(Class<T> kind, ClassLoader cl) {
        Map<String, List<T>> byId = new TreeMap<>();
        try {
            for (T f : ServiceLoader.load(kind, cl)) {
                byId.computeIfAbsent(f.identifier(), k -> new ArrayList<>()).add(f);
            }
        } catch (ServiceConfigurationError e) {
            throw new InletValidationException(
                    "Cannot load the Inlet " + kind.getSimpleName() + " implementations: " + e.getMessage()
                            + ". A jar on the classpath registers a factory class that is missing or broken.",
                    e);
        }
        return byId;
    }

    /**
     * Checks options against the factory's declared ones: every required option present, every key
     * known (or under a pass-through prefix).
     *
     * @throws InletValidationException naming missing and unknown keys and the supported ones
     */
    public static InletFactory.Context context(
            InletFactory factory, String what, Map<String, String> options, ClassLoader classLoader) {
        Configuration config = Configuration.fromMap(options);
        List<String> problems = new ArrayList<>();
        Set<String> known = new TreeSet<>();
        for (ConfigOption<?> o : factory.requiredOptions()) {
            addKeys(o, known);
            if (!config.contains(o)) {
                problems.add("The "
                        + what
                        + " '"
                        + factory.identifier()
                        + "' needs the option '"
                        + o.key()
                        + "' ("
                        + describe(o)
                        + "). Set it.");
            }
        }
        factory.optionalOptions().forEach(o -> addKeys(o, known));
        Set<String> prefixes = factory.passThroughPrefixes();
        for (String key : new TreeSet<>(options.keySet())) {
            if (!known.contains(key) && prefixes.stream().noneMatch(key::startsWith)) {
                problems.add("The "
                        + what
                        + " '"
                        + factory.identifier()
                        + "' has no option '"
                        + key
                        + "'. Supported options: "
                        + String.join(", ", known)
                        + (prefixes.isEmpty() ? "" : "; and keys starting with " + String.join(", ", prefixes))
                        + ".");
            }
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }
        Map<String, String> raw = Collections.unmodifiableMap(new TreeMap<>(options));
        return new InletFactory.Context() {
            @Override
            public ReadableConfig options() {
                return config;
            }

            @Override
            public Map<String, String> rawOptions() {
                return raw;
            }

            @Override
            public ClassLoader classLoader() {
                return classLoader;
            }
        };
    }

    private static String describe(ConfigOption<?> o) {
        return o.description().getBlocks().stream()
                .filter(b -> b instanceof TextElement)
                .map(b -> ((TextElement) b).getFormat())
                .collect(Collectors.joining(" "))
                .replaceAll("\\s+", " ")
                .trim();
    }

    private static void addKeys(ConfigOption<?> o, Set<String> keys) {
        keys.add(o.key());
        for (FallbackKey k : o.fallbackKeys()) {
            keys.add(k.getKey());
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : FactoryDiscovery.class.getClassLoader();
    }
}
