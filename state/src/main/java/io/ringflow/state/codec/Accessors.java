package io.ringflow.state.codec;

import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Builds the functions through which {@link RecordCodec} reads record components and calls canonical constructors.
 *
 * <p>Component readers are made with {@link LambdaMetafactory} in the record's own lookup, so they are ordinary
 * classes whose calls the JIT inlines, and primitive components are read without boxing ({@link ToLongFunction},
 * {@link ToIntFunction} for {@code int}, {@code short}, {@code byte} and {@code char} (widened), {@link Predicate} for
 * {@code boolean}, {@link ToDoubleFunction}, and {@link RecordCodec.ToFloatFunction}). When that is impossible (the
 * record is in another module, so its lookup lacks full privilege access, or the metafactory refuses) the same
 * functional interfaces are implemented over plain {@link MethodHandle}s: slower, still exact and still not boxing.
 * Everything here runs once per record type, never per record.
 */
final class Accessors
{
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    private Accessors()
    {
    }

    /**
     * @return a lookup with private access to {@code recordType}, or null when its module does not open it to us.
     */
    static MethodHandles.Lookup privateLookup(final Class<?> recordType)
    {
        try
        {
            return MethodHandles.privateLookupIn(recordType, LOOKUP);
        }
        catch (final IllegalAccessException | SecurityException ex)
        {
            return null;
        }
    }

    /**
     * @param lookup from {@link #privateLookup}, or null to fall back to reflection.
     * @return the component's accessor as a handle of type {@code (R)C}.
     */
    static MethodHandle getter(
        final MethodHandles.Lookup lookup, final Class<?> recordType, final RecordComponent component)
    {
        final Method accessor = component.getAccessor();
        try
        {
            if (lookup != null)
            {
                return lookup.unreflect(accessor);
            }
            accessor.setAccessible(true);
            return LOOKUP.unreflect(accessor);
        }
        catch (final IllegalAccessException | RuntimeException ex)
        {
            throw inaccessible(recordType, ex);
        }
    }

    /**
     * @return the canonical constructor as a handle of type {@code (Object[])Object}, the array holding the boxed
     * component values in declaration order.
     */
    static MethodHandle constructor(
        final MethodHandles.Lookup lookup, final Class<?> recordType, final Class<?>[] parameterTypes)
    {
        final MethodHandle handle;
        try
        {
            if (lookup != null)
            {
                handle = lookup.findConstructor(recordType, MethodType.methodType(void.class, parameterTypes));
            }
            else
            {
                final Constructor<?> constructor = recordType.getDeclaredConstructor(parameterTypes);
                constructor.setAccessible(true);
                handle = LOOKUP.unreflectConstructor(constructor);
            }
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            throw inaccessible(recordType, ex);
        }
        return handle
            .asSpreader(Object[].class, parameterTypes.length)
            .asType(MethodType.methodType(Object.class, Object[].class));
    }

    static ToLongFunction<Object> longReader(
        final MethodHandles.Lookup lambdaLookup, final Class<?> recordType, final MethodHandle getter)
    {
        final ToLongFunction<Object> lambda =
            lambda(lambdaLookup, ToLongFunction.class, "applyAsLong", long.class, getter, recordType, long.class);
        if (lambda != null)
        {
            return lambda;
        }
        final MethodHandle handle = getter.asType(MethodType.methodType(long.class, Object.class));
        return record ->
        {
            try
            {
                return (long)handle.invokeExact(record);
            }
            catch (final Throwable ex)
            {
                throw propagate(ex);
            }
        };
    }

    /**
     * For {@code int}, and for {@code short}, {@code byte} and {@code char}, which are widened to {@code int}.
     */
    static ToIntFunction<Object> intReader(
        final MethodHandles.Lookup lambdaLookup, final Class<?> recordType, final MethodHandle getter)
    {
        final ToIntFunction<Object> lambda =
            lambda(lambdaLookup, ToIntFunction.class, "applyAsInt", int.class, getter, recordType, int.class);
        if (lambda != null)
        {
            return lambda;
        }
        final MethodHandle handle = getter.asType(MethodType.methodType(int.class, Object.class));
        return record ->
        {
            try
            {
                return (int)handle.invokeExact(record);
            }
            catch (final Throwable ex)
            {
                throw propagate(ex);
            }
        };
    }

