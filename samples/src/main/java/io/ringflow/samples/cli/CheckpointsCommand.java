package io.ringflow.samples.cli;

import io.ringflow.state.checkpoint.CheckpointCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code ringflow checkpoints <dir>}: every checkpoint and savepoint folder of a checkpoint directory, verified, and
 * the newest intact one. Reads only; changes nothing on disk.
 */
@Command(
    name = "checkpoints",
    header = "Lists the checkpoints and savepoints of a directory, verified, and the newest intact one.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Lists every chk-<n> folder of a checkpoint directory (the one given to",
        "--checkpoint-dir or CheckpointConfig.directory), oldest first: its id, whether",
        "it is a checkpoint or a savepoint, when it was triggered (UTC), how many state",
        "files it references and their size, whether its keyed state is full or an",
        "incremental chain (and its length), and whether it is intact: its _metadata and",
        "every file it references present, with the length and CRC32C the metadata",
        "records. A folder that is not intact says why. Nothing is written.",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:at least one checkpoint is intact",
        "1:no intact checkpoint (none at all, or every one damaged)",
        "2:invalid command line, or DIR is not a directory"
    })
public final class CheckpointsCommand implements Callable<Integer>
{
    static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "DIR", description = "The checkpoint directory.")
    private Path directory;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final List<CheckpointCatalog.Report> reports;
        try
        {
            reports = CheckpointCatalog.list(directory);
        }
        catch (final NoSuchFileException ex)
        {
            err.println("ringflow checkpoints: no such directory: " + directory);
            return 2;
        }
        catch (final NotDirectoryException ex)
        {
            err.println("ringflow checkpoints: not a directory: " + directory);
            return 2;
        }
        catch (final IOException ex)
        {
            err.println("ringflow checkpoints: cannot read " + directory + ": " + ex);
            return 2;
        }
        if (reports.isEmpty())
        {
            out.println("no checkpoints in " + directory.toAbsolutePath());
            return 1;
        }
        out.printf("%-12s %-10s %-23s %6s %14s  %-16s %s%n", "checkpoint", "kind", "triggered (UTC)", "files",
            "state bytes", "keyed state", "status");
        for (final CheckpointCatalog.Report report : reports)
        {
            out.printf("%-12s %-10s %-23s %6s %14s  %-16s %s%n",
                "chk-" + report.checkpointId(),
                report.metadata() == null ? "?" : report.savepoint() ? "savepoint" : "checkpoint",
                report.metadata() == null ? "?" : TIME.format(Instant.ofEpochMilli(report.metadata().triggerMillis())),
                report.metadata() == null ? "?" : String.format("%,d", report.stateFiles()),
                report.metadata() == null ? "?" : String.format("%,d", report.stateBytes()),
                keyed(report),
                report.intact() ? "intact" : "DAMAGED: " + report.problems().get(0) +
                    (report.problems().size() > 1 ? " (and " + (report.problems().size() - 1) + " more)" : ""));
        }
        final Optional<CheckpointCatalog.Report> newest = CheckpointCatalog.newestIntact(reports);
        if (newest.isEmpty())
        {
            out.println("no intact checkpoint in " + directory.toAbsolutePath());
            return 1;
        }
        out.println("newest intact: " + newest.get().folder());
        return 0;
    }

    static String keyed(final CheckpointCatalog.Report report)
    {
        if (report.metadata() == null)
        {
            return "?";
        }
        final int chain = report.longestKeyedChain();
        return chain == 0 ? "none" : chain == 1 ? "full" : "incremental (" + chain + ")";
    }
}
