package io.ringflow.samples.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code ringflow jobs}: the Ringflow jobs running in this user's other JVMs on this machine. */
@Command(
    name = "jobs",
    header = "Lists the Ringflow jobs running in this user's other JVMs on this machine.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Finds every JVM of this user through the JDK's attach API, connects to its",
        "local JMX agent (loopback only; started if the JVM has none) and lists the",
        "jobs it runs: process id, job, status, restarts, checkpoints completed, the",
        "newest one, and the fill of the fullest ring (back-pressure).",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:listed (possibly none)", "2:invalid command line"})
public final class JobsCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws Exception
    {
        final PrintWriter out = spec.commandLine().getOut();
        try (LocalJobs found = LocalJobs.find())
        {
            final List<LocalJobs.Job> jobs = found.all();
            if (jobs.isEmpty())
            {
                out.println("no running Ringflow jobs in this user's JVMs");
                return 0;
            }
            out.printf("%-8s %-24s %-10s %8s %11s %10s  %s%n", "pid", "job", "status", "restarts", "checkpoints",
                "ring fill", "newest checkpoint");
            for (final LocalJobs.Job job : jobs)
            {
                out.printf("%-8d %-24s %-10s %8s %11s %9.0f%%  %s%n", job.pid(), job.attribute("JobName"),
                    job.attribute("Status"), job.attribute("RestartCount"), job.attribute("CompletedCheckpoints"),
                    100 * (Double)job.attribute("MaxRingFill"), job.attribute("LastCheckpointSummary"));
            }
            return 0;
        }
    }
}
