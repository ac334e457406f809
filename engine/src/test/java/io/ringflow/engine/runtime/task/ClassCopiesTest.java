package io.ringflow.engine.runtime.task;

import org.junit.jupiter.api.Test;

import java.util.function.LongUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Copies of a template are distinct classes that behave exactly as the template; when no copy can be made, the
 * template itself is used.
 */
class ClassCopiesTest
{
    @Test
    void aCopyIsADistinctClassWithTheTemplatesBehaviourAndItsOwnState()
    {
        final ClassCopies copies = new ClassCopies(true);
        final Class<? extends LongUnaryOperator> first = copies.copyOf(Adder.class);
        final Class<? extends LongUnaryOperator> second = copies.copyOf(Adder.class);

        assertThat(first).isNotEqualTo(Adder.class).isNotEqualTo(second);
        assertThat(first.isHidden()).isTrue();
        assertThat(LongUnaryOperator.class).isAssignableFrom(first);
        final LongUnaryOperator a = ClassCopies.construct(first, 10L);
        final LongUnaryOperator b = copies.instantiate(Adder.class, 20L);
        assertThat(a.applyAsLong(1)).isEqualTo(11);
        assertThat(b.applyAsLong(1)).isEqualTo(21);
        assertThat(a.applyAsLong(1)).as("instance state kept").isEqualTo(12);
    }

    @Test
    void theGeneralPathUsesTheTemplateItself()
    {
        final ClassCopies general = new ClassCopies(false);
        assertThat(general.copyOf(Adder.class)).isEqualTo(Adder.class);
        assertThat(general.instantiate(Adder.class, 5L).applyAsLong(1)).isEqualTo(6);
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
