package io.ringflow.engine.api;

import io.ringflow.state.keyed.ReduceFunction;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * The reduce function behind {@code KeyedStream.sum/min/max/minBy/maxBy}: folds one numeric field (a component of a
 * Java record, or the value itself for a stream of numbers) as Flink's keyed aggregations do.
 * <ul>
 *   <li>{@code sum}, {@code min}, {@code max}: the result is the key's first record with that field replaced by the
 *       sum, minimum or maximum so far (the other fields stay those of the first record);</li>
 *   <li>{@code minBy}, {@code maxBy}: the result is the record holding the minimum or maximum so far (the earlier one
 *       on a tie).</li>
 * </ul>
 * Built once, when the job is described: an unknown field, or one that is not numeric, is an
 * {@link InvalidJobException} then. Immutable; thread-safe.
 *
 * @param <T> the record type.
 */
final class FieldAggregation<T> implements ReduceFunction<T>
{
    /** What to fold. */
    enum Kind
    {
        SUM, MIN, MAX, MIN_BY, MAX_BY
    }

    private final Kind kind;
    private final String field;
    private final Class<?> fieldType;
    /** (T) field value, boxed; null for a stream of numbers (the value is the field). */
    private final MethodHandle getter;
    /** (Object[]) T: the canonical constructor spread; null for a stream of numbers. */
    private final MethodHandle constructor;
    private final MethodHandle[] components;
    private final int fieldIndex;

    private FieldAggregation(final Kind kind, final String field, final Class<?> fieldType, final MethodHandle getter,
        final MethodHandle constructor, final MethodHandle[] components, final int fieldIndex)
    {
        this.kind = kind;
        this.field = field;
        this.fieldType = fieldType;
        this.getter = getter;
        this.constructor = constructor;
        this.components = components;
        this.fieldIndex = fieldIndex;
    }

    /**
     * @param kind  what to fold.
     * @param type  the stream's record type: a Java record, or a boxed number ({@code Long}, {@code Integer},
     *              {@code Double}, ...) when {@code field} is null.
     * @param field the record component to fold, or null for a stream of numbers.
     * @param <T>   the record type.
     * @return the reduce function.
     * @throws InvalidJobException when the type is unknown, the field does not exist, or it is not numeric.
     */
    static <T> FieldAggregation<T> of(final Kind kind, final Class<T> type, final String field)
    {
        final String what = kind.name().toLowerCase(Locale.ROOT).replace("_by", "By") +
            (field == null ? "()" : "(\"" + field + "\")");
        if (type == null)
        {
            throw new InvalidJobException(what + " needs the stream's record type: declare it with returns(...)");
        }
        if (field == null)
        {
            if (!isNumber(type))
            {
                throw new InvalidJobException(what + " without a field needs a stream of numbers, not of " +
                    type.getName() + "; name a record component, e.g. sum(\"count\")");
            }
            return new FieldAggregation<>(kind, null, type, null, null, null, -1);
        }
        if (!type.isRecord())
        {
            throw new InvalidJobException(what + " names a field of " + type.getName() + ", which is not a Java " +
                "record: use reduce(...) for other types");
        }
        final RecordComponent[] recordComponents = type.getRecordComponents();
        final MethodHandles.Lookup lookup;
        try
        {
            lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
        }
        catch (final IllegalAccessException ex)
        {
            throw new InvalidJobException(what + ": cannot read the components of " + type.getName() + " (" +
                ex.getMessage() + ")", ex);
        }
        final MethodHandle[] getters = new MethodHandle[recordComponents.length];
        final Class<?>[] componentTypes = new Class<?>[recordComponents.length];
        int index = -1;
        try
        {
            for (int i = 0; i < recordComponents.length; i++)
            {
                componentTypes[i] = recordComponents[i].getType();
                getters[i] = lookup.unreflect(recordComponents[i].getAccessor())
                    .asType(MethodType.methodType(Object.class, Object.class));
                if (recordComponents[i].getName().equals(field))
                {
                    index = i;
                }
            }
            if (index < 0)
            {
                throw new InvalidJobException(what + ": " + type.getName() + " has no component '" + field +
                    "'; its components are " + Arrays.stream(recordComponents).map(RecordComponent::getName).toList());
            }
            if (!isNumber(componentTypes[index]))
            {
                throw new InvalidJobException(what + ": component '" + field + "' of " + type.getName() + " is a " +
                    componentTypes[index].getName() + ", not a number");
            }
            final MethodHandle canonical = lookup.findConstructor(type, MethodType.methodType(void.class,
                componentTypes));
            return new FieldAggregation<>(kind, field, componentTypes[index], getters[index],
                canonical.asSpreader(Object[].class, componentTypes.length)
                    .asType(MethodType.methodType(Object.class, Object[].class)), getters, index);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new InvalidJobException(what + ": cannot use the components of " + type.getName() + " (" +
                ex.getMessage() + ")", ex);
        }
    }

