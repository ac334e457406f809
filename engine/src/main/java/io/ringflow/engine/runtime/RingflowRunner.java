package io.ringflow.engine.runtime;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobRunner;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.runtime.deploy.Deployer;
import io.ringflow.engine.runtime.recovery.RestoreSpec;
import io.ringflow.state.checkpoint.CheckpointCatalog;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.codec.CodecRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Ringflow's own runtime as a {@link JobRunner}: resolves the graph, reads the checkpoint to restore from, deploys
 * the job on threads and rings and starts it. Registered in the engine jar's {@code META-INF/services}, so
 * {@code JobEnvironment.create(...)} finds it.
 */
public final class RingflowRunner implements JobRunner
{
    private static final System.Logger LOG = System.getLogger(RingflowRunner.class.getName());

    @Override
    public JobHandle run(final String jobName, final StreamGraph graph, final JobConfig config,
        final CodecRegistry codecs)
    {
        final CheckpointStorage storage = config.checkpointing() != null ? config.checkpointing().storage() :
            new InMemoryCheckpointStorage();
        final RestoreSpec restore = config.restoreFrom() != null ?
            loadRestorePoint(config.restoreFrom(), config.allowNonRestoredState(), false) :
            config.resumeFrom() != null ? loadRestorePoint(config.resumeFrom(), config.allowNonRestoredState(), true) :
            null;
        final JobRun run = new JobRun(jobName, graph, new Deployer(jobName, config, codecs), storage, restore,
            config.restartStrategy(), config.checkpointing() != null && !config.checkpointing().retainOnCancel());
        run.start();
        return run;
    }

    /**
     * Reads and checks the checkpoint to start from; any problem fails the submission, naming the file.
     *
     * @param given  a {@code chk-<n>} folder, its {@code _metadata} file, or a checkpoint directory.
     * @param resume whether {@code given} is a directory to resume from: no intact checkpoint there means start
     *               from scratch (null) rather than fail.
     */
    private static RestoreSpec loadRestorePoint(final Path given, final boolean allowNonRestoredState,
        final boolean resume)
    {
        final String givenName = String.valueOf(given.getFileName());
        if (resume || Files.isDirectory(given) && !givenName.startsWith("chk-") &&
            !Files.exists(given.resolve(DirectoryCheckpointStorage.METADATA)))
        {
            final Optional<CheckpointCatalog.Report> newest;
            try
            {
                newest = CheckpointCatalog.newestIntact(given, skipped -> LOG.log(System.Logger.Level.WARNING,
                    "skipping checkpoint " + skipped.folder() + ": " + String.join("; ", skipped.problems())));
            }
            catch (final IOException ex)
            {
                throw new InvalidJobException("cannot look for checkpoints in " + given + ": " + ex, ex);
            }
            if (newest.isEmpty())
            {
                if (resume)
                {
                    LOG.log(System.Logger.Level.INFO, "no intact checkpoint in " + given + ": starting from scratch");
                    return null;
                }
                throw new InvalidJobException("cannot restore from " + given + ": it holds no intact checkpoint " +
                    "(chk-<n> folder with a valid " + DirectoryCheckpointStorage.METADATA + ")");
            }
            final CheckpointCatalog.Report found = newest.get();
            LOG.log(System.Logger.Level.INFO, "resuming from " + found.folder() + ", the newest intact " +
                "checkpoint in " + given);
            try
            {
                // its metadata and every state file were just read through their checksums: not read again here,
                // and the restore opens the files checking their lengths only (stateFilesVerified)
                return new RestoreSpec(found.metadata(),
                    new DirectoryCheckpointStorage(found.folder().toAbsolutePath().getParent()), allowNonRestoredState,
                    true);
            }
            catch (final IOException ex)
            {
                throw new InvalidJobException("cannot restore from " + found.folder() + ": " + ex.getMessage(), ex);
            }
        }
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
            return new RestoreSpec(storage.loadVerified(id), storage, allowNonRestoredState, true);
        }
        catch (final IOException | CorruptCheckpointException ex)
        {
            throw new InvalidJobException("cannot restore from " + folder + ": " + ex.getMessage(), ex);
        }
    }
}
