package io.ringflow.engine.api;

import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.runtime.Deployer;
import io.ringflow.engine.runtime.JobRun;
import io.ringflow.engine.runtime.RestoreSpec;
import io.ringflow.engine.runtime.operators.SourceOperator;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

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
    private final JobConfig config;
    private final StreamGraph graph = new StreamGraph();
    private final CodecRegistry codecs = CodecRegistry.withBuiltIns();
    private boolean executed;

    private JobEnvironment(final JobConfig config)
    {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** @return an environment with the default settings. */
    public static JobEnvironment create()
    {
        return new JobEnvironment(JobConfig.defaults());
    }

    /**
     * @param config the job's settings.
     * @return an environment with those settings.
     */
    public static JobEnvironment create(final JobConfig config)
    {
        return new JobEnvironment(config);
    }

    /** @return the job's settings. */
    public JobConfig config()
    {
        return config;
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
        Objects.requireNonNull(source, "source");
        final StreamNode node = graph.addNode(NodeKind.SOURCE, name, subtask -> new SourceOperator(source));
        StreamGraph.setOutputType(node, source.producedType());
        StreamGraph.setMaxSourceParallelism(node, source.maxParallelism());
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
        if (executed)
        {
            throw new IllegalStateException("this environment has already been executed; create a new one per job");
        }
        final CheckpointStorage storage = config.checkpointing() != null ? config.checkpointing().storage() :
            new InMemoryCheckpointStorage();
        final RestoreSpec restore = config.restoreFrom() == null ? null : loadRestorePoint(config.restoreFrom());
        final JobRun run = new Deployer(jobName, config, codecs).run(graph, storage, restore);
        executed = true;
        return run;
    }

    /** Reads and checks the checkpoint to start from; any problem fails the submission, naming the file. */
    private RestoreSpec loadRestorePoint(final Path given)
    {
        // a checkpoint is named by its folder or, as in Flink's "run -s .../chk-50/_metadata", by its metadata file
        final Path folder = DirectoryCheckpointStorage.METADATA.equals(String.valueOf(given.getFileName())) &&
            given.toAbsolutePath().getParent() != null ? given.toAbsolutePath().getParent() : given;
        final String name = folder.getFileName() == null ? "" : folder.getFileName().toString();
        final long id;
        try
        {
            id = Long.parseLong(name.substring(name.indexOf('-') + 1));
            if (!name.startsWith("chk-"))
            {
                throw new NumberFormatException();
            }
        }
        catch (final RuntimeException ex)
        {
            throw new InvalidJobException("restoreFrom must name a checkpoint folder chk-<n> or its " +
                DirectoryCheckpointStorage.METADATA + " file, was " + given);
        }
        if (!Files.isRegularFile(folder.resolve(DirectoryCheckpointStorage.METADATA)))
        {
            throw new InvalidJobException("cannot restore from " + folder + ": it has no " +
                DirectoryCheckpointStorage.METADATA + " file (not a completed checkpoint)");
        }
        try
        {
            final DirectoryCheckpointStorage storage =
                new DirectoryCheckpointStorage(folder.toAbsolutePath().getParent());
            return new RestoreSpec(storage.loadVerified(id), storage, config.allowNonRestoredState());
        }
        catch (final IOException | CorruptCheckpointException ex)
        {
            throw new InvalidJobException("cannot restore from " + folder + ": " + ex.getMessage(), ex);
        }
    }

    StreamGraph graph()
    {
        return graph;
    }
}
