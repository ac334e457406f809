package io.ringflow.bench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The optional compile commands for the checkpoint path (bench/jvm/checkpoint-path.compilecommands) name methods that
 * exist: every pattern matches at least one method of a Ringflow class, so a rename cannot silently leave a command
 * that HotSpot accepts and applies to nothing.
 */
class CheckpointPathCompileCommandsTest
{
    private static final Path FILE = Path.of("jvm", "checkpoint-path.compilecommands");

    @Test
    void everyCommandMatchesAMethodOfTheEngine() throws Exception
    {
        final List<String> commands = Files.readAllLines(FILE, StandardCharsets.UTF_8).stream()
            .filter(line -> line.startsWith("CompileThresholdScaling,")).toList();
        assertThat(commands).isNotEmpty();
        for (final String command : commands)
        {
            final String[] parts = command.split(",");
            assertThat(parts).as(command).hasSize(3);
            assertThat(Double.parseDouble(parts[2])).as(command).isBetween(0.001, 1.0);
            final int dot = parts[1].lastIndexOf('.');
            final String classPattern = parts[1].substring(0, dot);
            final String methodPattern = parts[1].substring(dot + 1);
            assertThat(matches(classPattern, methodPattern)).as("a method matching %s", parts[1]).isTrue();
        }
    }

    /** HotSpot's patterns: a class name or a prefix ending in '*', a method name or '*'. */
    private static boolean matches(final String classPattern, final String methodPattern)
        throws IOException, URISyntaxException, ClassNotFoundException
    {
        for (final String className : classesMatching(classPattern))
        {
            final Class<?> type = Class.forName(className, false, CheckpointPathCompileCommandsTest.class
                .getClassLoader());
            if ("*".equals(methodPattern) || Arrays.stream(type.getDeclaredMethods()).map(Method::getName)
                .anyMatch(methodPattern::equals))
            {
                return true;
            }
        }
        return false;
    }

    private static List<String> classesMatching(final String classPattern) throws IOException, URISyntaxException
    {
        if (!classPattern.endsWith("*"))
        {
            return List.of(classPattern.replace('/', '.'));
        }
        final String prefix = classPattern.substring(0, classPattern.length() - 1);
        final String folder = prefix.substring(0, prefix.lastIndexOf('/') + 1);
        final List<String> names = new ArrayList<>();
        for (final URL url : Collections.list(CheckpointPathCompileCommandsTest.class.getClassLoader()
            .getResources(folder)))
        {
            final List<String> entries;
            if ("jar".equals(url.getProtocol()))
            {
                final JarURLConnection connection = (JarURLConnection)url.openConnection();
                // a jar of its own to close, not the class loader's shared one
                connection.setUseCaches(false);
                try (JarFile jar = connection.getJarFile())
                {
                    entries = jar.stream().map(entry -> entry.getName()).toList();
                }
            }
            else
            {
                final Path root = Path.of(url.toURI());
                try (Stream<Path> files = Files.walk(root))
                {
                    entries = files.map(file -> folder + root.relativize(file).toString().replace('\\', '/')).toList();
                }
            }
            entries.stream().filter(name -> name.startsWith(prefix) && name.endsWith(".class"))
                .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                .forEach(names::add);
        }
        return names;
    }
}
