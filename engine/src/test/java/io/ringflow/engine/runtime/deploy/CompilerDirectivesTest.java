package io.ringflow.engine.runtime.deploy;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.Arrays;
import javax.management.ObjectName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The directive is accepted by this JVM (HotSpot parses every pattern, or refuses it whole) and is in place after the
 * first deployment asked for it.
 */
class CompilerDirectivesTest
{
    @Test
    void theDirectiveIsInPlaceWithEveryPattern() throws Exception
    {
        CompilerDirectives.installOnce();
        assertThat(CompilerDirectives.installed()).as("installed (tests add no directive of their own)").isTrue();
        final String printed = printDirectives();
        for (final String root : CompilerDirectives.ROOTS)
        {
            assertThat(printed).contains(root);
        }
        for (final String forced : CompilerDirectives.FORCED)
        {
            assertThat(printed).contains("+" + forced);
        }
        for (final String keptOut : CompilerDirectives.KEPT_OUT)
        {
            assertThat(printed).contains("-" + keptOut);
        }
        // ours and the default; a second request adds nothing
        assertThat(printed.split("Directive:", -1)).hasSize(3);
        CompilerDirectives.installOnce();
        assertThat(printDirectives()).isEqualTo(printed);
    }

    /**
     * A root that names no method matches no compilation, silently: each of the task loop's roots must name a method
     * its class declares (a rename fails here, not in a benchmark).
     */
    @Test
    void everyTaskLoopRootNamesADeclaredMethod() throws Exception
    {
        for (final String root : CompilerDirectives.TASK_LOOP)
        {
            final int dot = root.lastIndexOf('.');
            // "Template*" also matches the template's copies, which are named after it
            final Class<?> holder = Class.forName(root.substring(0, dot).replace('/', '.').replace("*", ""));
            final String method = root.substring(dot + 1);
            assertThat(Arrays.stream(holder.getDeclaredMethods()).map(Method::getName))
                .as("%s declares %s", holder.getName(), method).contains(method);
        }
        assertThat(CompilerDirectives.ROOTS).containsAll(CompilerDirectives.TASK_LOOP);
    }

    private static String printDirectives() throws Exception
    {
        return String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
            new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
            new Object[] {new String[0]}, new String[] {String[].class.getName()}));
    }
}
