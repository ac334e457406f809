package io.ringflow.samples.cli;

import io.ringflow.samples.pageview.PageViewCount;
import io.ringflow.state.checkpoint.CheckpointCatalog;
import io.ringflow.state.inspect.CheckpointInspector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
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
        "2:invalid command line, or CHECKPOINT is not a checkpoint (of the page-view",
        "  sample, with --conservation)",
        "3:with --conservation: the views emitted differ from those counted and in flight"
    })
public final class VerifyCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "CHECKPOINT", description = "A chk-<n> folder or its _metadata file.")
    private Path checkpoint;

    @Option(names = "--conservation", description = {
        "For a checkpoint of the page-view sample: check that every view the sources",
        "had emitted at the cut is either counted in the keyed state or stored as an",
        "in-flight record of the count operator (unaligned checkpoints)."})
    private boolean conservation;

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
            return conservation ? conservation(out, err, report) : 0;
        }
        for (final String problem : report.problems())
        {
            out.println("  problem: " + problem);
        }
        out.println("DAMAGED: " + report.problems().size() + " problem" + (report.problems().size() == 1 ? "" : "s") +
            "; do not restore from it");
        return 1;
    }

    /**
     * The seeds' law on a page-view checkpoint: views emitted at the cut = views counted + views in flight. Every
     * checkpoint of the sample, aligned, unaligned or at-least-once at parallelism 1 with one input, must satisfy
     * it; a lost or duplicated record, or a dropped channel state, breaks it.
     */
    private static int conservation(final PrintWriter out, final PrintWriter err,
        final CheckpointCatalog.Report report)
    {
        final List<CheckpointInspector.OperatorView> operators;
        try
        {
            operators = CheckpointInspector.inspect(report, null, null, Integer.MAX_VALUE,
                VerifyCommand.class.getClassLoader());
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("ringflow verify: cannot read chk-" + report.checkpointId() + ": " + ex.getMessage());
            return 1;
        }
        long emitted = -1;
        long counted = -1;
        long inFlight = 0;
        for (final CheckpointInspector.OperatorView operator : operators)
        {
            if (PageViewCount.SOURCE_UID.equals(operator.uid()))
            {
                emitted = operator.sourcePositions().stream().mapToLong(Long::longValue).sum();
            }
            if (PageViewCount.COUNT_UID.equals(operator.uid()))
            {
                counted = 0;
                for (final CheckpointInspector.SubtaskView subtask : operator.subtasks())
                {
                    for (final CheckpointInspector.KeyedStateView state : subtask.keyed())
                    {
                        if (PageViewCount.COUNT_STATE.equals(state.meta().name()))
                        {
                            for (final CheckpointInspector.Entry entry : state.samples())
                            {
                                counted += Long.parseLong(entry.value());
                            }
                        }
                    }
                    for (final CheckpointInspector.ChannelView channel : subtask.channels())
                    {
                        inFlight += channel.records();
                    }
                }
            }
        }
        if (emitted < 0)
        {
            err.println("ringflow verify: --conservation needs a page-view checkpoint: no source '" +
                PageViewCount.SOURCE_UID + "' in chk-" + report.checkpointId());
            return 2;
        }
        if (counted < 0)
        {
            counted = 0; // a checkpoint cut before the count operator held any state
        }
        out.printf("conservation: %,d views emitted by the sources = %,d counted + %,d in flight: %s%n", emitted,
            counted, inFlight, emitted == counted + inFlight ? "holds" :
                "BROKEN (" + String.format("%+,d", counted + inFlight - emitted) + ")");
        return emitted == counted + inFlight ? 0 : 3;
    }
}
