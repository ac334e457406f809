package io.ringflow.samples.cli;

import io.ringflow.samples.pageview.OutputManifest;
import io.ringflow.samples.pageview.OutputVerifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code ringflow verify-output DIR}: checks the exactly-once output of {@code page-view --output DIR} against the
 * views the run generated. Reads only.
 */
@Command(
    name = "verify-output",
    header = "Checks the exactly-once output of page-view --output DIR against the views generated.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Reads the committed part files of DIR (never the hidden in-progress or pending",
        "ones) in commit order and checks that every app's updates are its counts",
        "1, 2, ..., n in order, n being the views the run generated for it (recomputed",
        "from DIR's " + OutputManifest.FILE + "). Reports counts written twice",
        "(duplicates) and counts never written (lost). Nothing is written.",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:exactly once: every update once, in order, none missing",
        "  (with --allow-duplicates: none missing)",
        "1:updates lost or written twice; each wrong app is printed (up to 20)",
        "2:invalid command line, or DIR is not page-view output"
    })
public final class VerifyOutputCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "DIR", description = "The directory given to page-view --output.")
    private Path directory;

    @Option(names = "--allow-duplicates", description = {
        "Accept updates written twice (a run in at-least-once mode); still fail when",
        "any is missing."})
    private boolean allowDuplicates;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(directory))
        {
            err.println("ringflow verify-output: no such directory: " + directory);
            return 2;
        }
        final OutputManifest manifest;
        try
        {
            manifest = OutputManifest.read(directory);
        }
        catch (final NoSuchFileException ex)
        {
            err.println("ringflow verify-output: " + directory + " has no " + OutputManifest.FILE +
                ": not the output of page-view --output");
            return 2;
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            err.println("ringflow verify-output: " + ex.getMessage());
            return 2;
        }
        try
        {
            return print(OutputVerifier.verify(directory, manifest), directory, allowDuplicates, out, err) ? 0 : 1;
        }
        catch (final IOException ex)
        {
            err.println("ringflow verify-output: cannot read " + directory + ": " + ex.getMessage());
            return 1;
        }
    }

    /**
     * Prints a report.
     *
     * @param report          the outcome.
     * @param directory       what was checked.
     * @param allowDuplicates whether duplicates pass (at-least-once).
     * @param out             where the summary goes.
     * @param err             where problems go.
     * @return whether the output passes.
     */
    static boolean print(final OutputVerifier.Report report, final Path directory, final boolean allowDuplicates,
        final PrintWriter out, final PrintWriter err)
    {
        out.printf(Locale.ROOT, "output %s: %,d committed parts, %,d updates; %,d views generated%n", directory,
            report.parts(), report.updates(), report.expected());
        if (report.exactlyOnce())
        {
            out.println("exactly once: every app's counts 1..n in order, none missing, none twice");
            return true;
        }
        if (allowDuplicates && report.nothingLost())
        {
            out.printf(Locale.ROOT, "at least once: none missing; %,d updates written twice%n", report.duplicates());
            return true;
        }
        err.printf(Locale.ROOT, "ringflow: output FAILED: %,d updates lost, %,d written twice, %,d for unknown apps; " +
            "%,d app(s) wrong:%n", report.lost(), report.duplicates(), report.unknownApps(), report.wrongApps());
        report.mismatches().forEach(line -> err.println("  " + line));
        if (report.wrongApps() > report.mismatches().size())
        {
            err.printf(Locale.ROOT, "  ... and %,d more%n", report.wrongApps() - report.mismatches().size());
        }
        return false;
    }
}
