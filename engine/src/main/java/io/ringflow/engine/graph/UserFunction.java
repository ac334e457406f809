package io.ringflow.engine.graph;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A user function as the job graph holds it: one instance every subtask shares, or a factory that makes one per
 * subtask. Data only; whoever runs the graph decides when to call the factory.
 *
 * @param shared  the instance every subtask shares, or null when {@code factory} is set.
 * @param factory makes each subtask's own instance, or null when {@code shared} is set.
 * @param type    the function's class (of the shared instance, or of a probe the factory made), for type extraction,
 *                names and messages.
 * @param <F>     the function type.
 */
public record UserFunction<F>(F shared, Supplier<? extends F> factory, Class<?> type)
{
    /** Exactly one of {@code shared} and {@code factory}. */
    public UserFunction
    {
        if ((shared == null) == (factory == null))
        {
            throw new IllegalArgumentException("exactly one of a shared instance and a factory");
        }
        Objects.requireNonNull(type, "type");
    }

    /**
     * @param instance the instance every subtask shares.
     * @param <F>      the function type.
     * @return the function.
     */
    public static <F> UserFunction<F> shared(final F instance)
    {
        return new UserFunction<>(Objects.requireNonNull(instance, "function"), null, instance.getClass());
    }

    /**
     * @param factory makes each subtask's own instance.
     * @param probe   one instance the factory made, for its class (the caller may keep it for type extraction).
     * @param <F>     the function type.
     * @return the function.
     */
    public static <F> UserFunction<F> perSubtask(final Supplier<? extends F> factory, final F probe)
    {
        return new UserFunction<>(null, Objects.requireNonNull(factory, "factory"),
            Objects.requireNonNull(probe, "the factory returned null").getClass());
    }

    /** @return whether every subtask shares one instance. */
    public boolean isShared()
    {
        return shared != null;
    }

    /**
     * @return the instance for one subtask: the shared one, or a new one from the factory.
     * @throws NullPointerException when the factory returns null.
     */
    public F instance()
    {
        return shared != null ? shared : Objects.requireNonNull(factory.get(), "the function factory returned null");
    }

    @Override
    public String toString()
    {
        return (shared != null ? "shared " : "per subtask ") + type.getName();
    }
}
