package io.inlet.examples;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.Pipeline;
import io.inlet.core.PipelineRunner;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.TimeUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A deployable job that builds its pipeline from {@link JobSettings}: the source, transforms and sink
 * are found by identifier and take the options their factories document. It runs under {@link
 * PipelineRunner}: a schema change a sink takes only in a new job (Hudi at an added column) rebuilds
 * the pipeline and restores it from the stopped job's latest retained checkpoint by itself; such a
 * pipeline needs {@code flink.state.checkpoints.dir}.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><td>{@code source.type}, {@code source.<option>}</td><td>the source, e.g. {@code mysql-cdc} with {@code
 *   source.hostname}</td></tr>
 *   <tr><td>{@code transform.<n>.type}, {@code transform.<n>.<option>}</td><td>transforms, applied in the order of
 *   {@code n}</td></tr>
 *   <tr><td>{@code sink.type}, {@code sink.<option>}</td><td>the sink, e.g. {@code iceberg} with {@code
 *   sink.warehouse}</td></tr>
 *   <tr><td>{@code pipeline.name}</td><td>the job name</td></tr>
 *   <tr><td>{@code pipeline.checkpoint-interval}</td><td>e.g. {@code 30 s}; without it the runtime's setting, or
 *   Inlet's default when checkpointing is off</td></tr>
 *   <tr><td>{@code pipeline.parallelism}</td><td>the job's default parallelism</td></tr>
 *   <tr><td>{@code pipeline.dry-run} or {@code --dry-run}</td><td>validate, print the plan and exit: nothing is
 *   created</td></tr>
 *   <tr><td>{@code flink.<key>}</td><td>any Flink configuration key, for runtimes without a configuration file (plain
 *       {@code java}, a managed service): {@code flink.state.checkpoints.dir}, {@code
 *       flink.execution.checkpointing.externalized-checkpoint-retention}, {@code flink.state.backend.type}, {@code
 *       flink.restart-strategy.type}, {@code flink.execution.savepoint.path} to resume from a retained
 *       checkpoint</td></tr>
 * </table>
 *
 * <pre>{@code
 * flink run inlet-examples-mysql-iceberg-job.jar \
 *     --source.hostname db --source.username cdc --source.password '${env:MYSQL_PASSWORD}' \
 *     --source.database-name shop --source.table-name 'orders|customers' \
 *     --sink.warehouse hdfs://namenode:8020/warehouse
 * }</pre>
 */
@PublicEvolving
public final class InletJob {

    private static final Logger LOG = LoggerFactory.getLogger(InletJob.class);

    private static final Set<String> PIPELINE_KEYS =
            Set.of("pipeline.name", "pipeline.checkpoint-interval", "pipeline.parallelism", "pipeline.dry-run");

    /** Settings of this prefix are Flink configuration keys. */
    public static final String FLINK_PREFIX = "flink.";

    private InletJob() {}

    /** Runs the pipeline the program arguments and application properties describe. */
    public static void main(String[] args) throws Exception {
        run(args, Map.of());
    }

