package io.inlet.core;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.ChangeEventTypeInfo;
import io.inlet.core.internal.ChangeEventMetrics;
import io.inlet.core.spi.ChangeSink;
import io.inlet.core.spi.ChangeSource;
import io.inlet.core.spi.ChangeTransform;
import io.inlet.core.spi.FactoryDiscovery;
import io.inlet.core.spi.SinkContext;
import io.inlet.core.spi.SnapshotSignals;
import io.inlet.core.spi.SourceContext;
import io.inlet.core.spi.TransformContext;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A change-data pipeline: one source, any transforms, one or more sinks, wired onto a Flink {@link
 * StreamExecutionEnvironment}. {@link Builder#build()} validates the whole job before anything runs
 * and reports every problem it finds, each with its fix: checkpointing off while a sink commits on
 * checkpoints, a table without a primary key for an upsert sink, a transform naming a column that
 * does not exist, two sinks writing the same table.
 *
 * <pre>{@code
 * Pipeline pipeline = Pipeline.builder()
 *     .source("mysql-cdc", Map.of("hostname", "db", "username", "cdc", "password", secret,
 *                                  "database-name", "shop", "table-name", "orders|customers"))
 *     .transform(RouteTransform.builder().route("shop\\.(.*)", "lake.$1").build())
 *     .transform(MetadataTransform.builder().columns("_op, _source_ts").build())
 *     .sink("iceberg", Map.of("catalog-type", "hadoop", "warehouse", "file:///data/warehouse"))
 *     .jobName("shop-to-lake")
 *     .build();
 * pipeline.execute();
 * }</pre>
 */
@PublicEvolving
public final class Pipeline {

    private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);

    private final StreamExecutionEnvironment env;
    private final String jobName;
    private final List<TableDescriptor> sourceTables;
    private final List<TableDescriptor> sinkTables;
    private final Runnable wiring;
    private final String plan;
    private final boolean rebuildsForSchemaChanges;
    private boolean wired;

    private Pipeline(
            StreamExecutionEnvironment env,
            String jobName,
            List<TableDescriptor> sourceTables,
            List<TableDescriptor> sinkTables,
            Runnable wiring,
            String plan,
            boolean rebuildsForSchemaChanges) {
        this.rebuildsForSchemaChanges = rebuildsForSchemaChanges;
        this.env = env;
        this.jobName = jobName;
        this.sourceTables = sourceTables;
        this.sinkTables = sinkTables;
        this.wiring = wiring;
        this.plan = plan;
    }

    /**
     * Without a checkpoint directory Flink keeps checkpoints in the JobManager's memory, at most 5 MB
     * per operator state: Hudi's key index passes that at around a million keys, and then every
     * checkpoint fails and nothing more is committed. A warning, not an error: a managed service may
     * set the directory on the cluster, where the client cannot see it. Null when a directory is set.
     */
    @Nullable
    static String jobManagerCheckpointStorageWarning(StreamExecutionEnvironment environment) {
        CheckpointStorage storage = environment.getCheckpointConfig().getCheckpointStorage();
        boolean inMemory;
        if (storage != null) {
            inMemory = storage instanceof JobManagerCheckpointStorage;
        } else {
            ReadableConfig conf = environment.getConfiguration();
            boolean dir =
                    conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).isPresent();
            inMemory = conf.getOptional(CheckpointingOptions.CHECKPOINT_STORAGE)
                    .map("jobmanager"::equalsIgnoreCase)
                    .orElse(!dir);
        }
        if (!inMemory) {
            return null;
        }
        return "no checkpoint directory is set, so checkpoints are kept in the JobManager's memory, at most 5 MB per"
                + " operator state. Sink key indexes (Hudi's bucket assigner) pass that at around a million keys, and"
                + " then every checkpoint fails and nothing is committed. Fix: set 'state.checkpoints.dir' (e.g."
                + " s3://bucket/checkpoints or file:///var/flink/checkpoints), or call"
                + " env.getCheckpointConfig().setCheckpointStorage(...). Ignore this if your cluster sets it.";
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Adds the pipeline's operators to its environment, once (a second call does nothing), and
     * returns the environment, for adding more to the same job before executing it yourself. Sinks
     * create their missing tables here. {@link #execute()} and {@link #executeAsync()} call it.
     */
    public synchronized StreamExecutionEnvironment addToEnvironment() {
        if (!wired) {
            wiring.run();
            wired = true;
        }
        return env;
    }

    /**
     * Adds the pipeline to its environment, runs the job and waits for it to end (a streaming job ends when cancelled
     * or failed).
     */
    public JobExecutionResult execute() throws Exception {
        return addToEnvironment().execute(jobName);
    }

    /** Adds the pipeline to its environment, submits the job and returns at once; the {@link JobClient} controls it. */
    public JobClient executeAsync() throws Exception {
        return addToEnvironment().executeAsync(jobName);
    }

    /**
     * Whether the job may stop at a schema change to be rebuilt with the tables' new schemas ({@link
     * RebuildRequiredException}): the source follows schema changes and a sink takes some only that way.
     * {@link PipelineRunner} runs such a pipeline.
     */
    public boolean rebuildsForSchemaChanges() {
        return rebuildsForSchemaChanges;
    }

    /** The environment the pipeline runs in; its operators are there once {@link #addToEnvironment()} ran. */
    public StreamExecutionEnvironment environment() {
        return env;
    }

    /**
     * The validated plan, as text: the source and its tables, the transforms, each sink with the
     * tables it writes and how, the checkpoint interval and the operator uids. Building the plan
     * created nothing.
     */
    public String describe() {
        return plan;
    }

    public String jobName() {
        return jobName;
    }

    /** The tables as the source captures them. */
    public List<TableDescriptor> sourceTables() {
        return sourceTables;
    }

    /** The tables as the sinks receive them, after all transforms. */
    public List<TableDescriptor> sinkTables() {
        return sinkTables;
    }

    /** Builds and validates a {@link Pipeline}. */
    @PublicEvolving
    public static final class Builder {
        private StreamExecutionEnvironment env;
        private ChangeSource source;

        @Nullable
        private String sourceUid;

        private final List<ChangeTransform> transforms = new ArrayList<>();
        private final List<String> transformUids = new ArrayList<>();
        private final List<ChangeSink> sinks = new ArrayList<>();
        private final List<String> sinkUids = new ArrayList<>();
        private String jobName = CoreOptions.PIPELINE_NAME.defaultValue();
        private Duration checkpointInterval;
        private boolean built;

        private Builder() {}

        private void checkOpen() {
            if (built) {
                throw new IllegalStateException(
                        "This builder has built its pipeline; changing it now would not change that"
                                + " pipeline. Start another with Pipeline.builder().");
            }
        }

        /**
         * The environment to wire the job onto. Without one the pipeline takes {@link
         * StreamExecutionEnvironment#getExecutionEnvironment()} (the cluster's when submitted with
         * {@code flink run}, a local one otherwise) and turns checkpointing on there if it is off.
         */
        public Builder environment(StreamExecutionEnvironment environment) {
            checkOpen();
            this.env = Objects.requireNonNull(environment, "environment");
            return this;
        }

        public Builder source(ChangeSource changeSource) {
            checkOpen();
            if (this.source != null) {
                throw new InletValidationException("A pipeline has one source; it already has '" + this.source.name()
                        + "'. Capture more tables with the source's table patterns instead.");
            }
            this.source = Objects.requireNonNull(changeSource, "source");
            return this;
        }

        /**
         * The source, with the prefix of its operator uids. Uids are how a restored job finds each
         * operator's state: keep them when you change the job. The default, {@code
         * inlet-source-<name>}, is stable already; set one to keep a job's state across a change of
         * source name.
         */
        public Builder source(ChangeSource changeSource, String uid) {
            source(changeSource);
            this.sourceUid = checkUid(uid);
            return this;
        }

        /**
         * A source found by identifier, for example {@code mysql-cdc}, with its options; the option
         * {@code uid} (see {@link CoreOptions#UID}) sets its uid prefix.
         */
        public Builder source(String identifier, Map<String, String> options) {
            ChangeSource created = FactoryDiscovery.createSource(identifier, withoutUid(options));
            String uid = options.get(CoreOptions.UID.key());
            return uid == null ? source(created) : source(created, uid);
        }

        public Builder transform(ChangeTransform transform) {
            checkOpen();
            transforms.add(Objects.requireNonNull(transform, "transform"));
            transformUids.add(null);
            return this;
        }

        /**
         * A transform with the prefix of its operator uids. The default is derived from the
         * transform's name and definition, never from its place in the list, so adding or
         * reordering transforms leaves the others' uids as they were.
         */
        public Builder transform(ChangeTransform transform, String uid) {
            transform(transform);
            transformUids.set(transformUids.size() - 1, checkUid(uid));
            return this;
        }

        /**
         * A transform found by identifier ({@code filter}, {@code projection}, {@code route}, ...); option {@code uid}
         * as for sources.
         */
        public Builder transform(String identifier, Map<String, String> options) {
            ChangeTransform created = FactoryDiscovery.createTransform(identifier, withoutUid(options));
            String uid = options.get(CoreOptions.UID.key());
            return uid == null ? transform(created) : transform(created, uid);
        }

        public Builder sink(ChangeSink sink) {
            checkOpen();
            sinks.add(Objects.requireNonNull(sink, "sink"));
            sinkUids.add(null);
            return this;
        }

        /**
         * A sink with the prefix of its operator uids. The default is derived from the sink's name and
         * where it writes ({@link ChangeSink#uidSeed()}), never from its place in the list, so adding a
         * sink or a transform leaves this sink's state (its committer's pending files) where a restored
         * job finds it. Set one to keep a sink's state when you move it elsewhere, or to keep the
         * uids of a job built by an earlier Inlet ({@code inlet-sink-1-iceberg} for its first sink).
         */
        public Builder sink(ChangeSink sink, String uid) {
            sink(sink);
            sinkUids.set(sinkUids.size() - 1, checkUid(uid));
            return this;
        }

        /**
         * A sink found by identifier, for example {@code iceberg}, with its options; option {@code uid} as for sources.
         */
        public Builder sink(String identifier, Map<String, String> options) {
            ChangeSink created = FactoryDiscovery.createSink(identifier, withoutUid(options));
            String uid = options.get(CoreOptions.UID.key());
            return uid == null ? sink(created) : sink(created, uid);
        }

        /** A factory's options without {@code uid}, which the pipeline reads itself. */
        private static Map<String, String> withoutUid(Map<String, String> options) {
            Map<String, String> rest = new LinkedHashMap<>(options);
            rest.remove(CoreOptions.UID.key());
            return rest;
        }

        private static String checkUid(String uid) {
            if (uid == null || uid.trim().isEmpty()) {
                throw new InletValidationException(
                        "A uid must not be empty; use a short stable name such as 'lake-iceberg'.");
            }
            return uid.trim();
        }

        public Builder jobName(String name) {
            checkOpen();
            this.jobName = Objects.requireNonNull(name, "jobName");
            return this;
        }

        /**
         * Sets the checkpoint interval on the environment. Sinks commit on checkpoints, so this is
         * also how often data becomes visible. Overriding an interval already set on a given
         * environment is logged as a warning.
         */
        public Builder checkpointInterval(Duration interval) {
            checkOpen();
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new InletValidationException(
                        "checkpointInterval must be positive, was " + interval + ". Use e.g. Duration.ofSeconds(30).");
            }
            this.checkpointInterval = interval;
            return this;
        }

        /**
         * Validates the whole job. Nothing is created and nothing is added to the environment yet:
         * that happens in {@link Pipeline#addToEnvironment()}, which {@link Pipeline#execute()} calls.
         * A builder builds one pipeline; a second call is refused.
         *
         * @throws InletValidationException listing every problem found, each with its fix
         */
        public Pipeline build() {
            if (built) {
                throw new IllegalStateException(
                        "This builder has already built its pipeline, and a second one would add the"
                                + " same job to the environment twice. Start another with Pipeline.builder().");
            }
            built = true;
            List<String> problems = new ArrayList<>();
            List<Throwable> causes = new ArrayList<>();
            if (source == null) {
                problems.add(
                        "The pipeline has no source. Add one with source(...), e.g. source(\"mysql-cdc\", options).");
            }
            if (sinks.isEmpty()) {
                problems.add("The pipeline has no sink. Add one with sink(...), e.g. sink(\"iceberg\", options).");
            }
            StreamExecutionEnvironment environment = resolveEnvironment();
            checkCheckpointing(environment, problems);
            if (source == null) {
                throw new InletValidationException(problems);
            }

            List<TableDescriptor> sourceTables = discover(problems);
            List<List<TableDescriptor>> stages = new ArrayList<>();
            List<TableDescriptor> current = sourceTables;
            for (int i = 0; i < transforms.size() && current != null; i++) {
                stages.add(current);
                ChangeTransform t = transforms.get(i);
                try {
                    current = Collections.unmodifiableList(new ArrayList<>(t.transformTables(current)));
                } catch (InletValidationException e) {
                    for (String p : e.problems()) {
                        problems.add("Transform #" + (i + 1) + " (" + t.name() + "): " + p);
                    }
                    current = null; // later stages cannot be checked without this one's output
                }
            }
            if (current != null) {
                checkSinks(current, problems, causes);
            }
            checkUids(problems);
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems, causes);
            }

            List<TableDescriptor> sinkTables = current;
            UidPrefixes uids = new UidPrefixes();
            return new Pipeline(
                    environment,
                    jobName,
                    sourceTables,
                    sinkTables,
                    () -> wire(environment, uids, sourceTables, stages, sinkTables),
                    plan(environment, uids, sourceTables, sinkTables),
                    source.followsSchemaChanges() && sinks.stream().anyMatch(ChangeSink::rebuildsForSchemaChanges));
        }

        /** The uid prefixes of the source, each transform and each sink: what the plan shows and the wiring sets. */
        private final class UidPrefixes {
            final String source = sourceUid != null ? sourceUid : "inlet-source-" + Builder.this.source.name();
            final List<String> transforms = prefixes(
                    "inlet-transform-",
                    Builder.this.transforms,
                    transformUids,
                    ChangeTransform::name,
                    Builder::definition);
            final List<String> sinks =
                    prefixes("inlet-sink-", Builder.this.sinks, sinkUids, ChangeSink::name, ChangeSink::uidSeed);
        }

        private String plan(
                StreamExecutionEnvironment environment,
                UidPrefixes uids,
                List<TableDescriptor> sourceTables,
                List<TableDescriptor> sinkTables) {
            StringBuilder b = new StringBuilder("Pipeline '").append(jobName).append("'\n");
            String sourcePrefix = uids.source;
            b.append("  source ")
                    .append(source)
                    .append("  (uid ")
                    .append(sourcePrefix)
                    .append(")\n");
            for (TableDescriptor t : sourceTables) {
                b.append("    ").append(t).append('\n');
            }
            List<String> transformPrefixes = uids.transforms;
            for (int i = 0; i < transforms.size(); i++) {
                b.append("  transform #")
                        .append(i + 1)
                        .append(' ')
                        .append(definition(transforms.get(i)))
                        .append("  (uid ")
                        .append(transformPrefixes.get(i))
                        .append(")\n");
            }
            List<String> sinkPrefixes = uids.sinks;
            for (int i = 0; i < sinks.size(); i++) {
                b.append("  sink ")
                        .append(sinks.get(i))
                        .append("  (uid ")
                        .append(sinkPrefixes.get(i))
                        .append(")\n");
                for (String line : sinks.get(i).describe(sinkTables)) {
                    b.append("    ").append(line).append('\n');
                }
            }
            CheckpointConfig cc = environment.getCheckpointConfig();
            b.append("  checkpoints every ")
                    .append(Duration.ofMillis(cc.getCheckpointInterval()))
                    .append(", parallelism ")
                    .append(environment.getParallelism())
                    .append('\n');
            return b.toString();
        }

        private StreamExecutionEnvironment resolveEnvironment() {
            if (env != null) {
                CheckpointConfig cc = env.getCheckpointConfig();
                if (checkpointInterval != null) {
                    if (cc.isCheckpointingEnabled() && cc.getCheckpointInterval() != checkpointInterval.toMillis()) {
                        LOG.warn(
                                "Pipeline '{}': checkpointInterval({}) overrides the checkpoint interval of {} ms"
                                        + " set on the environment.",
                                jobName,
                                checkpointInterval,
                                cc.getCheckpointInterval());
                    }
                    env.enableCheckpointing(checkpointInterval.toMillis());
                }
                return env;
            }
            StreamExecutionEnvironment created = StreamExecutionEnvironment.getExecutionEnvironment();
            CheckpointConfig cc = created.getCheckpointConfig();
            if (checkpointInterval != null) {
                if (cc.isCheckpointingEnabled() && cc.getCheckpointInterval() != checkpointInterval.toMillis()) {
                    LOG.warn(
                            "Pipeline '{}': checkpointInterval({}) overrides execution.checkpointing.interval = {} ms"
                                    + " of the cluster configuration.",
                            jobName,
                            checkpointInterval,
                            cc.getCheckpointInterval());
                }
                created.enableCheckpointing(checkpointInterval.toMillis());
            } else if (!cc.isCheckpointingEnabled()) {
                Duration d = CoreOptions.DEFAULT_CHECKPOINT_INTERVAL.defaultValue();
                LOG.info(
                        "Pipeline '{}': checkpointing was off in the environment; enabling it every {} because"
                                + " sinks commit on checkpoints. Set checkpointInterval(...) to choose.",
                        jobName,
                        d);
                created.enableCheckpointing(d.toMillis());
            }
            return created;
        }

        private void checkCheckpointing(StreamExecutionEnvironment environment, List<String> problems) {
            if (environment.getCheckpointConfig().isCheckpointingEnabled()) {
                warnOnJobManagerCheckpointStorage(environment);
                return;
            }
            List<String> committing = sinks.stream()
                    .filter(ChangeSink::requiresCheckpointing)
                    .map(ChangeSink::name)
                    .collect(Collectors.toList());
            if (!committing.isEmpty()) {
                problems.add("Checkpointing is off, but the sink(s) "
                        + committing
                        + " commit data only when a checkpoint completes: the job would run without error"
                        + " and never write a row. Fix: call env.enableCheckpointing(...) (or set"
                        + " 'execution.checkpointing.interval', e.g. 30 s), or call"
                        + " Pipeline.builder().checkpointInterval(Duration.ofSeconds(30)).");
            }
        }

        /**
         * Without a checkpoint directory Flink keeps checkpoints in the JobManager's memory, at most 5
         * MB per operator state: Hudi's key index and a source's split state pass that at around a
         * million keys, and then every checkpoint fails and nothing more is committed. A warning, not
         * an error: a managed service may set the directory on the cluster where the client cannot see it.
         */
        private void warnOnJobManagerCheckpointStorage(StreamExecutionEnvironment environment) {
            String warning = jobManagerCheckpointStorageWarning(environment);
            if (warning != null) {
                LOG.warn("Pipeline '{}': {}", jobName, warning);
            }
        }

        private List<TableDescriptor> discover(List<String> problems) {
            List<TableDescriptor> tables;
            try {
                tables = source.discoverTables();
            } catch (InletValidationException e) {
                List<String> all = new ArrayList<>(problems);
                e.problems().forEach(p -> all.add("Source '" + source.name() + "': " + p));
                throw new InletValidationException(all);
            }
            if (tables == null || tables.isEmpty()) {
                problems.add("Source '" + source.name() + "' captures no tables. Check its database and table"
                        + " options: they must match at least one existing table.");
                throw new InletValidationException(problems);
            }
            Set<Object> seen = new HashSet<>();
            for (TableDescriptor t : tables) {
                if (!seen.add(t.tableId())) {
                    problems.add("Source '" + source.name() + "' declares table " + t.tableId() + " twice.");
                }
            }
            return Collections.unmodifiableList(new ArrayList<>(tables));
        }

        /** Keeps what went wrong under a sink's problem (its catalog's exception), for the stack trace. */
        private static void addCause(InletValidationException e, List<Throwable> causes) {
            if (e.getCause() != null) {
                causes.add(e.getCause());
            }
            causes.addAll(java.util.Arrays.asList(e.getSuppressed()));
        }

        private void checkUids(List<String> problems) {
            Map<String, String> owner = new LinkedHashMap<>();
            if (sourceUid != null) {
                owner.put(sourceUid, "the source");
            }
            for (int i = 0; i < transforms.size(); i++) {
                claim(
                        owner,
                        transformUids.get(i),
                        "Transform #" + (i + 1) + " (" + transforms.get(i).name() + ")",
                        problems);
            }
            for (int i = 0; i < sinks.size(); i++) {
                claim(
                        owner,
                        sinkUids.get(i),
                        "Sink #" + (i + 1) + " (" + sinks.get(i).name() + ")",
                        problems);
            }
        }

        private static void claim(Map<String, String> owner, @Nullable String uid, String who, List<String> problems) {
            if (uid == null) {
                return;
            }
            String other = owner.putIfAbsent(uid, who);
            if (other != null) {
                problems.add(other + " and " + who + " both have the uid '" + uid
                        + "': a restored job could not tell their" + " state apart. Give each its own.");
            }
        }

        private void checkSinks(List<TableDescriptor> tables, List<String> problems, List<Throwable> causes) {
            Map<String, String> targetOwner = new LinkedHashMap<>();
            for (int i = 0; i < sinks.size(); i++) {
                ChangeSink sink = sinks.get(i);
                String label = "Sink #" + (i + 1) + " (" + sink.name() + ")";
                if (sink.requiresPrimaryKey()) {
                    for (TableDescriptor t : tables) {
                        if (!t.hasPrimaryKey()) {
                            problems.add(label
                                    + " writes upserts and deletes by primary key, but table "
                                    + t.tableId()
                                    + " has none. Fix: give the table a primary key in the source,"
                                    + " keep its key columns if a projection dropped them, route or filter"
                                    + " the table away from this sink, or use an append-only sink mode.");
                        }
                    }
                }
                try {
                    sink.validate(tables, source.followsSchemaChanges(), source.keepsDroppedColumns());
                } catch (InletValidationException e) {
                    e.problems().forEach(p -> problems.add(label + ": " + p));
                    addCause(e, causes);
                }
                List<String> targets;
                try {
                    targets = sink.targetTables(tables);
                } catch (InletValidationException e) {
                    e.problems().forEach(p -> problems.add(label + ": " + p));
                    addCause(e, causes);
                    continue;
                }
                for (String target : targets) {
                    String owner = targetOwner.putIfAbsent(target, label);
                    if (owner != null && !owner.equals(label)) {
                        problems.add(owner
                                + " and "
                                + label
                                + " both write the table "
                                + target
                                + ": their commits would conflict and each would overwrite the"
                                + " other's rows. Fix: point one of them at another table, catalog or"
                                + " warehouse, or route the tables apart.");
                    }
                }
            }
        }

        private void wire(
                StreamExecutionEnvironment environment,
                UidPrefixes uids,
                List<TableDescriptor> sourceTables,
                List<List<TableDescriptor>> stages,
                List<TableDescriptor> sinkTables) {
            String sourcePrefix = uids.source;
            List<String> transformPrefixes = uids.transforms;
            List<String> sinkPrefixes = uids.sinks;
            ChangeEventTypeInfo sourceType = ChangeEventTypeInfo.of(sourceTables);
            List<SnapshotSignals> signals = new ArrayList<>(1);
            DataStream<ChangeEvent> stream = source.createStream(environment, new SourceContext() {
                @Override
                public List<TableDescriptor> tables() {
                    return sourceTables;
                }

                @Override
                public ChangeEventTypeInfo typeInfo() {
                    return sourceType;
                }

                @Override
                public String uid(String part) {
                    return sourcePrefix + "-" + part;
                }

                @Override
                public void announceSnapshots(SnapshotSignals snapshotSignals) {
                    if (!signals.isEmpty()) {
                        throw new IllegalStateException(
                                "Source '" + source.name() + "' announced its snapshots twice.");
                    }
                    signals.add(snapshotSignals);
                }
            });
            checkType("Source '" + source.name() + "'", stream, sourceType);
            stream = stream.map(new ChangeEventMetrics(), sourceType)
                    .setParallelism(stream.getParallelism())
                    .name("Metrics: " + source.name())
                    .uid(sourcePrefix + "-metrics");

            for (int i = 0; i < transforms.size(); i++) {
                ChangeTransform t = transforms.get(i);
                List<TableDescriptor> in = stages.get(i);
                List<TableDescriptor> out = i + 1 < stages.size() ? stages.get(i + 1) : sinkTables;
                ChangeEventTypeInfo outType = ChangeEventTypeInfo.of(out);
                String prefix = transformPrefixes.get(i);
                stream = t.apply(stream, new TransformContext() {
                    @Override
                    public List<TableDescriptor> inputTables() {
                        return in;
                    }

                    @Override
                    public List<TableDescriptor> outputTables() {
                        return out;
                    }

                    @Override
                    public ChangeEventTypeInfo outputTypeInfo() {
                        return outType;
                    }

                    @Override
                    public String uid(String part) {
                        return prefix + "-" + part;
                    }
                });
                checkType("Transform #" + (i + 1) + " (" + t.name() + ")", stream, outType);
            }

            for (int i = 0; i < sinks.size(); i++) {
                ChangeSink sink = sinks.get(i);
                String prefix = sinkPrefixes.get(i);
                boolean repeats = source.mayRepeatChanges();
                boolean followed = source.followsSchemaChanges();
                boolean kept = source.keepsDroppedColumns();
                sink.addSink(stream, new SinkContext() {
                    @Override
                    public List<TableDescriptor> tables() {
                        return sinkTables;
                    }

                    @Override
                    public String uid(String part) {
                        return prefix + "-" + part;
                    }

                    @Override
                    public boolean changesMayRepeat() {
                        return repeats;
                    }

                    @Override
                    public boolean schemaChangesFollowed() {
                        return followed;
                    }

                    @Override
                    public boolean droppedColumnsKept() {
                        return kept;
                    }

                    @Override
                    public Optional<SnapshotSignals> snapshotSignals() {
                        return signals.stream().findFirst();
                    }
                });
            }
        }

        /**
         * The uid prefix of each element: the user's, else {@code <kind><name>-<hash of its seed>}; a
         * second element with the same default gets {@code -2}, and so on.
         */
        private static <T> List<String> prefixes(
                String kind, List<T> elements, List<String> given, Function<T, String> name, Function<T, String> seed) {
            List<String> out = new ArrayList<>();
            Set<String> used = new HashSet<>();
            for (int i = 0; i < elements.size(); i++) {
                if (given.get(i) != null) {
                    used.add(given.get(i));
                }
            }
            for (int i = 0; i < elements.size(); i++) {
                String uid = given.get(i);
                if (uid == null) {
                    String base = kind + name.apply(elements.get(i)) + "-" + shortHash(seed.apply(elements.get(i)));
                    uid = base;
                    for (int n = 2; used.contains(uid); n++) {
                        uid = base + "-" + n;
                    }
                }
                used.add(uid);
                out.add(uid);
            }
            return out;
        }

        /** What a transform does, as its toString says; its class where toString is Object's (an identity hash). */
        private static String definition(ChangeTransform t) {
            try {
                if (t.getClass().getMethod("toString").getDeclaringClass() == Object.class) {
                    return t.getClass().getName();
                }
            } catch (NoSuchMethodException e) {
                return t.getClass().getName();
            }
            return t.toString();
        }

        /** Eight hex digits of a SHA-256: stable across JVMs and versions, unlike String.hashCode. */
        private static String shortHash(String text) {
            try {
                byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
                return String.format("%02x%02x%02x%02x", d[0], d[1], d[2], d[3]);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        private static void checkType(String who, DataStream<ChangeEvent> stream, ChangeEventTypeInfo expected) {
            if (!expected.equals(stream.getType())) {
                throw new IllegalStateException(who
                        + " produced a stream of type "
                        + stream.getType()
                        + " instead of "
                        + expected
                        + ". Give the type explicitly, e.g. map(fn, context.typeInfo()), so that events are"
                        + " serialized by Inlet's serializer and never by Kryo.");
            }
        }
    }
}
