package io.ringflow.engine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packages of the engine and state modules, read from their import lines: they form no cycle, and the user API
 * and the logical graph import nothing of what runs them. A layer added in the wrong direction fails here, naming the
 * file and the import.
 */
class PackageLayeringTest
{
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(io\\.ringflow\\.[\\w.]+?)\\.[A-Z]",
        Pattern.MULTILINE);
    /** Fully qualified uses in code (javadoc links aside), which an import line would not show. */
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.{@#])(io\\.ringflow\\.[a-z][\\w.]*?)\\.[A-Z]");

    /** Package to the packages its main sources use, with one example file per edge. */
    private static Map<String, Map<String, String>> dependencies()
    {
        final Map<String, Map<String, String>> graph = new TreeMap<>();
        for (final Path root : List.of(Path.of("src/main/java"), Path.of("../state/src/main/java")))
        {
            try (Stream<Path> files = Files.walk(root))
            {
                files.filter(file -> file.toString().endsWith(".java")).forEach(file -> read(file, graph));
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        return graph;
    }

    private static void read(final Path file, final Map<String, Map<String, String>> graph)
    {
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final Matcher packageLine = PACKAGE.matcher(text);
        if (!packageLine.find())
        {
            return;
        }
        final String from = packageLine.group(1);
        final Map<String, String> edges = graph.computeIfAbsent(from, p -> new TreeMap<>());
        final String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
        for (final Pattern pattern : List.of(IMPORT, QUALIFIED))
        {
            final Matcher use = pattern.matcher(code);
            while (use.find())
            {
                final String to = use.group(1);
                if (!to.equals(from))
                {
                    edges.putIfAbsent(to, file.getFileName().toString());
                }
            }
        }
    }

    @Test
    void noPackageCycles()
    {
        final Map<String, Map<String, String>> graph = dependencies();
        assertThat(graph).as("packages read").containsKeys("io.ringflow.engine.api", "io.ringflow.state.keyed");
        final List<String> cycles = new ArrayList<>();
        for (final Set<String> component : stronglyConnected(graph))
        {
            if (component.size() > 1)
            {
                final StringBuilder edges = new StringBuilder(String.join(", ", component)).append(':');
                for (final String from : component)
                {
                    graph.get(from).forEach((to, file) ->
                    {
                        if (component.contains(to))
                        {
                            edges.append("\n  ").append(from).append(" -> ").append(to).append(" (").append(file)
                                .append(')');
                        }
                    });
                }
                cycles.add(edges.toString());
            }
        }
        assertThat(cycles).as("package cycles").isEmpty();
    }

    @Test
    void theApiAndTheLogicalGraphImportNothingOfTheRuntime()
    {
        final Map<String, Map<String, String>> graph = dependencies();
        final List<String> wrong = new ArrayList<>();
        graph.forEach((from, edges) -> edges.forEach((to, file) ->
        {
            final boolean userFacing = from.startsWith("io.ringflow.engine.api") ||
                from.equals("io.ringflow.engine.graph");
            final boolean runtime = to.startsWith("io.ringflow.engine.runtime") ||
                to.startsWith("io.ringflow.engine.channel") || to.startsWith("io.ringflow.engine.checkpoint") ||
                to.equals("io.ringflow.state.chronicle") || to.equals("io.ringflow.state.heap") ||
                to.equals("io.ringflow.state.snapshot");
            // the API chooses state backends; the upsert sink is a Chronicle Map table by design
            final boolean allowed = from.equals("io.ringflow.engine.api") && to.startsWith("io.ringflow.state") ||
                from.equals("io.ringflow.engine.api.sink.upsert") && to.equals("io.ringflow.state.chronicle");
            if (userFacing && runtime && !allowed)
            {
                wrong.add(from + " -> " + to + " (" + file + ")");
            }
            // the graph holds the user's functions, sources and sinks, and knows nothing of the API above it
            if (from.equals("io.ringflow.engine.graph") && to.equals("io.ringflow.engine.api"))
            {
                wrong.add(from + " -> " + to + " (" + file + ")");
            }
            // user functions, sources and sinks are the leaves the graph and the API share
            if ((from.equals("io.ringflow.engine.api.functions") || from.equals("io.ringflow.engine.api.source") ||
                from.equals("io.ringflow.engine.api.sink")) && (to.equals("io.ringflow.engine.api") ||
                to.equals("io.ringflow.engine.graph")))
            {
                wrong.add(from + " -> " + to + " (" + file + ")");
            }
        }));
        assertThat(wrong).as("imports against the layering").isEmpty();
    }

    /** Tarjan's algorithm, iterative enough for a few dozen packages. */
    private static List<Set<String>> stronglyConnected(final Map<String, Map<String, String>> graph)
    {
        final Map<String, Integer> index = new TreeMap<>();
        final Map<String, Integer> low = new TreeMap<>();
        final List<String> stack = new ArrayList<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> components = new ArrayList<>();
        final int[] counter = {0};
        for (final String node : graph.keySet())
        {
            if (!index.containsKey(node))
            {
                connect(node, graph, index, low, stack, onStack, components, counter);
            }
        }
        return components;
    }

    private static void connect(final String node, final Map<String, Map<String, String>> graph,
        final Map<String, Integer> index, final Map<String, Integer> low, final List<String> stack,
        final Set<String> onStack, final List<Set<String>> components, final int[] counter)
    {
        index.put(node, counter[0]);
        low.put(node, counter[0]);
        counter[0]++;
        stack.add(node);
        onStack.add(node);
        for (final String next : graph.getOrDefault(node, Map.of()).keySet())
        {
            if (!graph.containsKey(next))
            {
                continue;
            }
            if (!index.containsKey(next))
            {
                connect(next, graph, index, low, stack, onStack, components, counter);
                low.put(node, Math.min(low.get(node), low.get(next)));
            }
            else if (onStack.contains(next))
            {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node)))
        {
            final Set<String> component = new TreeSet<>();
            String member;
            do
            {
                member = stack.remove(stack.size() - 1);
                onStack.remove(member);
                component.add(member);
            }
            while (!member.equals(node));
            components.add(component);
        }
    }
}
