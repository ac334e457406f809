package io.ringflow.state.chronicle;

import net.openhft.chronicle.hash.VanillaGlobalMutableState;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The value class Chronicle Map would otherwise compile with javac when it creates its first map: the one shipped in
 * this module is the one Chronicle loads, and its source is exactly what the pinned chronicle-values generates (so a
 * version change that alters the layout fails here, not at run time).
 */
class ChronicleValueClassesTest
{
    private static final String NATIVE_CLASS = "VanillaGlobalMutableState$$Native";

    @Test
    void chronicleLoadsTheShippedGlobalStateClassInsteadOfCompilingOne() throws Exception
    {
        final Class<?> valueModel = Class.forName("net.openhft.chronicle.values.ValueModel");
        final Object model = valueModel.getMethod("acquire", Class.class).invoke(null, VanillaGlobalMutableState.class);
        final Class<?> nativeClass = (Class<?>)valueModel.getMethod("nativeClass").invoke(model);

        assertThat(nativeClass.getName()).isEqualTo("net.openhft.chronicle.hash." + NATIVE_CLASS);
        assertThat(nativeClass.getClassLoader()).isSameAs(ChronicleKeyedStateStore.class.getClassLoader());
        assertThat(nativeClass.getProtectionDomain().getCodeSource().getLocation())
            .isEqualTo(ChronicleKeyedStateStore.class.getProtectionDomain().getCodeSource().getLocation());
    }

    @Test
    void theShippedSourceIsWhatThePinnedChronicleValuesGenerates() throws Exception
    {
        final Class<?> valueModel = Class.forName("net.openhft.chronicle.values.ValueModel");
        final Object model = valueModel.getMethod("acquire", Class.class).invoke(null, VanillaGlobalMutableState.class);
        final Method generate = Class.forName("net.openhft.chronicle.values.Generators")
            .getDeclaredMethod("generateNativeClass", valueModel, String.class);
        generate.setAccessible(true);
        final String generated = (String)generate.invoke(null, model, NATIVE_CLASS);

        final String shipped = Files.readString(
            Path.of("src/main/java/net/openhft/chronicle/hash", NATIVE_CLASS + ".java"), StandardCharsets.UTF_8);
        // the shipped file is a comment header, then the generated source unchanged
        assertThat(shipped).endsWith(generated);
        assertThat(shipped.substring(0, shipped.length() - generated.length()).lines())
            .allMatch(line -> line.startsWith("//"));
    }
}