    static ToDoubleFunction<Object> doubleReader(
        final MethodHandles.Lookup lambdaLookup, final Class<?> recordType, final MethodHandle getter)
    {
        final ToDoubleFunction<Object> lambda = lambda(
            lambdaLookup, ToDoubleFunction.class, "applyAsDouble", double.class, getter, recordType, double.class);
        if (lambda != null)
        {
            return lambda;
        }
        final MethodHandle handle = getter.asType(MethodType.methodType(double.class, Object.class));
        return record ->
        {
            try
            {
                return (double)handle.invokeExact(record);
            }
            catch (final Throwable ex)
            {
                throw propagate(ex);
            }
        };
    }

    static RecordCodec.ToFloatFunction<Object> floatReader(
        final MethodHandles.Lookup lambdaLookup, final Class<?> recordType, final MethodHandle getter)
    {
        final RecordCodec.ToFloatFunction<Object> lambda = lambda(
            lambdaLookup,
            RecordCodec.ToFloatFunction.class,
            "applyAsFloat",
            float.class,
            getter,
            recordType,
            float.class);
        if (lambda != null)
        {
            return lambda;
        }
        final MethodHandle handle = getter.asType(MethodType.methodType(float.class, Object.class));
        return record ->
        {
            try
            {
                return (float)handle.invokeExact(record);
            }
            catch (final Throwable ex)
            {
                throw propagate(ex);
            }
        };
    }

    static Predicate<Object> booleanReader(
        final MethodHandles.Lookup lambdaLookup, final Class<?> recordType, final MethodHandle getter)
    {
        final Predicate<Object> lambda =
            lambda(lambdaLookup, Predicate.class, "test", boolean.class, getter, recordType, boolean.class);
        if (lambda != null)
        {
            return lambda;
        }
        final MethodHandle handle = getter.asType(MethodType.methodType(boolean.class, Object.class));
        return record ->
        {
            try
            {
                return (boolean)handle.invokeExact(record);
            }
            catch (final Throwable ex)
            {
                throw propagate(ex);
            }
        };
    }

    /**
     * For reference components, and for primitive components whose codec is not the built-in one (the value is
     * boxed).
     */
    static Function<Object, Object> referenceReader(
        final MethodHandles.Lookup lambdaLookup, final Class<?> recordType, final MethodHandle getter)
    {
        final Class<?> boxedType = CodecSupport.boxed(getter.type().returnType());
        final Function<Object, Object> lambda =
            lambda(lambdaLookup, Function.class, "apply", Object.class, getter, recordType, boxedType);
        if (lambda != null)
        {
            return lambda;
        }
        final MethodHandle handle = getter.asType(MethodType.methodType(Object.class, Object.class));
        return record ->
        {
            try
            {
                return (Object)handle.invokeExact(record);
            }
            catch (final Throwable ex)
            {
                throw propagate(ex);
            }
        };
    }

    /**
     * Spins a lambda implementing {@code functionalInterface} whose single method takes the record (erased to
     * {@code Object}) and returns the component through {@code getter}.
     *
     * @return the function, or null when {@code lookup} is null or the metafactory cannot build it.
     */
    @SuppressWarnings("unchecked")
    private static <F> F lambda(
        final MethodHandles.Lookup lookup,
        final Class<?> functionalInterface,
        final String methodName,
        final Class<?> erasedReturnType,
        final MethodHandle getter,
        final Class<?> recordType,
        final Class<?> returnType)
    {
        if (lookup == null)
        {
            return null;
        }
        try
        {
            final CallSite site = LambdaMetafactory.metafactory(
                lookup,
                methodName,
                MethodType.methodType(functionalInterface),
                MethodType.methodType(erasedReturnType, Object.class),
                getter,
                MethodType.methodType(returnType, recordType));
            return (F)site.getTarget().invoke();
        }
        catch (final VirtualMachineError error)
        {
            throw error;
        }
        catch (final Throwable ex)
        {
            return null;
        }
    }

    private static RuntimeException propagate(final Throwable ex)
    {
        if (ex instanceof RuntimeException)
        {
            return (RuntimeException)ex;
        }
        if (ex instanceof Error)
        {
            throw (Error)ex;
        }
        return new IllegalStateException(ex);
    }

    private static IllegalArgumentException inaccessible(final Class<?> recordType, final Exception cause)
    {
        return new IllegalArgumentException(
            "cannot derive a codec for record " + recordType.getName() + ": its accessors or canonical constructor " +
            "are not accessible (if it is in a named module, open its package to io.ringflow.state)", cause);
    }
}
