package io.ringflow.samples.cli;

import io.ringflow.state.checkpoint.CheckpointCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * {@code ringflow verify <chk>}: checks one checkpoint or savepoint, its metadata and every file it references.
 * Reads only; changes nothing on disk.
 */
@Command(
    name = "verify",
    header = "Checks a checkpoint or savepoint: its metadata and every state file it references.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Checks the checkpoint's _metadata (magic, format version, CRC32C, the id it",
        "names) and every state file it references, in its folder or, for incremental",
        "chains, in the directory's shared/ folder: present, with the length and",
        "CRC32C the metadata records. Prints each problem with the file it is in.",
        "Nothing is written.",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:intact: it can be restored from",
        "1:damaged or incomplete: each problem is printed",
        "2:invalid command line, or CHECKPOINT is not a checkpoint"
    })
public final class VerifyCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "CHECKPOINT", description = "A chk-<n> folder or its _metadata file.")
    private Path checkpoint;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final CheckpointCatalog.Report report;
        try
        {
            report = CheckpointCatalog.verify(checkpoint);
        }
        catch (final NoSuchFileException ex)
        {
            err.println("ringflow verify: no such checkpoint: " + checkpoint);
            return 2;
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("ringflow verify: " + ex.getMessage());
            return 2;
        }
        catch (final IOException ex)
        {
            err.println("ringflow verify: cannot read " + checkpoint + ": " + ex);
            return 2;
        }
        out.println("chk-" + report.checkpointId() + " (" + report.folder() + ")");
        if (report.metadata() != null)
        {
            out.println("  kind:        " + (report.savepoint() ? "savepoint" : "checkpoint"));
            out.println("  triggered:   " +
                CheckpointsCommand.TIME.format(Instant.ofEpochMilli(report.metadata().triggerMillis())) + " UTC");
            out.println("  operators:   " + report.metadata().operators().size() + " with state, " +
                report.metadata().sourcePositions().size() + " sources");
            out.printf("  state files: %,d, %,d bytes%n", report.stateFiles(), report.stateBytes());
            out.println("  keyed state: " + CheckpointsCommand.keyed(report));
        }
        if (report.intact())
        {
            out.println("intact");
            return 0;
        }
        for (final String problem : report.problems())
        {
            out.println("  problem: " + problem);
        }
        out.println("DAMAGED: " + report.problems().size() + " problem" + (report.problems().size() == 1 ? "" : "s") +
            "; do not restore from it");
        return 1;
    }
}
