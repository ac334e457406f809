package io.ringflow.engine.runtime.task;

import io.ringflow.engine.runtime.operators.CoProcessOperator;
import io.ringflow.engine.runtime.operators.FilterOperator;
import io.ringflow.engine.runtime.operators.FlatMapOperator;
import io.ringflow.engine.runtime.operators.KeyedProcessOperator;
import io.ringflow.engine.runtime.operators.KeyedReduceOperator;
import io.ringflow.engine.runtime.operators.MapOperator;
import io.ringflow.engine.runtime.operators.SinkOperator;
import io.ringflow.engine.runtime.operators.TwoPhaseCommitSinkOperator;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.LongUnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Copies of a template are distinct classes that behave exactly as the template; when no copy can be made, the
 * template itself is used.
 */
class ClassCopiesTest
{
    /** Every class the Deployer copies per place (Specializer). */
    private static final List<Class<?>> TEMPLATES = List.of(
        ChainingOutput.class, FanOutOutput.class, ForwardOutput.class, RebalanceOutput.class, BroadcastOutput.class,
        KeyHashOutput.class, ChannelInput.class, MapOperator.class, FilterOperator.class, FlatMapOperator.class,
        KeyedProcessOperator.class, KeyedReduceOperator.class, CoProcessOperator.class, SinkOperator.class,
        io.ringflow.engine.runtime.operators.KeyedCoProcessOperator.class, SideOutputWatermarks.class,
        TwoPhaseCommitSinkOperator.class,
        io.ringflow.engine.runtime.operators.TimestampsAndWatermarksOperator.class);
    /**
     * Record-path classes that are not copied, and why: a source's task drives (casts) its operator; the window
     * operator declares a nested record (its state's key) and its per-record cost is in state, not in dispatch.
     */
    private static final Set<Class<?>> NOT_COPIED = Set.of(SourceOperator.class,
        io.ringflow.engine.runtime.operators.WindowOperator.class);

