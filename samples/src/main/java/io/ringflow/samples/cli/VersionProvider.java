package io.ringflow.samples.cli;

import picocli.CommandLine.IVersionProvider;

/**
 * The {@code --version} text: the Ringflow version from the jar's manifest ("development build" when run from
 * classes), and the JVM and machine it runs on.
 */
public final class VersionProvider implements IVersionProvider
{
    @Override
    public String[] getVersion()
    {
        final String version = RingflowCommand.class.getPackage().getImplementationVersion();
        return new String[] {
            "ringflow " + (version == null ? "development build" : version),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ", " +
                System.getProperty("java.vendor") + ")",
            System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", " +
                Runtime.getRuntime().availableProcessors() + " processors, max heap " +
                Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB"
        };
    }
}
