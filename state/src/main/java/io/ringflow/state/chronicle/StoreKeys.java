package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;

/**
 * One store's keys: the current key (set boxed or unboxed, encoded in {@link StoredKeyLayout} once, at the first state
 * access that needs its bytes) and the store's one key type and codec, fixed by the first key encoded or restored.
 *
 * <p>Invariant: every key encoded by the store is of {@link #keyClass()}, encoded by {@link #keyCodec()}; a key of
 * another type is refused before anything is encoded, because bytes of different types could collide.
 *
 * <p>Thread contract: the store's task thread.
 */
final class StoreKeys
{
    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final int maxEntrySize;
    private final EncodedBytes currentKeyBytes;
    private Object currentKey;
    /** The current key when set unboxed ({@link #longKey}); {@link #currentKey} is its box once one was made. */
    private long currentLongKey;
    private boolean longKey;
    /** The current key's key group when the caller gave it, else -1 (computed when the key is encoded). */
    private int currentKeyGroup = -1;
    private boolean currentKeyEncoded;
    private Class<?> keyClass;
    private Codec<Object> keyCodec;

    /**
     * @param codecs         codecs for keys.
     * @param maxParallelism the job's number of key groups.
     * @param maxEntrySize   the largest encoded key plus value.
     */
    StoreKeys(final CodecRegistry codecs, final int maxParallelism, final int maxEntrySize)
    {
        this.codecs = codecs;
        this.maxParallelism = maxParallelism;
        this.maxEntrySize = maxEntrySize;
        this.currentKeyBytes = new EncodedBytes(Math.min(64, maxEntrySize + StoredKeyLayout.KEY_OFFSET));
    }

    /**
     * @param key      the current key, or null for none.
     * @param keyGroup its key group, or -1 to compute it when the key is encoded.
     */
    void set(final Object key, final int keyGroup)
    {
        currentKey = key;
        longKey = false;
        currentKeyGroup = keyGroup;
        currentKeyEncoded = false;
    }

    /**
     * @param key      the current key, unboxed.
     * @param keyGroup its key group.
     */
    void set(final long key, final int keyGroup)
    {
        currentKey = null;
        currentLongKey = key;
        longKey = true;
        currentKeyGroup = keyGroup;
        currentKeyEncoded = false;
    }

    /** @return the current key, boxed at most once per key when it was set unboxed; null when there is none. */
    Object currentKey()
    {
        if (longKey && currentKey == null)
        {
            // boxed once per record at most, and only off the unboxed paths (a front miss, another state kind)
            currentKey = currentLongKey;
        }
        return currentKey;
    }

    /** @return whether the current key, set unboxed, was boxed since (for tests: the unboxed paths box nothing). */
    boolean currentKeyBoxed()
    {
        return longKey && currentKey != null;
    }

    /** @return whether the current key was set unboxed: {@link #currentLongKey()} is it. */
    boolean hasLongKey()
    {
        return longKey;
    }

    /** @return the current key, set unboxed; valid when {@link #hasLongKey()}. */
    long currentLongKey()
    {
        return currentLongKey;
    }

    /** @return the type of every key of the store, or null before the first. */
    Class<?> keyClass()
    {
        return keyClass;
    }

    /** @return the codec of {@link #keyClass()}, or null before the first key. */
    Codec<Object> keyCodec()
    {
        return keyCodec;
    }

    /**
     * The current key in {@link StoredKeyLayout}, encoded once per key set.
     *
     * @param stateName the state asking, for messages.
     * @return the encoded current key; valid until the next key is set.
     * @throws IllegalStateException    when there is no current key, or its type differs from the store's keys.
     * @throws IllegalArgumentException when the key encodes to more than the maximum entry size.
     */
    EncodedBytes encodedCurrentKey(final String stateName)
    {
        if (!currentKeyEncoded)
        {
            if (longKey && currentKey == null && currentKeyGroup >= 0 && keyClass == Long.class &&
                keyCodec == (Codec<?>)LongCodec.INSTANCE && maxEntrySize >= Long.BYTES)
            {
                // a Long set unboxed, of the built-in codec: its bytes as LongCodec writes them, with no key object
                // (a state that misses its hot-key front, at a large state nearly every record, reads and writes
                // the map by this key)
                currentKeyBytes.ensureCapacity(StoredKeyLayout.KEY_OFFSET + Long.BYTES);
                currentKeyBytes.buffer().putLong(StoredKeyLayout.KEY_OFFSET, currentLongKey);
                StoredKeyLayout.putKeyGroup(currentKeyBytes.buffer(), currentKeyGroup);
                currentKeyBytes.length(StoredKeyLayout.KEY_OFFSET + Long.BYTES);
                currentKeyEncoded = true;
                return currentKeyBytes;
            }
            final Object key = currentKey();
            if (key == null)
            {
                throw new IllegalStateException("state '" + stateName +
                    "' used outside the processing of a keyed record: there is no current key");
            }
            encode(key, currentKeyGroup, currentKeyBytes, stateName, "the current key");
            currentKeyEncoded = true;
        }
        return currentKeyBytes;
    }

    /**
     * Encodes any key of the store's key type in {@link StoredKeyLayout}, with the checks of the current key: a
     * hot-key front writing its entries back encodes keys that are no longer current.
     *
     * @param key       a non-null key.
     * @param into      the slot to encode into (not the current key's).
     * @param stateName the state asking, for messages.
     * @return {@code into}, holding the stored key.
     * @throws IllegalStateException    when the key's type differs from the store's keys.
     * @throws IllegalArgumentException when the key encodes to more than the maximum entry size.
     */
    EncodedBytes encodeKey(final Object key, final EncodedBytes into, final String stateName)
    {
        encode(key, -1, into, stateName, "a key");
        return into;
    }

    private void encode(final Object key, final int keyGroup, final EncodedBytes into, final String stateName,
        final String what)
    {
        if (key.getClass() != keyClass)
        {
            adoptKeyClass(key.getClass(), stateName);
        }
        if (StoredKeyLayout.encode(keyCodec, key, keyGroup, maxParallelism, into, maxEntrySize) < 0)
        {
            throw new IllegalArgumentException("state '" + stateName + "': " + what + " (" +
                key.getClass().getName() + ") encodes to more than maxEntrySize " + maxEntrySize +
                " bytes of the Chronicle state backend");
        }
    }

    /**
     * Fixes the store's key type at the first key, and refuses any other after.
     *
     * @param type      a key's type.
     * @param stateName the state asking, for messages.
     * @throws IllegalStateException when the store's keys already have another type.
     */
    @SuppressWarnings("unchecked")
    void adoptKeyClass(final Class<?> type, final String stateName)
    {
        if (keyClass == null)
        {
            keyCodec = (Codec<Object>)codecs.codecFor(type);
            keyClass = type;
            return;
        }
        if (keyClass != type)
        {
            throw new IllegalStateException("state '" + stateName + "' is used with a key of type " +
                type.getName() + ", but this store's keys are of type " + keyClass.getName() +
                ": a keyed operator's keys must all have one type");
        }
    }
}
