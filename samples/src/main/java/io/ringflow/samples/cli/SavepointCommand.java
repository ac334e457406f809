package io.ringflow.samples.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import javax.management.MBeanException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ringflow savepoint JOB} and {@code ringflow stop JOB}: a savepoint of a job running in another JVM of this
 * user, and for {@code stop} the job's end after it, through the job's {@code JobMXBean}.
 */
@Command(
    name = "savepoint",
    header = "Takes a savepoint of a job running in another JVM on this machine.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Finds the job as 'ringflow jobs' does and takes a savepoint through its",
        "JobMXBean; prints the savepoint once it is complete. With 'stop', the job",
        "then stops (it ends CANCELED; restore the savepoint to resume exactly there).",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:the savepoint completed",
        "1:the savepoint was refused or failed: the reason is printed",
        "2:invalid command line, or no job (or several) of that name"
    })
public class SavepointCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "JOB", description = "The job's name, as 'ringflow jobs' shows it.")
    private String jobName;

    @Option(names = "--pid", paramLabel = "PID", defaultValue = "0",
        showDefaultValue = picocli.CommandLine.Help.Visibility.NEVER,
        description = "Only the job in this JVM, when several JVMs run a job of that name.")
    private long pid;

    /** @return the operation to invoke. */
    String operation()
    {
        return "triggerSavepoint";
    }

    @Override
    public Integer call() throws Exception
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String command = spec.name();
        try (LocalJobs found = LocalJobs.find())
        {
            final List<LocalJobs.Job> jobs = found.named(jobName, pid);
            if (jobs.isEmpty())
            {
                err.println("ringflow " + command + ": no running job named '" + jobName + "'" +
                    (pid == 0 ? "" : " in JVM " + pid) + " among this user's JVMs; see 'ringflow jobs'");
                return 2;
            }
            if (jobs.size() > 1)
            {
                err.println("ringflow " + command + ": " + jobs.size() + " running jobs are named '" + jobName +
                    "' (JVMs " + jobs.stream().map(job -> String.valueOf(job.pid())).distinct().toList() +
                    "): give --pid");
                return 2;
            }
            try
            {
                out.println(jobs.get(0).invoke(operation()));
                return 0;
            }
            catch (final MBeanException ex)
            {
                err.println("ringflow " + command + ": '" + jobName + "' refused or failed: " +
                    (ex.getCause() == null ? ex.getMessage() : ex.getCause().getMessage()));
                return 1;
            }
        }
    }

    /** {@code ringflow stop JOB}. */
    @Command(
        name = "stop",
        header = "Stops a job running in another JVM on this machine with a savepoint.",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        usageHelpAutoWidth = true,
        description = {
            "Finds the job as 'ringflow jobs' does, takes a savepoint through its JobMXBean",
            "and stops the job once it is durable (the job ends CANCELED; restore the",
            "savepoint with -s to resume exactly there). If the savepoint fails, the job",
            "keeps running.",
            ""
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the savepoint completed and the job stops",
            "1:the savepoint was refused or failed (the job keeps running): the reason is printed",
            "2:invalid command line, or no job (or several) of that name"
        })
    public static final class StopCommand extends SavepointCommand
    {
        @Override
        String operation()
        {
            return "stopWithSavepoint";
        }
    }
}
