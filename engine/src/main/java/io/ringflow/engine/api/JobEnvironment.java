package io.ringflow.engine.api;

import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;

import java.time.Duration;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Where a job is described and started, like Flink's {@code StreamExecutionEnvironment}:
 *
 * <pre>{@code
 * JobEnvironment env = JobEnvironment.create();
 * env.fromSource(source, "page-views")
 *    .keyBy(PageView::appId)
 *    .process(CountPerApp::new).name("count")
 *    .sinkTo(new PrintSink<>());
 * JobHandle job = env.execute("page-view-count");
 * }</pre>
 *
 * <p>Not thread-safe: describe the job from one thread. Each {@link #execute} starts one independent run of the graph
 * described so far; the environment should not be changed afterwards.
 */
public final class JobEnvironment
{
    private JobConfig config;
    private final JobRunner runner;
    private final StreamGraph graph = new StreamGraph();
    private final CodecRegistry codecs = CodecRegistry.withBuiltIns();
    private boolean executed;

    private JobEnvironment(final JobConfig config, final JobRunner runner)
    {
        this.config = Objects.requireNonNull(config, "config");
        this.runner = Objects.requireNonNull(runner, "runner");
    }

    /** @return an environment with the default settings, run by Ringflow's runtime. */
    public static JobEnvironment create()
    {
        return create(JobConfig.defaults());
    }

    /**
     * @param config the job's settings.
     * @return an environment with those settings, run by Ringflow's runtime.
     */
    public static JobEnvironment create(final JobConfig config)
    {
        return new JobEnvironment(config, DefaultRunner.INSTANCE);
    }

    /**
     * @param config the job's settings.
     * @param runner what runs the job (Ringflow's runtime is the default).
     * @return an environment with those settings and that runner.
     */
    public static JobEnvironment create(final JobConfig config, final JobRunner runner)
    {
        return new JobEnvironment(config, runner);
    }

    /** The runner on the class path, found once: Ringflow's runtime, registered by the engine jar. */
    private static final class DefaultRunner
    {
        static final JobRunner INSTANCE = ServiceLoader.load(JobRunner.class, JobRunner.class.getClassLoader())
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no JobRunner on the class path: the engine jar registers " +
                "Ringflow's runtime in META-INF/services/" + JobRunner.class.getName() + "; was it repackaged " +
                "without its service files?"));

        private DefaultRunner()
        {
        }
    }

    /** @return the job's settings. */
    public JobConfig config()
    {
        return config;
    }

    /**
     * Takes checkpoints every {@code interval}, exactly once, aligned, kept in memory: a shortcut for
     * {@code JobConfig.checkpointing(CheckpointConfig.every(interval).build())}, as Flink's
     * {@code env.enableCheckpointing(interval)}. For the other options build a {@link CheckpointConfig}.
     *
     * @param interval time between two checkpoints.
     * @return this environment.
     * @throws IllegalArgumentException when the interval is not positive.
     */
    public JobEnvironment enableCheckpointing(final Duration interval)
    {
        return enableCheckpointing(interval, CheckpointingMode.EXACTLY_ONCE);
    }

    /**
     * @param interval time between two checkpoints.
     * @param mode     exactly once (aligned barriers) or at least once.
     * @return this environment.
     * @throws IllegalArgumentException when the interval is not positive.
     */
    public JobEnvironment enableCheckpointing(final Duration interval, final CheckpointingMode mode)
    {
        checkNotExecuted();
        config = config.toBuilder().checkpointing(CheckpointConfig.every(interval).build()).checkpointingMode(mode)
            .build();
        return this;
    }

    /**
     * Registers the codec of a type whose records cross a channel. Built-ins cover primitives, String, byte[],
     * enums and Java records (derived once, at submission).
     *
     * @param type  the type.
     * @param codec its codec.
     * @param <T>   the type.
     * @return this environment.
     */
    public <T> JobEnvironment registerCodec(final Class<T> type, final Codec<T> codec)
    {
        codecs.register(type, codec);
        return this;
    }

    /**
     * @param source the source.
     * @param name   the operator's name (and default uid).
     * @param <T>    the record type.
     * @return the source's stream.
     */
    public <T> DataStream<T> fromSource(final Source<T> source, final String name)
    {
        final StreamNode node = graph.addNode(new Descriptions.SourceOp(source), name);
        return new DataStream<>(this, node);
    }

    /**
     * Validates the graph, wires it and starts its threads. Returns at once.
     *
     * @param jobName the job's name; used in thread names.
     * @return the running job.
     * @throws InvalidJobException when the graph cannot run; no thread has started then.
     */
    public JobHandle execute(final String jobName)
    {
        if (jobName == null || jobName.isBlank())
        {
            throw new IllegalArgumentException("job name must not be blank");
        }
        checkNotExecuted();
        final JobHandle handle = runner.run(jobName, graph, config, codecs);
        executed = true;
        return handle;
    }

    private void checkNotExecuted()
    {
        if (executed)
        {
            throw new IllegalStateException("this environment has already been executed; create a new one per job");
        }
    }

    StreamGraph graph()
    {
        return graph;
    }
}
