package io.ringflow.samples.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.util.concurrent.Callable;

/**
 * The {@code ringflow} command line: runs the sample jobs, lists and verifies checkpoints. Run the shaded jar
 * ({@code java -jar samples/target/ringflow-samples.jar page-view}); its manifest carries the JVM's Add-Opens and
 * Add-Exports, so no JVM flags are needed.
 */
@Command(
    name = "ringflow",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    subcommands = {PageViewCommand.class, KafkaPageViewCommand.class, WindowedPageViewCommand.class,
        CheckpointsCommand.class, VerifyCommand.class, VerifyOutputCommand.class,
        InspectCommand.class,
        JobsCommand.class, SavepointCommand.class, SavepointCommand.StopCommand.class,
        CommandLine.HelpCommand.class},
    description = {
        "Runs Ringflow sample jobs in this JVM: operators on their own threads,",
        "joined by Disruptor rings; lists and verifies checkpoints on disk.",
        ""
    },
    footerHeading = "%nExamples:%n",
    footer = {
        "  java -jar samples/target/ringflow-samples.jar page-view",
        "      50,000,000 views of 1,000 apps, as fast as possible; verifies the totals",
        "  java -jar samples/target/ringflow-samples.jar page-view \\",
        "      --events 0 --rate 1M --seconds 30 -p 2",
        "      1,000,000 views/s on two pipelines for 30 s, then verifies the totals",
        "  java -jar samples/target/ringflow-samples.jar checkpoints /var/tmp/pv",
        "      the checkpoints under /var/tmp/pv, verified, and the newest intact one",
        "  java -jar samples/target/ringflow-samples.jar verify /var/tmp/pv/chk-42",
        "      checks one checkpoint's metadata and every file it references",
        "  java -jar samples/target/ringflow-samples.jar help page-view",
        "      all options of page-view"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success",
        "1:the job failed or was cancelled",
        "2:invalid command line",
        "3:the results did not verify"
    })
public final class RingflowCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    /**
     * Runs the command line and exits with its exit code.
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        if (System.getProperty("chronicle.analytics.disable") == null)
        {
            System.setProperty("chronicle.analytics.disable", "true");
        }
        System.exit(new CommandLine(new RingflowCommand()).execute(args));
    }

    /**
     * Without a subcommand there is nothing to run.
     *
     * @return never.
     * @throws ParameterException always, which picocli reports with the usage and exit code 2.
     */
    @Override
    public Integer call()
    {
        throw new ParameterException(spec.commandLine(), "Missing subcommand: try 'ringflow page-view'");
    }
}
