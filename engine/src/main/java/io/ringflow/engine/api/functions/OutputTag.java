package io.ringflow.engine.api.functions;

import java.util.Objects;

/**
 * Names a side output of an operator: records a function sends with {@code ctx.output(tag, value)} go to the stream
 * {@code getSideOutput(tag)} returns, not to the main output. Two tags are the same side output when their ids are
 * equal; the type must match too.
 *
 * @param <T> the side output's record type.
 */
public final class OutputTag<T>
{
    private final String id;
    private final Class<T> type;

    /**
     * @param id   the side output's name, unique per operator.
     * @param type its record type (its codec carries the records across rings).
     */
    public OutputTag(final String id, final Class<T> type)
    {
        if (id == null || id.isBlank())
        {
            throw new IllegalArgumentException("an OutputTag needs a non-blank id");
        }
        this.id = id;
        this.type = Objects.requireNonNull(type, "type");
    }

    /** @return the id. */
    public String id()
    {
        return id;
    }

    /** @return the record type. */
    public Class<T> type()
    {
        return type;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof OutputTag<?> tag && tag.id.equals(id) && tag.type == type;
    }

    @Override
    public int hashCode()
    {
        return id.hashCode();
    }

    @Override
    public String toString()
    {
        return "OutputTag{" + id + ", " + type.getSimpleName() + '}';
    }
}