    @Test
    void everyRecordPathClassOfTheEngineIsATemplateOrKnownNotToBe() throws Exception
    {
        final Set<Class<?>> recordPath = engineClasses().stream()
            .filter(type -> !type.isInterface() && !Modifier.isAbstract(type.getModifiers()))
            .filter(type -> Output.class.isAssignableFrom(type) || StreamOperator.class.isAssignableFrom(type) ||
                InputChannel.class.isAssignableFrom(type))
            .collect(Collectors.toSet());
        final Set<Class<?>> expected = Stream.concat(TEMPLATES.stream(), NOT_COPIED.stream()).collect(Collectors.toSet());
        assertThat(recordPath).as("a new output, operator or input loop must be added to the Specializer and here")
            .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void everyTemplateKeepsTheRulesOfACopyAndCanBeCopied()
    {
        final ClassCopies copies = new ClassCopies(true);
        for (final Class<?> template : TEMPLATES)
        {
            assertThat(Modifier.isFinal(template.getModifiers())).as("%s is final", template).isTrue();
            assertThat(template.getEnclosingClass()).as("%s is top-level", template).isNull();
            assertThat(template.getDeclaredClasses()).as("%s has no nested class", template).isEmpty();
            assertThat(template.getDeclaredConstructors()).as("%s has one constructor", template).hasSize(1);
            for (final Field field : template.getDeclaredFields())
            {
                if (Modifier.isStatic(field.getModifiers()))
                {
                    assertThat(Modifier.isFinal(field.getModifiers()) &&
                        (field.getType().isPrimitive() || field.getType() == String.class))
                        .as("%s.%s: a template's only static fields are constants", template, field.getName())
                        .isTrue();
                }
            }
            final Class<?> copy = copies.copyOf(template);
            assertThat(copy).as("copy of %s", template).isNotEqualTo(template);
            assertThat(copy.isHidden()).isTrue();
            assertThat(copy.getSuperclass()).isEqualTo(template.getSuperclass());
            assertThat(copy.getInterfaces()).containsExactly(template.getInterfaces());
        }
    }

    /** The engine's own classes (not the tests'), loaded without initialising them. */
    private static List<Class<?>> engineClasses() throws IOException, URISyntaxException
    {
        final Path root = Path.of(Output.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (Stream<Path> files = Files.walk(root))
        {
            return files.filter(file -> file.toString().endsWith(".class"))
                .map(file -> root.relativize(file).toString().replace(root.getFileSystem().getSeparator(), "."))
                .map(name -> name.substring(0, name.length() - ".class".length()))
                .filter(name -> name.startsWith("io.ringflow.engine."))
                .map(ClassCopiesTest::load)
                .collect(Collectors.toList());
        }
    }

    private static Class<?> load(final String name)
    {
        try
        {
            return Class.forName(name, false, ClassCopiesTest.class.getClassLoader());
        }
        catch (final ClassNotFoundException ex)
        {
            throw new AssertionError(ex);
        }
    }
    @Test
    void aCopyIsADistinctClassWithTheTemplatesBehaviourAndItsOwnState()
    {
        final ClassCopies copies = new ClassCopies(true);
        final Class<? extends LongUnaryOperator> first = copies.copyOf(Adder.class);
        final Class<? extends LongUnaryOperator> second = copies.copyOf(Adder.class);

        assertThat(first).isNotEqualTo(Adder.class).isNotEqualTo(second);
        assertThat(first.isHidden()).isTrue();
        assertThat(LongUnaryOperator.class).isAssignableFrom(first);
        final LongUnaryOperator a = ClassCopies.construct(LongUnaryOperator.class, first, 10L);
        final LongUnaryOperator b = ClassCopies.construct(LongUnaryOperator.class, second, 20L);
        assertThat(a.applyAsLong(1)).isEqualTo(11);
        assertThat(b.applyAsLong(1)).isEqualTo(21);
        assertThat(a.applyAsLong(1)).as("instance state kept").isEqualTo(12);
    }

    @Test
    void theGeneralPathUsesTheTemplateItself()
    {
        final ClassCopies general = new ClassCopies(false);
        assertThat(general.copyOf(Adder.class)).isEqualTo(Adder.class);
        assertThat(general.copyFor(Adder.class, "any", 1L)).isEqualTo(Adder.class);
        assertThat(ClassCopies.construct(LongUnaryOperator.class, general.copyFor(Adder.class), 5L).applyAsLong(1))
            .isEqualTo(6);
    }

    @Test
    void placesOfOneShapeShareACopyAndPlacesOfAnotherGetTheirOwn()
    {
        final ClassCopies copies = new ClassCopies(true);
        final LongUnaryOperator collaborator = x -> x;
        final Class<?> first = copies.copyFor(Adder.class, collaborator, "a", new Object[] {1L, "b"}, null);
        final Class<?> again = new ClassCopies(true).copyFor(Adder.class, collaborator, "other instance, same class",
            new Object[] {2L, "c"}, null);
        assertThat(again).as("same classes, in another deployment").isSameAs(first);
        assertThat(first).isNotEqualTo(Adder.class);

        assertThat(copies.copyFor(Adder.class, collaborator, 1L, new Object[] {1L, "b"}, null))
            .as("a collaborator of another class").isNotSameAs(first);
        assertThat(copies.copyFor(Adder.class, collaborator, "a", new Object[] {1L, 2L}, null))
            .as("an array element of another class").isNotSameAs(first);
        assertThat(copies.copyFor(Adder.class, collaborator, "a", new Object[] {1L, "b"}))
            .as("fewer collaborators").isNotSameAs(first);
        assertThat(copies.copyFor(Adder.class, collaborator, "a", new Object[] {1L, "b"}, String.class))
            .as("a class given as itself").isNotSameAs(first)
            .isSameAs(copies.copyFor(Adder.class, collaborator, "a", new Object[] {1L, "b"}, String.class));
    }

    @Test
    void aClassWhoseBytesCannotBeReadFallsBackToItself()
    {
        final LongUnaryOperator lambda = x -> x + 1;
        @SuppressWarnings("unchecked")
        final Class<LongUnaryOperator> hidden = (Class<LongUnaryOperator>)lambda.getClass();
        assertThat(new ClassCopies(true).copyOf(hidden)).isEqualTo(hidden);
    }
}