    private static boolean isNumber(final Class<?> type)
    {
        return type == long.class || type == int.class || type == short.class || type == byte.class ||
            type == double.class || type == float.class || type == Long.class || type == Integer.class ||
            type == Short.class || type == Byte.class || type == Double.class || type == Float.class;
    }

    /** @return a default name for the operator, e.g. {@code Sum(count)}. */
    String operatorName()
    {
        final String name = switch (kind)
        {
            case SUM -> "Sum";
            case MIN -> "Min";
            case MAX -> "Max";
            case MIN_BY -> "MinBy";
            case MAX_BY -> "MaxBy";
        };
        return field == null ? name : name + "(" + field + ")";
    }

    @Override
    @SuppressWarnings("unchecked")
    public T reduce(final T accumulated, final T value)
    {
        final Number a = (Number)fieldOf(accumulated);
        final Number b = (Number)fieldOf(value);
        if (a == null || b == null)
        {
            throw new NullPointerException("field '" + field + "' of a record to " + operatorName() + " is null");
        }
        final int order = compare(a, b);
        switch (kind)
        {
            case MIN_BY:
                return order <= 0 ? accumulated : value;
            case MAX_BY:
                return order >= 0 ? accumulated : value;
            case MIN:
                return order <= 0 ? accumulated : withField(accumulated, b);
            case MAX:
                return order >= 0 ? accumulated : withField(accumulated, b);
            case SUM:
                return withField(accumulated, add(a, b));
            default:
                throw new IllegalStateException("unknown aggregation " + kind);
        }
    }

    private Object fieldOf(final T record)
    {
        if (getter == null)
        {
            return record;
        }
        try
        {
            return getter.invokeExact((Object)record);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @SuppressWarnings("unchecked")
    private T withField(final T record, final Number value)
    {
        final Object converted = convert(value);
        if (constructor == null)
        {
            return (T)converted;
        }
        final Object[] arguments = new Object[components.length];
        try
        {
            for (int i = 0; i < components.length; i++)
            {
                arguments[i] = i == fieldIndex ? converted : components[i].invokeExact((Object)record);
            }
            return (T)constructor.invokeExact(arguments);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static boolean isFloating(final Number n)
    {
        return n instanceof Double || n instanceof Float;
    }

    private static int compare(final Number a, final Number b)
    {
        return isFloating(a) || isFloating(b) ? Double.compare(a.doubleValue(), b.doubleValue()) :
            Long.compare(a.longValue(), b.longValue());
    }

    private static Number add(final Number a, final Number b)
    {
        return isFloating(a) || isFloating(b) ? (Number)(a.doubleValue() + b.doubleValue()) :
            (Number)Math.addExact(a.longValue(), b.longValue());
    }

    /** @return {@code value} as the field's own type (a sum of ints stays an int, overflow checked). */
    private Object convert(final Number value)
    {
        final Class<?> t = fieldType;
        if (t == long.class || t == Long.class)
        {
            return value.longValue();
        }
        if (t == int.class || t == Integer.class)
        {
            return Math.toIntExact(value.longValue());
        }
        if (t == short.class || t == Short.class)
        {
            final long v = value.longValue();
            if (v != (short)v)
            {
                throw new ArithmeticException("short overflow in " + operatorName() + ": " + v);
            }
            return (short)v;
        }
        if (t == byte.class || t == Byte.class)
        {
            final long v = value.longValue();
            if (v != (byte)v)
            {
                throw new ArithmeticException("byte overflow in " + operatorName() + ": " + v);
            }
            return (byte)v;
        }
        if (t == double.class || t == Double.class)
        {
            return value.doubleValue();
        }
        return value.floatValue();
    }

    @Override
    public String toString()
    {
        return operatorName();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof FieldAggregation<?> that && kind == that.kind && Objects.equals(field, that.field) &&
            fieldType == that.fieldType;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(kind, field, fieldType);
    }
}
