package io.ringflow.engine.runtime.task;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Private copies of the engine's record-path classes, one per shape of a place in a job, so the JIT can inline a
 * whole chain.
 *
 * <p>Why: a call site in a class shared by every chain of the JVM ({@code output.collect} in a map operator,
 * {@code codec.decode} in an input) sees the receiver classes of every chain and becomes megamorphic: the JIT then
 * compiles a virtual call it cannot inline, and no record can be scalar-replaced across it. A copy is the same bytecode
 * defined again as a hidden class ({@link MethodHandles.Lookup#defineHiddenClass}): its call sites have their own
 * profiles, which see only the classes of the places it serves, so each is monomorphic and inlined. Nothing is
 * generated; behaviour is the template's exactly (the general path is the template itself, which is how a copy is
 * tested against it).
 *
 * <p>Shapes: {@link #copyFor} keys a copy by its template and the classes of its collaborators (the objects its call
 * sites call: a user function, a codec, the next operator, itself a copy keyed the same way). Places of the same
 * shape, in one job or in successive jobs and restarted attempts of the JVM, share one copy, so code the JIT compiled
 * for a job is still valid for the next attempt of it. The cache holds its key classes weakly: a copy never keeps a
 * user's classes (or their class loader) alive. A shape got wrong costs speed only, never correctness: a shared copy
 * that sees several classes is as fast as the template.
 *
 * <p>What a template must be (checked by the tests that copy every template): a top-level final class with one
 * constructor; no inner or anonymous class that names it (their code would refer to the template, not the copy); no
 * static state (each copy has its own); never named in an {@code instanceof} or a cast by other code (a copy is not an
 * instance of the template, only of its supertypes).
 *
 * <p>When a copy cannot be made (the template's bytes cannot be read, the class cannot be defined), the template
 * itself is used, the general path, and that is logged once per template: a job never fails for it.
 *
 * <p>Thread contract: thread-safe; used by deploying threads, and by task threads for their loops ({@link TaskLoops}).
 */
public final class ClassCopies
{
    private static final System.Logger LOG = System.getLogger(ClassCopies.class.getName());
    private static final Map<Class<?>, byte[]> BYTES = new ConcurrentHashMap<>();
    private static final Set<Class<?>> WARNED = ConcurrentHashMap.newKeySet();
    /** Copies by shape, JVM-wide; an entry goes when one of its key classes is collected. */
    private static final Map<Shape, Class<?>> BY_SHAPE = new ConcurrentHashMap<>();
    private static final ReferenceQueue<Class<?>> COLLECTED = new ReferenceQueue<>();

    private final boolean enabled;

    /** @param enabled false for the general path: {@link #copyFor} then returns the templates themselves. */
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
     * @param template      a record-path class of the engine (see the class comment for what it must be).
     * @param collaborators what the instances' call sites will call, or the classes thereof: each contributes its
     *                      class (a {@code Class} itself, an array each element's class, null nothing).
     * @param <T>           the template's type.
     * @return the copy of {@code template} for this shape: made at the first request, shared afterwards; the template
     *     itself when copies are off or one cannot be made.
     */
    @SuppressWarnings("unchecked")
    public <T> Class<? extends T> copyFor(final Class<T> template, final Object... collaborators)
    {
        if (!enabled)
        {
            return template;
        }
        purgeCollected();
        final List<Class<?>> classes = new ArrayList<>();
        classes.add(template);
        for (final Object collaborator : collaborators)
        {
            addClassesOf(collaborator, classes);
        }
        return (Class<? extends T>)BY_SHAPE.computeIfAbsent(new Shape(classes), shape -> copyOf(template));
    }

    private static void addClassesOf(final Object collaborator, final List<Class<?>> into)
    {
        if (collaborator == null)
        {
            into.add(Void.class);
        }
        else if (collaborator instanceof Class<?> type)
        {
            into.add(type);
        }
        else if (collaborator instanceof Object[] array)
        {
            into.add(array.getClass());
            for (final Object element : array)
            {
                addClassesOf(element, into);
            }
        }
        else
        {
            into.add(collaborator.getClass());
        }
    }

    private static void purgeCollected()
    {
        Reference<? extends Class<?>> collected;
        while ((collected = COLLECTED.poll()) != null)
        {
            BY_SHAPE.remove(((ShapeRef)collected).shape);
        }
    }

    /**
     * @param template a record-path class of the engine or {@link TaskLoop} (see the class comment for what it must
     *                 be).
     * @param <T>      its type.
     * @return a new hidden copy of it, never shared, or the template itself when copies are off or one cannot be made.
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
                LOG.log(Level.INFO, template.getName() + " is used as it is, shared (the general path): no private " +
                    "copy of it could be made (" + ex + ")");
            }
            return template;
        }
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

    /** A template and the classes of its collaborators, compared by identity, held weakly. */
    private static final class Shape
    {
        private final ShapeRef[] classes;
        private final int hash;

        Shape(final List<Class<?>> classes)
        {
            this.classes = new ShapeRef[classes.size()];
            int hash = 1;
            for (int i = 0; i < this.classes.length; i++)
            {
                final Class<?> type = classes.get(i);
                this.classes[i] = new ShapeRef(type, this);
                hash = 31 * hash + System.identityHashCode(type);
            }
            this.hash = hash;
        }

        @Override
        public int hashCode()
        {
            return hash;
        }

        @Override
        public boolean equals(final Object other)
        {
            if (!(other instanceof Shape shape) || shape.hash != hash || shape.classes.length != classes.length)
            {
                return false;
            }
            for (int i = 0; i < classes.length; i++)
            {
                final Class<?> mine = classes[i].get();
                // a collected class equals nothing: its entry is about to be purged
                if (mine == null || mine != shape.classes[i].get())
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** A weak reference to one class of a shape; when it is cleared, the shape's entry goes. */
    private static final class ShapeRef extends WeakReference<Class<?>>
    {
        private final Shape shape;

        ShapeRef(final Class<?> type, final Shape shape)
        {
            super(type, COLLECTED);
            this.shape = shape;
        }
    }
}
