package io.ringflow.state.codec;

import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;

/**
 * Thrown when no codec can be found or derived for a type that has to cross a ring channel or be stored in state.
 * The message names the type (and, for a record, the component that has no codec) and says how to fix it. Thrown
 * when a job is built, never while records flow.
 */
public final class MissingCodecException extends RuntimeException
{
    private final Class<?> type;
    private final boolean namesComponent;

    /**
     * @param message what has no codec and how to fix it.
     * @param type    the type that has no codec.
     */
    public MissingCodecException(final String message, final Class<?> type)
    {
        this(message, type, false);
    }

    private MissingCodecException(final String message, final Class<?> type, final boolean namesComponent)
    {
        super(message);
        this.type = type;
        this.namesComponent = namesComponent;
    }

    /**
     * @return the type that has no codec; for a record component, the component's type.
     */
    public Class<?> type()
    {
        return type;
    }

    static MissingCodecException forType(final Class<?> type)
    {
        return new MissingCodecException("no codec for type " + type.getTypeName() + "; " + howToFix(type), type);
    }

    /**
     * @param cause why the component's type has no codec; when it is itself about a nested record's component, the
     *              innermost failure is kept at the front of the message and this record is added as the path to it.
     */
    static MissingCodecException forComponent(
        final Class<?> recordType, final RecordComponent component, final MissingCodecException cause)
    {
        final String message;
        if (cause.namesComponent)
        {
            message = cause.getMessage() + " (reached from record " + recordType.getName() + " component '" +
                component.getName() + "')";
        }
        else
        {
            final Type genericType = component.getGenericType();
            final String typeName = genericType instanceof TypeVariable ?
                "type variable " + genericType.getTypeName() + " (erased to " + component.getType().getTypeName() +
                    "; generic record components need a concrete type)" :
                genericType.getTypeName();
            message = "record " + recordType.getName() + " component '" + component.getName() + "' of type " +
                typeName + " has no codec; " + howToFix(component.getType());
        }
        final MissingCodecException exception = new MissingCodecException(message, cause.type(), true);
        exception.initCause(cause);
        return exception;
    }

    private static String howToFix(final Class<?> type)
    {
        final String registration = "register one with the job's CodecRegistry (registry.register(" +
            type.getTypeName() + ".class, codec))";
        final boolean couldBeRecord = !type.isPrimitive() && !type.isArray() && !type.isInterface() &&
            !type.isAnnotation() && type != Object.class;
        return couldBeRecord ? registration + " or make " + type.getTypeName() + " a Java record" : registration;
    }
}
