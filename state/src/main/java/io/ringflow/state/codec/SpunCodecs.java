package io.ringflow.state.codec;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the spun record codecs ({@link FixedLayoutRecordCodec}, {@link DelimitedLayoutRecordCodec}) share: one codec
 * class per record type in the JVM, whichever layout spun it, and the bytes of the templates they define again.
 * Thread-safe.
 */
final class SpunCodecs
{
    /** The codec spun for each record type; collected with the type. */
    private static final ClassValue<AtomicReference<Codec<?>>> SPUN = new ClassValue<>()
    {
        @Override
        protected AtomicReference<Codec<?>> computeValue(final Class<?> type)
        {
            return new AtomicReference<>();
        }
    };

    private SpunCodecs()
    {
    }

    /** Spins a codec class for a record type. */
    @FunctionalInterface
    interface Spinner
    {
        /**
         * @return the spun codec, or null when the type does not suit the layout.
         * @throws ReflectiveOperationException when the hidden class cannot be defined.
         */
        Codec<?> spin() throws ReflectiveOperationException;
    }

    /**
     * @param type    the record class.
     * @param spinner spins its codec, called unless one was spun before; two threads may both spin, one result wins.
     * @param <T>     the record type.
     * @return the codec spun for the type the first time, or null when the spinner returns null (nothing is kept).
     * @throws ReflectiveOperationException from the spinner.
     */
    @SuppressWarnings("unchecked")
    static <T> Codec<T> sharedFor(final Class<T> type, final Spinner spinner) throws ReflectiveOperationException
    {
        final AtomicReference<Codec<?>> shared = SPUN.get(type);
        final Codec<?> existing = shared.get();
        if (existing != null)
        {
            return (Codec<T>)existing;
        }
        final Codec<?> spun = spinner.spin();
        if (spun == null || shared.compareAndSet(null, spun))
        {
            return (Codec<T>)spun;
        }
        return (Codec<T>)shared.get();
    }

    /**
     * @param template a template class, in this package.
     * @return its class file's bytes, to define again as hidden classes.
     * @throws ExceptionInInitializerError when they cannot be read (the caller's static initialiser fails with it).
     */
    static byte[] templateBytes(final Class<?> template)
    {
        final String resource = template.getSimpleName() + ".class";
        try (InputStream in = template.getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            return in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }
}
