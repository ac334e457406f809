package io.ringflow.engine.runtime;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobRunner;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.runtime.deploy.Deployer;
import io.ringflow.engine.runtime.recovery.RestoreSpec;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.codec.CodecRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Ringflow's own runtime as a {@link JobRunner}: resolves the graph, reads the checkpoint to restore from, deploys
 * the job on threads and rings and starts it. Registered in the engine jar's {@code META-INF/services}, so
 * {@code JobEnvironment.create(...)} finds it.
 */
public final class RingflowRunner implements JobRunner
{
    @Override
    public JobHandle run(final String jobName, final StreamGraph graph, final JobConfig config,
        final CodecRegistry codecs)
    {
        final CheckpointStorage storage = config.checkpointing() != null ? config.checkpointing().storage() :
            new InMemoryCheckpointStorage();
        final RestoreSpec restore = config.restoreFrom() == null ? null :
            loadRestorePoint(config.restoreFrom(), config.allowNonRestoredState());
        final JobRun run = new JobRun(jobName, graph, new Deployer(jobName, config, codecs), storage, restore,
            config.restartStrategy(), config.checkpointing() != null && !config.checkpointing().retainOnCancel());
        run.start();
        return run;
    }

    /** Reads and checks the checkpoint to start from; any problem fails the submission, naming the file. */
    private static RestoreSpec loadRestorePoint(final Path given, final boolean allowNonRestoredState)
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
            return new RestoreSpec(storage.loadVerified(id), storage, allowNonRestoredState);
        }
        catch (final IOException | CorruptCheckpointException ex)
        {
            throw new InvalidJobException("cannot restore from " + folder + ": " + ex.getMessage(), ex);
        }
    }
}
