package io.ringflow.engine.runtime.operators;

/** Small reflective checks the operators make once, when they are created. */
final class OperatorSupport
{
    private OperatorSupport()
    {
    }

    /**
     * @param type       the user's class.
     * @param base       the API class that declares the method with a default body.
     * @param name       the method.
     * @param parameters its parameter types.
     * @return whether {@code type} or a superclass below {@code base} overrides it.
     */
    static boolean overrides(final Class<?> type, final Class<?> base, final String name,
        final Class<?>... parameters)
    {
        try
        {
            return type.getMethod(name, parameters).getDeclaringClass() != base;
        }
        catch (final NoSuchMethodException ex)
        {
            throw new IllegalStateException(base.getName() + " has no method " + name, ex);
        }
    }
}