    /**
     * Runs the pipeline described by the settings over a scenario's defaults. With {@code --dry-run}
     * among the arguments (or {@code pipeline.dry-run = true}) it validates the pipeline, prints the
     * plan and returns without running anything or creating any table.
     */
    public static void run(String[] args, Map<String, String> defaults) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean dryRun = rest.remove(DRY_RUN_FLAG);
        JobSettings settings = JobSettings.of(rest.toArray(new String[0]), defaults);
        dryRun |= Boolean.parseBoolean(settings.withPrefix("pipeline.").getOrDefault("dry-run", "false"));
        LOG.info("Inlet job settings: {}", settings);
        if (dryRun) {
            Pipeline pipeline =
                    pipeline(settings, environment(settings), Set.of()).build();
            String plan = pipeline.describe();
            LOG.info("Dry run: the pipeline is valid; nothing was created and nothing runs.\n{}", plan);
            System.out.println("Dry run: the pipeline is valid; nothing was created and nothing runs.");
            System.out.print(plan);
            return;
        }
        // Built again, with the tables as they are then, when a sink needs a new job for a schema change.
        PipelineRunner.builder()
                .pipeline(restore -> {
                    Pipeline pipeline = pipeline(settings, environment(settings, restore), Set.of())
                            .build();
                    LOG.info(
                            "Inlet job '{}' writes {} table(s): {}",
                            pipeline.jobName(),
                            pipeline.sinkTables().size(),
                            pipeline.sinkTables());
                    return pipeline;
                })
                .build()
                .run();
    }

    /** The program argument that validates the pipeline and prints its plan instead of running it. */
    public static final String DRY_RUN_FLAG = "--dry-run";

    /**
     * The execution environment, configured with the {@code flink.*} settings (their keys without the
     * prefix): checkpoint storage and directory, retained checkpoints, state backend, restart strategy,
     * a savepoint or retained checkpoint to resume from. Over a cluster's own configuration they win.
     */
    public static StreamExecutionEnvironment environment(JobSettings settings) {
        return environment(settings, new Configuration());
    }

    /** As {@link #environment(JobSettings)}, with more configuration over the settings (a checkpoint to restore). */
    static StreamExecutionEnvironment environment(JobSettings settings, Configuration more) {
        Configuration conf = flinkConfiguration(settings);
        conf.addAll(more);
        if (!conf.keySet().isEmpty()) {
            LOG.info("Flink configuration from the job's settings: {}", conf.keySet());
        }
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /** The {@code flink.*} settings as a Flink configuration. */
    public static Configuration flinkConfiguration(JobSettings settings) {
        return Configuration.fromMap(settings.withPrefix(FLINK_PREFIX));
    }

    /**
     * The pipeline the settings describe, on the given environment, not yet built; {@code
     * otherPrefixes} are setting prefixes the calling job reads itself.
     */
    public static Pipeline.Builder pipeline(
            JobSettings settings, StreamExecutionEnvironment env, Set<String> otherPrefixes) {
        checkKeys(settings, otherPrefixes);
        Map<String, String> source = new LinkedHashMap<>(settings.withPrefix("source."));
        Map<String, String> sink = new LinkedHashMap<>(settings.withPrefix("sink."));
        TreeMap<Integer, Map<String, String>> transforms = transforms(settings); // checked before anything is created
        String sourceType = source.remove("type");
        String sinkType = sink.remove("type");
        List<String> problems = new ArrayList<>();
        if (sourceType == null) {
            problems.add("Setting 'source.type' is missing: name the source, e.g. --source.type mysql-cdc or"
                    + " debezium-kafka.");
        }
        if (sinkType == null) {
            problems.add("Setting 'sink.type' is missing: name the sink, e.g. --sink.type iceberg or hudi.");
        }
        if (!problems.isEmpty()) {
            throw new InletValidationException(problems);
        }

        String parallelism = settings.get("pipeline.parallelism");
        if (parallelism != null) {
            try {
                env.setParallelism(Integer.parseInt(parallelism.trim()));
            } catch (IllegalArgumentException e) {
                throw new InletValidationException(
                        "Setting 'pipeline.parallelism' = '" + parallelism + "' is not a positive number.");
            }
        }
        Pipeline.Builder builder = Pipeline.builder()
                .environment(env)
                .jobName(settings.get("pipeline.name", "inlet: " + sourceType + " to " + sinkType));
        String interval = settings.get("pipeline.checkpoint-interval");
        if (interval != null) {
            try {
                builder.checkpointInterval(TimeUtils.parseDuration(interval));
            } catch (IllegalArgumentException e) {
                throw new InletValidationException("Setting 'pipeline.checkpoint-interval' = '" + interval
                        + "' is not a duration; use e.g. '30 s' or '1 min'.");
            }
        } else if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
            // The sinks commit on checkpoints: a runtime without a checkpoint interval gets Inlet's default.
            java.time.Duration d = io.inlet.core.CoreOptions.DEFAULT_CHECKPOINT_INTERVAL.defaultValue();
            LOG.info(
                    "Checkpointing is off in the runtime's configuration; checkpointing every {}"
                            + " (set pipeline.checkpoint-interval to choose).",
                    d);
            builder.checkpointInterval(d);
        }
        builder.source(sourceType, source);
        for (Map.Entry<Integer, Map<String, String>> t : transforms.entrySet()) {
            Map<String, String> options = new LinkedHashMap<>(t.getValue());
            String type = options.remove("type");
            if (type == null) {
                throw new InletValidationException("Setting 'transform." + t.getKey()
                        + ".type' is missing: name the transform" + " (filter, projection, route or metadata).");
            }
            builder.transform(type, options);
        }
        return builder.sink(sinkType, sink);
    }

    private static TreeMap<Integer, Map<String, String>> transforms(JobSettings settings) {
        TreeMap<Integer, Map<String, String>> out = new TreeMap<>();
        settings.withPrefix("transform.").forEach((k, v) -> {
            int dot = k.indexOf('.');
            int n;
            try {
                n = Integer.parseInt(dot > 0 ? k.substring(0, dot) : "x");
            } catch (NumberFormatException e) {
                throw new InletValidationException("Setting 'transform." + k + "' does not number its transform; use"
                        + " transform.<n>.<option>, e.g. transform.1.type = route.");
            }
            out.computeIfAbsent(n, i -> new LinkedHashMap<>()).put(k.substring(dot + 1), v);
        });
        return out;
    }

    private static void checkKeys(JobSettings settings, Set<String> otherPrefixes) {
        List<String> unknown = new ArrayList<>();
        for (String key : settings.asMap().keySet()) {
            boolean known = key.startsWith("source.")
                    || key.startsWith("sink.")
                    || key.startsWith("transform.")
                    || key.startsWith(FLINK_PREFIX)
                    || PIPELINE_KEYS.contains(key)
                    || otherPrefixes.stream().anyMatch(key::startsWith);
            if (!known) {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            List<String> prefixes = new ArrayList<>(List.of("source.*", "transform.<n>.*", "sink.*", "flink.*"));
            prefixes.addAll(PIPELINE_KEYS);
            otherPrefixes.forEach(p -> prefixes.add(p + "*"));
            throw new InletValidationException(
                    "Unknown setting(s) " + unknown + "; the settings of this job are " + prefixes + ".");
        }
    }
}
