package io.ringflow.engine.runtime.deploy;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Asks HotSpot's C2 compiler, once per JVM, to inline a chain's per-record calls into its record loop whatever their
 * compiled size, through a compiler directive added at run time (the {@code Compiler.directives_add} diagnostic
 * command, the same as {@code jcmd <pid> Compiler.directives_add}).
 *
 * <p>Why: C2 inlines a call only if the callee's own compiled code, when it has some, is under
 * {@code InlineSmallCode} (2,500 bytes). An operator's {@code processElement} runs once per record, so it is compiled
 * on its own long before the loop that calls it, which runs once per batch: with a user function and its state inlined
 * into it, it is then "already compiled into a big method", the loop calls it, and every record decoded in the loop
 * escapes into that call and is allocated. Forcing these calls inline puts the whole chain, from the slot to the last
 * operator, into one compilation, where records that do not escape are never allocated. The class copies of
 * {@link io.ringflow.engine.runtime.task.ClassCopies} make the calls monomorphic; this makes them inlined.
 *
 * <p>Scope: the directive matches only compilations rooted in Ringflow's record path (channel loops, operators,
 * outputs) and sources' {@code pollNext}, and forces, on their hot paths only (C2 does not parse branches the profile
 * never took), the calls of the record path: user functions' entry points, outputs, codecs, keyed state. It leaves
 * every other compilation of the JVM alone. It is not added when the JVM already has compiler directives (ours would
 * shadow the user's for the methods it matches), when the {@code java.management} module or the diagnostic command is
 * missing (another JVM), or when the system property {@value #PROPERTY} is {@code false}; the job then runs the same,
 * with the allocations the JIT could not remove. Each outcome is logged once.
 *
 * <p>Thread contract: thread-safe; the first deployment of the JVM installs it.
 */
final class CompilerDirectives
{
    /** System property: {@code false} keeps Ringflow from adding its compiler directive. */
    static final String PROPERTY = "ringflow.jit.directives";

    /** The engine's record-path templates and their copies: operators and edge outputs, all their methods. */
    private static final List<String> OPERATORS_AND_OUTPUTS = List.of(
        "io/ringflow/engine/runtime/operators/*.*",
        "io/ringflow/engine/runtime/task/ChainingOutput*.*",
        "io/ringflow/engine/runtime/task/FanOutOutput*.*",
        "io/ringflow/engine/runtime/task/ForwardOutput*.*",
        "io/ringflow/engine/runtime/task/RebalanceOutput*.*",
        "io/ringflow/engine/runtime/task/BroadcastOutput*.*",
        "io/ringflow/engine/runtime/task/KeyHashOutput*.*");

    /**
     * The engine's methods above the record loops. C2 may compile any of them as the root of a compilation that
     * inlines a source's {@code pollNext} (small enough to inline): a compilation rooted at {@code
     * SourceOperator.emitNext} did so in about one JVM in three with {@code -XX:-TieredCompilation}, and with the
     * directive matching only the record path's own roots, the chain under the reader was left to C2's size rules and
     * every record escaped (docs/benchmarks.md, "A second road to the same bytes"). A channel's loop is too big to be
     * inlined here, so these compilations call it, and it stays a root of its own.
     */
    static final List<String> TASK_LOOP = List.of(
        "io/ringflow/engine/runtime/task/TaskLoop*.run",
        "io/ringflow/engine/runtime/task/Task.cycle",
        "io/ringflow/engine/runtime/task/InputTask.doWork",
        "io/ringflow/engine/runtime/task/InputTask.pollWatchingAnnouncements",
        "io/ringflow/engine/runtime/task/SourceTask.doWork",
        "io/ringflow/engine/runtime/task/SourceOperator.emitNext");

    /**
     * What compilations the directive applies to: the record loops (a channel's, a source reader's), the record path's
     * own methods, each copy of a template included (a hidden class's name is its template's and a suffix), and the
     * task loop above the record loops.
     */
    static final List<String> ROOTS = concat(concat(List.of(
        "io/ringflow/engine/runtime/task/ChannelInput*.drain",
        "*.pollNext"), OPERATORS_AND_OUTPUTS), TASK_LOOP);

    /**
     * What those compilations inline whatever its compiled size: the record path's classes (operators, outputs, the
     * channel writer, codecs, and the hit paths of keyed state: a state's slow path, such as a Chronicle map lookup,
     * is left to the JIT's own rules, or it would use up the compilation's inlining budget before the chain's end)
     * and the entry points of user functions.
     */
    static final List<String> FORCED = concat(OPERATORS_AND_OUTPUTS, List.of(
        "io/ringflow/engine/channel/ChannelWriter.*",
        "io/ringflow/state/codec/*.*",
        "io/ringflow/state/keyed/*.*",
        "io/ringflow/state/heap/*.*",
        "io/ringflow/state/chronicle/ChronicleKeyedStateStore.setCurrentKey",
        "io/ringflow/state/chronicle/ChronicleKeyedStateStore.hasLongKey",
        "io/ringflow/state/chronicle/ChronicleKeyedStateStore.currentLongKey",
        "io/ringflow/state/chronicle/ChronicleValueState$LongView.*",
        "io/ringflow/state/chronicle/HotKeyFront.getLong",
        "io/ringflow/state/chronicle/HotKeyFront.replaceLong",
        "io/ringflow/state/chronicle/HotKeyFront.access",
        "io/ringflow/state/chronicle/HotKeyFront.holdsLongs",
        "*.processElement", "*.processElement1", "*.processElement2", "*.collect", "*.map", "*.filter",
        "*.flatMap", "*.getKey", "*.reduce", "*.write", "*.generate", "*.encode", "*.decode"));

    /**
     * What those compilations never inline: slow paths that the profile shows as taken (so C2 would parse them) but
     * that run once per checkpoint or per chunk, not per record. Inlined, they use up the compilation's budget before
     * the chain's end, and the records the chain's tail receives are then allocated. The hot-key table's
     * copy-on-write step runs at the first change of each chunk after a barrier: at a million keys that is thousands
     * of times a checkpoint, enough for C2 to inline it and, in about half the JVMs tried, to stop inlining the sink.
     */
    static final List<String> KEPT_OUT = List.of(
        "io/ringflow/state/chronicle/CopyOnWriteLongTable.preserve");

    /** The directive, in HotSpot's compiler directives format (JSON with unquoted keys). */
    static final String DIRECTIVE = "[{\n" +
        "  match: [" + quoted(ROOTS, "") + "],\n" +
        "  c2: { inline: [" + quoted(FORCED, "+") + ", " + quoted(KEPT_OUT, "-") + "] }\n" +
        "}]\n";

    private static final System.Logger LOG = System.getLogger(CompilerDirectives.class.getName());
    private static final AtomicBoolean ATTEMPTED = new AtomicBoolean();
    private static volatile boolean installed;

    private CompilerDirectives()
    {
    }

    private static String quoted(final List<String> patterns, final String prefix)
    {
        return patterns.stream().map(pattern -> "\"" + prefix + pattern + "\"").collect(Collectors.joining(", "));
    }

    /** Adds the directive, the first time only; never throws. */
    static void installOnce()
    {
        if (!ATTEMPTED.compareAndSet(false, true))
        {
            return;
        }
        if ("false".equalsIgnoreCase(System.getProperty(PROPERTY)))
        {
            LOG.log(Level.INFO, "Ringflow adds no compiler directive (-D" + PROPERTY + "=false): records of chains " +
                "whose operators are large may be allocated where the JIT could have removed them");
            return;
        }
        try
        {
            installed = install();
        }
        catch (final LinkageError | RuntimeException | JMException | IOException ex)
        {
            LOG.log(Level.INFO, "Ringflow could not add its compiler directive (" + ex + "): chains run as " +
                "compiled by the JIT's own inlining rules");
        }
    }

    /** @return whether the directive is in place. */
    static boolean installed()
    {
        return installed;
    }

    private static int directiveCount(final MBeanServer server, final ObjectName diagnostics) throws JMException
    {
        final String printed = String.valueOf(server.invoke(diagnostics, "compilerDirectivesPrint",
            new Object[] {new String[0]}, new String[] {String[].class.getName()}));
        return printed.split("Directive:", -1).length - 1;
    }

    private static boolean install() throws JMException, IOException
    {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final ObjectName diagnostics = new ObjectName("com.sun.management:type=DiagnosticCommand");
        final String[] signature = {String[].class.getName()};
        // the default directive is always there; anything more is the user's, which ours must not shadow
        if (directiveCount(server, diagnostics) > 1)
        {
            LOG.log(Level.INFO, "the JVM already has compiler directives; Ringflow adds none of its own, so chains " +
                "run as compiled by the JIT's own inlining rules");
            return false;
        }
        final Path file = Files.createTempFile("ringflow-compiler-directive", ".json");
        try
        {
            Files.writeString(file, DIRECTIVE);
            final String result = String.valueOf(server.invoke(diagnostics, "compilerDirectivesAdd",
                new Object[] {new String[] {file.toString()}}, signature));
            if (directiveCount(server, diagnostics) != 2)
            {
                LOG.log(Level.INFO, "the JVM refused Ringflow's compiler directive: " + result.trim());
                return false;
            }
        }
        finally
        {
            Files.deleteIfExists(file);
        }
        LOG.log(Level.DEBUG, "added Ringflow's compiler directive: chains' per-record calls are inlined into their " +
            "record loops");
        return true;
    }

    private static List<String> concat(final List<String> first, final List<String> second)
    {
        final List<String> both = new java.util.ArrayList<>(first);
        both.addAll(second);
        return List.copyOf(both);
    }
}
