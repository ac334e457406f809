package io.ringflow.engine.runtime.task;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Private copies of the engine's record-path classes, one per place in a job, so the JIT can inline a whole chain.
 *
 * <p>Why: a call site in a class shared by every chain of the JVM ({@code output.collect} in a map operator,
 * {@code codec.decode} in an input) sees the receiver classes of every chain and becomes megamorphic: the JIT then
 * compiles a virtual call it cannot inline, and no record can be scalar-replaced across it. A copy is the same bytecode
 * defined again as a hidden class ({@link MethodHandles.Lookup#defineHiddenClass}): its call sites have their own
 * profiles, which see only the classes of the one place it serves, so each is monomorphic and inlined. Nothing is
 * generated; behaviour is the template's exactly (the general path is the template itself, which is how a copy is
 * tested against it).
 *
 * <p>What a template must be (checked by the tests that copy every template): a top-level final class; no lambda,
 * inner or anonymous class that names it (their code would refer to the template, not the copy); no static state
 * (each copy has its own); never named in an {@code instanceof} or a cast by other code (a copy is not an instance of
 * the template, only of its supertypes). Copies are made once per operator or edge of a deployed job and shared by its
 * subtasks; they are unloaded with the job.
 *
 * <p>When a copy cannot be made (the template's bytes cannot be read, the class cannot be defined), the template
 * itself is used, the general path, and that is logged once per template: a job never fails for it.
 *
 * <p>Thread contract: thread-safe; used by the deploying thread.
 */
public final class ClassCopies
{
    private static final System.Logger LOG = System.getLogger(ClassCopies.class.getName());
    private static final Map<Class<?>, byte[]> BYTES = new ConcurrentHashMap<>();
    private static final Set<Class<?>> WARNED = ConcurrentHashMap.newKeySet();

    private final boolean enabled;

    /** @param enabled false for the general path: {@link #instantiate} then makes instances of the templates. */
    public ClassCopies(final boolean enabled)
    {
        this.enabled = enabled;
    }

    /** @return whether copies are made (the specialised path) or the templates used (the general path). */
    public boolean enabled()
    {
        return enabled;
    }

    /**
     * @param template a record-path class of the engine (see the class comment for what it must be).
     * @param <T>      its type.
     * @return a new hidden copy of it, or the template itself when copies are off or one cannot be made.
     */
    @SuppressWarnings("unchecked")
    public <T> Class<? extends T> copyOf(final Class<T> template)
    {
        if (!enabled)
        {
            return template;
        }
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(template, MethodHandles.lookup());
            return (Class<? extends T>)lookup.defineHiddenClass(bytesOf(template), true).lookupClass();
        }
        catch (final IOException | IllegalAccessException | LinkageError | RuntimeException ex)
        {
            if (WARNED.add(template))
            {
                LOG.log(Level.INFO, "records through " + template.getName() + " take the general path: no private " +
                    "copy of it could be made (" + ex + ")");
            }
            return template;
        }
    }

    /**
     * Creates an instance of a copy of {@code template} (or of the template itself, see {@link #copyOf}), typed as
     * one of its supertypes: a copy is not an instance of the template, so it is only ever seen as the supertype.
     *
     * @param supertype what the caller sees the instance as: an interface or an abstract class the template extends.
     * @param template  the template.
     * @param arguments its only constructor's arguments.
     * @param <S>       the supertype.
     * @return the instance.
     */
    public <S> S instantiate(final Class<S> supertype, final Class<? extends S> template, final Object... arguments)
    {
        return construct(supertype, copyOf(template), arguments);
    }

    /**
     * @param supertype what the caller sees the instance as.
     * @param type      a template or a copy of one.
     * @param arguments its only constructor's arguments.
     * @param <S>       the supertype.
     * @return a new instance.
     */
    public static <S> S construct(final Class<S> supertype, final Class<?> type, final Object... arguments)
    {
        final Constructor<?>[] constructors = type.getDeclaredConstructors();
        if (constructors.length != 1)
        {
            throw new IllegalArgumentException(type.getName() + " must have exactly one constructor to be copied");
        }
        try
        {
            constructors[0].setAccessible(true);
            return supertype.cast(constructors[0].newInstance(arguments));
        }
        catch (final InvocationTargetException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException runtime)
            {
                throw runtime;
            }
            if (cause instanceof Error error)
            {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("cannot create " + type.getName(), ex);
        }
    }

    private static byte[] bytesOf(final Class<?> template) throws IOException
    {
        final byte[] cached = BYTES.get(template);
        if (cached != null)
        {
            return cached;
        }
        final String resource = template.getName().replace('.', '/') + ".class";
        final ClassLoader loader = template.getClassLoader();
        try (InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(resource) :
            loader.getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new IOException("the class file " + resource + " is not readable from its class loader");
            }
            final byte[] bytes = in.readAllBytes();
            BYTES.put(template, bytes);
            return bytes;
        }
    }
}
