package io.ringflow.samples.cli;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Starting the {@code ringflow} CLI in a child JVM, for the tests that kill it with SIGKILL. */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @param arguments the CLI's arguments.
     * @return a command starting the CLI in a new JVM with this JVM's class path and module flags.
     */
    static List<String> command(final List<String> arguments)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms256m");
        command.add("-Xmx256m");
        for (final String flag : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (flag.startsWith("--add-") || flag.startsWith("-Dchronicle"))
            {
                command.add(flag);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path") + File.pathSeparator);
        command.add(RingflowCommand.class.getName());
        command.addAll(arguments);
        return command;
    }
}
