package io.ringflow.state.chronicle;

import net.openhft.chronicle.map.ChronicleMap;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * What the Chronicle backend needs from the JVM, checked before a Chronicle class is initialised. Chronicle Map
 * reaches into JDK internals: on Java 17 and 25 it cannot run without the two flags of the root pom's
 * {@code ringflow.jvm.required-flags} ({@link #REQUIRED}: {@code java.lang.reflect} opened, {@code sun.nio.ch}
 * exported). Ringflow's own launchers (executable jars' manifests, surefire, exec) pass the fuller
 * {@code ringflow.jvm.flags} ({@link #FLAGS}), which also covers Chronicle paths Ringflow does not take (runtime
 * compilation of value classes, which the shipped {@code VanillaGlobalMutableState$$Native} avoids). Without the
 * required flags Chronicle fails deep inside with an {@link ExceptionInInitializerError}, after which none of its
 * classes can be used in that JVM; this check fails first, naming them. Refusing is deliberate, rather than falling
 * back to the heap backend: a job configured for off-heap state may hold more than the heap can, and would fail later
 * and worse. Nothing else in Ringflow needs a flag: the heap backend, the rings and the codecs run on a plain JVM.
 *
 * <p>Stateless; any thread.
 */
final class ChronicleJvmAccess
{
    /** Every flag of the root pom's {@code ringflow.jvm.flags}, in its order (copied there by the build). */
    static final List<String> FLAGS = load("flags");
    /** The flags of the root pom's {@code ringflow.jvm.required-flags}: those Chronicle cannot run without. */
    static final List<String> REQUIRED = load("required");

    private static final String OPENS = "--add-opens=";
    private static final String EXPORTS = "--add-exports=";

    private ChronicleJvmAccess()
    {
    }

    /**
     * @throws IllegalStateException naming the missing flags (and every flag Chronicle needs) when the JVM does not
     *                               grant Chronicle the access it needs.
     */
    static void check()
    {
        // Chronicle's module, without initialising any of its classes: the class path's unnamed module, normally
        final List<String> missing = missing(ChronicleMap.class.getModule());
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("the Chronicle state backend needs JVM flags this JVM was started " +
                "without: " + String.join(" ", missing) + ". Start the JVM with at least " +
                String.join(" ", REQUIRED) + " (Ringflow's executable jars carry these and the rest of its " +
                "recommended set in their manifests, for java -jar; the README's 'Embedding Ringflow' section has " +
                "the details), or keep state on the heap with new HeapStateBackend(), which needs no flag");
        }
    }

    /**
     * @param target the module the flags must grant access to.
     * @return the {@code --add-opens} and {@code --add-exports} flags of {@link #REQUIRED} that this JVM does not grant
     *     {@code target}; a flag naming a module this JVM does not have is left out (it cannot be granted, and
     *     whatever needs it cannot run here anyway). Other flags ({@code -D}) are no matter of access and left out.
     */
    static List<String> missing(final Module target)
    {
        return missing(target, REQUIRED);
    }

    /**
     * @param target the module the flags must grant access to.
     * @param flags  the flags to look at.
     * @return those of {@code flags} this JVM does not grant {@code target}, as {@link #missing(Module)}.
     */
    static List<String> missing(final Module target, final List<String> flags)
    {
        final List<String> missing = new ArrayList<>();
        for (final String flag : flags)
        {
            final boolean opens = flag.startsWith(OPENS);
            if (!opens && !flag.startsWith(EXPORTS))
            {
                continue;
            }
            // --add-opens=module/package=ALL-UNNAMED
            final String grant = flag.substring(opens ? OPENS.length() : EXPORTS.length());
            final int slash = grant.indexOf('/');
            final int equals = grant.indexOf('=', slash + 1);
            final String packageName = grant.substring(slash + 1, equals < 0 ? grant.length() : equals);
            final Optional<Module> module = ModuleLayer.boot().findModule(grant.substring(0, slash));
            if (module.isPresent() &&
                !(opens ? module.get().isOpen(packageName, target) : module.get().isExported(packageName, target)))
            {
                missing.add(flag);
            }
        }
        return missing;
    }

    private static List<String> load(final String property)
    {
        final Properties properties = new Properties();
        try (InputStream in = ChronicleJvmAccess.class.getResourceAsStream("jvm-flags.properties"))
        {
            if (in == null)
            {
                throw new IllegalStateException("jvm-flags.properties is missing from the class path");
            }
            properties.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final String flags = properties.getProperty(property, "").trim();
        if (flags.isEmpty() || flags.contains("${"))
        {
            throw new IllegalStateException("jvm-flags.properties holds no " + property + ": '" + flags + "'");
        }
        return List.of(flags.split("\\s+"));
    }
}
