package io.ringflow.engine.api.source;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;

import java.util.List;
import java.util.Objects;

/**
 * A bounded source over a list. Subtask {@code s} of {@code p} emits the elements at indices {@code s, s + p, ...};
 * its position is how many it has emitted.
 *
 * @param <T> the element type.
 */
public final class CollectionSource<T> implements Source<T>
{
    private final List<T> elements;
    private final Class<T> type;

    /**
     * @param elements the records, none null; copied.
     * @param type     the record type.
     */
    public CollectionSource(final List<? extends T> elements, final Class<T> type)
    {
        this.elements = List.copyOf(elements);
        this.type = Objects.requireNonNull(type, "type");
    }

    /**
     * @param type     the record type.
     * @param elements the records, none null.
     * @param <T>      the record type.
     * @return a source over the elements.
     */
    @SafeVarargs
    public static <T> CollectionSource<T> of(final Class<T> type, final T... elements)
    {
        return new CollectionSource<>(List.of(elements), type);
    }

    @Override
    public Class<T> producedType()
    {
        return type;
    }

    @Override
    public boolean isBounded()
    {
        return true;
    }

    @Override
    public SourceReader<T> createReader(final SubtaskInfo subtask)
    {
        final int s = subtask.subtaskIndex();
        final int p = subtask.parallelism();
        final long limit = (elements.size() - s + p - 1) / p;
        return new SourceReader<>()
        {
            private long emitted;

            @Override
            public int pollNext(final Collector<T> output, final int maxRecords)
            {
                if (emitted >= limit)
                {
                    return END_OF_INPUT;
                }
                final int n = (int)Math.min(maxRecords, limit - emitted);
                for (int i = 0; i < n; i++)
                {
                    output.collect(elements.get((int)(s + (emitted++) * p)));
                }
                return n;
            }

            @Override
            public long position()
            {
                return emitted;
            }

            @Override
            public void seek(final long position)
            {
                if (position < 0 || position > limit)
                {
                    throw new IllegalArgumentException("position " + position + " is outside [0, " + limit + "]");
                }
                emitted = position;
            }
        };
    }
}
