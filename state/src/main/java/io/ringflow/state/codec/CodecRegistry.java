package io.ringflow.state.codec;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the {@link Codec} for a type. A job owns one registry: user code registers codecs for its own types while
 * the job is being built; the job then looks codecs up, which freezes the registry.
 *
 * <p>Lookup order for {@link #codecFor}:
 * <ol>
 *   <li>a codec registered with {@link #register} for exactly that type;</li>
 *   <li>the built-ins: {@link LongCodec}, {@link IntegerCodec}, {@link ShortCodec}, {@link ByteCodec},
 *   {@link DoubleCodec}, {@link FloatCodec}, {@link BooleanCodec}, {@link CharacterCodec}, {@link StringCodec},
 *   {@link ByteArrayCodec}. A primitive class and its wrapper share one codec: {@code codecFor(long.class)} returns
 *   the codec for {@code Long};</li>
 *   <li>an {@link EnumCodec} for enum classes;</li>
 *   <li>a {@link RecordCodec} derived from a record class, its components resolved through this same registry;</li>
 *   <li>otherwise {@link MissingCodecException}.</li>
 * </ol>
 * Only exact types match: a codec registered for an interface is not used for its implementations.
 *
 * <p>Thread-safety: every method may be called from any thread. {@link #register} is accepted only until the first
 * lookup ({@link #codecFor}, {@link #hasCodec} or {@link RecordCodec#of(Class, CodecRegistry)}); after that the
 * registry is frozen, so a codec handed out, or built into a derived record codec, never changes. Lookups of a type
 * already resolved are a single {@link ConcurrentHashMap} read and allocate nothing; the first lookup of an enum or
 * record type creates its codec under a lock, once, and caches it.
 */
public final class CodecRegistry
{
    private static final Map<Class<?>, Codec<?>> BUILT_INS = Map.ofEntries(
        Map.entry(Long.class, LongCodec.INSTANCE),
        Map.entry(Integer.class, IntegerCodec.INSTANCE),
        Map.entry(Short.class, ShortCodec.INSTANCE),
        Map.entry(Byte.class, ByteCodec.INSTANCE),
        Map.entry(Double.class, DoubleCodec.INSTANCE),
        Map.entry(Float.class, FloatCodec.INSTANCE),
        Map.entry(Boolean.class, BooleanCodec.INSTANCE),
        Map.entry(Character.class, CharacterCodec.INSTANCE),
        Map.entry(String.class, StringCodec.INSTANCE),
        Map.entry(byte[].class, ByteArrayCodec.INSTANCE));

    private final Object lock = new Object();
    /** Resolved codecs by (boxed) type: built-ins, registered, and every enum or record codec created so far. */
    private final ConcurrentHashMap<Class<?>, Codec<?>> codecs = new ConcurrentHashMap<>(BUILT_INS);
    /** Derived record codecs, including those for record types that also have a registered codec. */
    private final ConcurrentHashMap<Class<?>, RecordCodec<?>> records = new ConcurrentHashMap<>();
    /** Types registered by the user; guarded by {@link #lock}. */
    private final Set<Class<?>> registered = new HashSet<>();
    private final boolean lambdaAccessors;
    private volatile boolean frozen;

    private CodecRegistry(final boolean lambdaAccessors)
    {
        this.lambdaAccessors = lambdaAccessors;
    }

    /**
     * @return a new, empty registry that knows the built-in codecs, enums and records.
     */
    public static CodecRegistry withBuiltIns()
    {
        return new CodecRegistry(true);
    }

    /**
     * For tests: a registry whose record codecs read components through plain method handles, the fallback used when
     * {@link java.lang.invoke.LambdaMetafactory} cannot be used for a record class.
     */
    static CodecRegistry withMethodHandleAccessors()
    {
        return new CodecRegistry(false);
    }

    /**
     * Registers {@code codec} for exactly {@code type}, ahead of any built-in or derived codec. Registering for a
     * primitive class registers for its wrapper as well: they share one codec.
     *
     * @param type  the type, as record components and channels declare it.
     * @param codec its codec; {@code codec.type()} must be {@code type} (or its wrapper).
     * @param <T>   the type.
     * @return this registry.
     * @throws IllegalStateException    when the registry has already been used for a lookup.
     * @throws IllegalArgumentException when a codec is already registered for {@code type}, or {@code codec} encodes
     *                                  another type.
     */
    public <T> CodecRegistry register(final Class<T> type, final Codec<T> codec)
    {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(codec, "codec");
        final Class<?> key = CodecSupport.boxed(type);
        final Class<?> codecType = codec.type();
        if (codecType == null || CodecSupport.boxed(codecType) != key)
        {
            throw new IllegalArgumentException("codec " + codec + " encodes " +
                (codecType == null ? "null" : codecType.getTypeName()) + ", not " + type.getTypeName());
        }

        synchronized (lock)
        {
            if (frozen)
            {
                throw new IllegalStateException("cannot register a codec for " + type.getTypeName() +
                    ": this CodecRegistry has already been used; register every codec before the job starts");
            }
            if (!registered.add(key))
            {
                throw new IllegalArgumentException(
                    "a codec for " + key.getTypeName() + " is already registered: " + codecs.get(key));
            }
            codecs.put(key, codec);
        }
        return this;
    }

    /**
     * Returns the codec for {@code type}, creating and caching it on first use (see the class comment for the order).
     * Freezes the registry.
     *
     * @param type the type; a primitive class gets its wrapper's codec.
     * @param <T>  the type.
     * @return the codec, the same instance on every call.
     * @throws MissingCodecException when there is no codec for {@code type} or, for a record, for one of its
     *                               components.
     */
    @SuppressWarnings("unchecked")
    public <T> Codec<T> codecFor(final Class<T> type)
    {
        Objects.requireNonNull(type, "type");
        freeze();
        final Class<?> key = CodecSupport.boxed(type);
        final Codec<?> codec = codecs.get(key);
        return (Codec<T>)(codec != null ? codec : resolve(key));
    }

    /**
     * Whether {@link #codecFor} would succeed for {@code type}. Freezes the registry, and for an enum or record type
     * creates and caches its codec.
     *
     * @param type the type.
     * @return false exactly when {@link #codecFor} would throw {@link MissingCodecException}.
     */
    public boolean hasCodec(final Class<?> type)
    {
        try
        {
            codecFor(type);
            return true;
        }
        catch (final MissingCodecException ex)
        {
            return false;
        }
    }

    @Override
    public String toString()
    {
        return "CodecRegistry{resolved=" + codecs.size() + ", frozen=" + frozen + "}";
    }

    /**
     * The codec derived from {@code type}'s components, even when a codec is registered for {@code type} itself.
     */
    @SuppressWarnings("unchecked")
    <T extends Record> RecordCodec<T> recordCodec(final Class<T> type)
    {
        Objects.requireNonNull(type, "type");
        freeze();
        final RecordCodec<?> codec = records.get(type);
        if (codec != null)
        {
            return (RecordCodec<T>)codec;
        }
        synchronized (lock)
        {
            final Map<Class<?>, RecordCodec<?>> inProgress = new LinkedHashMap<>();
            final RecordCodec<?> derived = deriveLocked(type, inProgress);
            publishLocked(inProgress);
            return (RecordCodec<T>)derived;
        }
    }

    /**
     * Resolves the codec for a record component's type while a record codec is being derived; called back by
     * {@link RecordCodec} with the lock held.
     */
    Codec<?> resolveLocked(final Class<?> key, final Map<Class<?>, RecordCodec<?>> inProgress)
    {
        final Codec<?> known = codecs.get(key);
        final RecordCodec<?> derived = records.get(key);
        if (derived != null && known == derived.preferred())
        {
            // Components see the record codec itself (nested inline), never its spun fast path.
            return derived;
        }
        if (known != null)
        {
            return known;
        }
        if (key.isEnum())
        {
            final Codec<?> codec = enumCodec(key);
            codecs.put(key, codec);
            return codec;
        }
        if (key.isRecord())
        {
            return deriveLocked(key.asSubclass(Record.class), inProgress);
        }
        throw MissingCodecException.forType(key);
    }

    /**
     * @return whether {@code codec} is one of the built-in codecs (not a registered replacement).
     */
    static boolean isBuiltIn(final Codec<?> codec)
    {
        final Class<?> type = codec.type();
        return type != null && BUILT_INS.get(type) == codec;
    }

    boolean lambdaAccessors()
    {
        return lambdaAccessors;
    }

    private Codec<?> resolve(final Class<?> key)
    {
        synchronized (lock)
        {
            final Map<Class<?>, RecordCodec<?>> inProgress = new LinkedHashMap<>();
            final Codec<?> codec = resolveLocked(key, inProgress);
            publishLocked(inProgress);
            // what codecFor hands out from now on (for a record of primitives, its spun fast path)
            final Codec<?> published = codecs.get(key);
            return published != null ? published : codec;
        }
    }

    /**
     * Returns the record codec for {@code type}, deriving it if needed. A record codec is registered in
     * {@code inProgress} before its components are resolved, so records that refer to themselves, directly or
     * through other records, get the codec that is being built. Nothing is published until the outermost derivation
     * has succeeded, so a failure leaves no half-built codec behind.
     */
    private RecordCodec<?> deriveLocked(
        final Class<? extends Record> type, final Map<Class<?>, RecordCodec<?>> inProgress)
    {
        final RecordCodec<?> known = records.get(type);
        if (known != null)
        {
            return known;
        }
        final RecordCodec<?> building = inProgress.get(type);
        if (building != null)
        {
            return building;
        }
        final RecordCodec<?> codec = new RecordCodec<>(type);
        inProgress.put(type, codec);
        codec.initialize(this, inProgress);
        return codec;
    }

    private void publishLocked(final Map<Class<?>, RecordCodec<?>> derived)
    {
        for (final Map.Entry<Class<?>, RecordCodec<?>> entry : derived.entrySet())
        {
            records.put(entry.getKey(), entry.getValue());
            codecs.putIfAbsent(entry.getKey(), entry.getValue().preferred());
        }
    }

    private void freeze()
    {
        if (!frozen)
        {
            synchronized (lock)
            {
                frozen = true;
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Codec<?> enumCodec(final Class<?> type)
    {
        return EnumCodec.of((Class)type);
    }
}
