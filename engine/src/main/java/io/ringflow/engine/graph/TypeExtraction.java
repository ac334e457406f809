package io.ringflow.engine.graph;

import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * Finds the concrete output type of a function at graph-build time, so the codec of every channel is chosen once,
 * before anything runs.
 *
 * <p>Two routes: a class that implements or extends the function type with concrete type arguments is read through
 * its generic supertypes; a lambda or method reference (whose functional interface is {@link java.io.Serializable})
 * is read from the instantiated signature of its {@link SerializedLambda}. Erased or generic results give
 * {@code null}: the caller then asks the user for {@code returns(Type.class)}.
 */
public final class TypeExtraction
{
    private TypeExtraction()
    {
    }

    /**
     * @param function      the function object.
     * @param functionType  the interface or abstract class it implements (e.g. {@code MapFunction.class}).
     * @param typeArgIndex  which type parameter of {@code functionType} is wanted.
     * @return the type argument as a class, or null when it cannot be known.
     */
    public static Class<?> typeArgument(final Object function, final Class<?> functionType, final int typeArgIndex)
    {
        return fromHierarchy(function.getClass(), functionType, typeArgIndex);
    }

    /**
     * @param lambda a lambda or method reference implementing a {@link java.io.Serializable} functional interface.
     * @return its return type as compiled, or null when it is not a lambda, is erased to Object, or is void.
     */
    public static Class<?> lambdaReturnType(final Object lambda)
    {
        final SerializedLambda serialized = serializedLambda(lambda);
        if (serialized == null)
        {
            return null;
        }
        final String signature = serialized.getInstantiatedMethodType();
        final String returnDescriptor = signature.substring(signature.indexOf(')') + 1);
        return classOf(returnDescriptor, lambda.getClass().getClassLoader());
    }

    /**
     * @param lambda       a lambda or method reference implementing a {@link java.io.Serializable} functional
     *                     interface.
     * @param paramIndex   which parameter.
     * @return the parameter type as compiled, or null when unknown.
     */
    public static Class<?> lambdaParameterType(final Object lambda, final int paramIndex)
    {
        final SerializedLambda serialized = serializedLambda(lambda);
        if (serialized == null)
        {
            return null;
        }
        final String signature = serialized.getInstantiatedMethodType();
        final String params = signature.substring(1, signature.indexOf(')'));
        int index = 0;
        int i = 0;
        while (i < params.length())
        {
            int end = i;
            while (params.charAt(end) == '[')
            {
                end++;
            }
            end = params.charAt(end) == 'L' ? params.indexOf(';', end) + 1 : end + 1;
            if (index == paramIndex)
            {
                return classOf(params.substring(i, end), lambda.getClass().getClassLoader());
            }
            index++;
            i = end;
        }
        return null;
    }

    private static SerializedLambda serializedLambda(final Object lambda)
    {
        final Class<?> type = lambda.getClass();
        if (!type.isSynthetic() && !type.getName().contains("$$Lambda"))
        {
            return null;
        }
        try
        {
            final Method writeReplace = type.getDeclaredMethod("writeReplace");
            writeReplace.setAccessible(true);
            final Object replacement = writeReplace.invoke(lambda);
            return replacement instanceof SerializedLambda ? (SerializedLambda)replacement : null;
        }
        catch (final ReflectiveOperationException | RuntimeException notSerializable)
        {
            return null;
        }
    }

    private static Class<?> classOf(final String descriptor, final ClassLoader loader)
    {
        switch (descriptor)
        {
            case "V": return null;
            case "Z": return Boolean.class;
            case "B": return Byte.class;
            case "C": return Character.class;
            case "S": return Short.class;
            case "I": return Integer.class;
            case "J": return Long.class;
            case "F": return Float.class;
            case "D": return Double.class;
            case "Ljava/lang/Object;": return null;
            default:
                try
                {
                    final String name = descriptor.startsWith("L") ?
                        descriptor.substring(1, descriptor.length() - 1).replace('/', '.') :
                        descriptor.replace('/', '.');
                    return Class.forName(name, false, loader);
                }
                catch (final ClassNotFoundException ex)
                {
                    return null;
                }
        }
    }

    private static Class<?> fromHierarchy(final Class<?> type, final Class<?> functionType, final int index)
    {
        if (type == null || type == Object.class)
        {
            return null;
        }
        for (final Type candidate : supertypes(type))
        {
            if (candidate instanceof ParameterizedType)
            {
                final ParameterizedType parameterized = (ParameterizedType)candidate;
                if (parameterized.getRawType() == functionType)
                {
                    return toClass(parameterized.getActualTypeArguments()[index]);
                }
            }
            if (candidate instanceof Class && functionType.isAssignableFrom((Class<?>)candidate))
            {
                final Class<?> found = fromHierarchy((Class<?>)candidate, functionType, index);
                if (found != null)
                {
                    return found;
                }
            }
            if (candidate instanceof ParameterizedType)
            {
                final Type raw = ((ParameterizedType)candidate).getRawType();
                if (raw instanceof Class && functionType.isAssignableFrom((Class<?>)raw) && raw != functionType)
                {
                    final Class<?> found = fromHierarchy((Class<?>)raw, functionType, index);
                    if (found != null)
                    {
                        return found;
                    }
                }
            }
        }
        return null;
    }

    private static Type[] supertypes(final Class<?> type)
    {
        final Type[] interfaces = type.getGenericInterfaces();
        final Type superclass = type.getGenericSuperclass();
        if (superclass == null)
        {
            return interfaces;
        }
        final Type[] all = new Type[interfaces.length + 1];
        all[0] = superclass;
        System.arraycopy(interfaces, 0, all, 1, interfaces.length);
        return all;
    }

    private static Class<?> toClass(final Type type)
    {
        if (type instanceof Class)
        {
            return (Class<?>)type;
        }
        if (type instanceof ParameterizedType)
        {
            return (Class<?>)((ParameterizedType)type).getRawType();
        }
        // a type variable or wildcard: erased, unknown here
        return null;
    }
}
