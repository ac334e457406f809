package io.ringflow.bench;

import java.util.List;

/**
 * The JVM flags of every forked benchmark JVM, as compile-time constants so that {@code @Fork(jvmArgsAppend = ...)}
 * can name them.
 *
 * <p>A JMH fork is started with {@code java -cp benchmarks.jar ...}, not {@code java -jar}, so the Add-Opens and
 * Add-Exports entries of the jar's manifest do not apply to it: the forks get the same list as command-line flags.
 * {@link #RINGFLOW} must equal the root pom's {@code ringflow.jvm.flags} property; {@code BenchmarksSmokeTest}
 * checks that it does.
 *
 * <p>The heap is fixed and pre-touched ({@code -Xms2g -Xmx2g -XX:+AlwaysPreTouch}) so that no measurement pays for
 * heap growth or first-touch page faults.
 */
public final class JvmFlags
{
    /** Initial heap, equal to the maximum: the heap never resizes during a run. */
    public static final String XMS = "-Xms2g";
    /** Maximum heap. */
    public static final String XMX = "-Xmx2g";
    /** Touch every heap page at start-up, before any measurement. */
    public static final String PRE_TOUCH = "-XX:+AlwaysPreTouch";

    /** Chronicle must not phone home. */
    public static final String NO_CHRONICLE_ANALYTICS = "-Dchronicle.analytics.disable=true";
    /** Opens java.lang (Chronicle, Agrona). */
    public static final String OPEN_LANG = "--add-opens=java.base/java.lang=ALL-UNNAMED";
    /** Opens java.lang.reflect. */
    public static final String OPEN_REFLECT = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED";
    /** Opens java.io. */
    public static final String OPEN_IO = "--add-opens=java.base/java.io=ALL-UNNAMED";
    /** Opens java.util. */
    public static final String OPEN_UTIL = "--add-opens=java.base/java.util=ALL-UNNAMED";
    /** Opens java.nio (direct buffer addresses). */
    public static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    /** Exports jdk.internal.ref (Cleaner). */
    public static final String EXPORT_REF = "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED";
    /** Exports jdk.internal.misc. */
    public static final String EXPORT_MISC = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    /** Exports sun.nio.ch. */
    public static final String EXPORT_NIO_CH = "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED";
    /** Exports sun.misc (Unsafe). */
    public static final String EXPORT_SUN_MISC = "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED";
    /** Exports javac's file manager (Chronicle's runtime compiler). */
    public static final String EXPORT_JAVAC_FILE = "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED";
    /** Opens javac (Chronicle's runtime compiler). */
    public static final String OPEN_JAVAC = "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED";

    /** The root pom's {@code ringflow.jvm.flags}, in its order. */
    public static final List<String> RINGFLOW = List.of(
        NO_CHRONICLE_ANALYTICS, OPEN_LANG, OPEN_REFLECT, OPEN_IO, OPEN_UTIL, OPEN_NIO, EXPORT_REF, EXPORT_MISC,
        EXPORT_NIO_CH, EXPORT_SUN_MISC, EXPORT_JAVAC_FILE, OPEN_JAVAC);

    private JvmFlags()
    {
    }
}
