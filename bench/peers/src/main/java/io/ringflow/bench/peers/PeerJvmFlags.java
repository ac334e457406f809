package io.ringflow.bench.peers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The JVM flags each engine's forks need, read from {@code peers-jvm-flags.properties}, which the build fills in from
 * the poms: Ringflow's from the root pom's {@code ringflow.jvm.flags} (Chronicle and Agrona reach into JDK internals;
 * {@code -Dchronicle.analytics.disable=true}), Flink's Java 17 list from its distribution's configuration, Hazelcast's
 * from its documentation.
 */
final class PeerJvmFlags
{
    /** Given to every fork, whatever its engine: Chronicle, on the class path of all, must never phone home. */
    static final List<String> COMMON = List.of("-Dchronicle.analytics.disable=true");

    /** The heap of every fork unless {@code --jvm} says otherwise: fixed and pre-touched. */
    static final String DEFAULT_HEAP = "-Xms4g -Xmx4g -XX:+AlwaysPreTouch";

    private PeerJvmFlags()
    {
    }

    /**
     * @param engine ringflow, flink or jet.
     * @return the flags that engine needs, in the order of its list.
     * @throws IllegalStateException if the resource is missing or was not filtered (built without Maven).
     */
    static List<String> forEngine(final String engine)
    {
        final Properties flags = new Properties();
        try (InputStream in = PeerJvmFlags.class.getResourceAsStream("/peers-jvm-flags.properties"))
        {
            if (in == null)
            {
                throw new IllegalStateException("peers-jvm-flags.properties is not on the class path");
            }
            flags.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final String value = flags.getProperty(engine.toLowerCase(Locale.ROOT));
        if (value == null || value.contains("${"))
        {
            throw new IllegalStateException("no JVM flags for " + engine + " in peers-jvm-flags.properties (was it " +
                "built by Maven, with resource filtering?): " + value);
        }
        return split(value);
    }

    /**
     * @param flags flags separated by white space.
     * @return the flags.
     */
    static List<String> split(final String flags)
    {
        return Arrays.stream(flags.strip().split("\\s+")).filter(flag -> !flag.isEmpty()).toList();
    }
}
