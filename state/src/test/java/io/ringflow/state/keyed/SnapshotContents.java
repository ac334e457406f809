package io.ringflow.state.keyed;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateMeta;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Test support: writes snapshots to bytes and decodes a keyed snapshot, independently of any backend, into
 * {@code state name -> (key -> value)}, checking on the way that no (state, key) appears twice and that every entry
 * sits in the key group of its key.
 */
public final class SnapshotContents
{
    private SnapshotContents()
    {
    }

    /**
     * Writes {@code snapshot} and releases it.
     *
     * @param snapshot the asynchronous part of a snapshot.
     * @return its bytes.
     */
    public static byte[] write(final KeyedStateSnapshot snapshot)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try
        {
            snapshot.writeTo(out);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        finally
        {
            snapshot.release();
        }
        return out.toByteArray();
    }

    /**
     * @param store        a store.
     * @param checkpointId the checkpoint.
     * @return the bytes of a snapshot of it taken now.
     */
    public static byte[] take(final KeyedStateStore store, final long checkpointId)
    {
        return write(store.snapshot(checkpointId));
    }

    /**
     * @param bytes a snapshot.
     * @return a reader over it.
     */
    public static KeyedSnapshotReader reader(final byte[] bytes)
    {
        return KeyedSnapshotReader.open(bytes, "test-snapshot");
    }

    /**
     * Decodes every entry; states without entries are left out.
     *
     * @param bytes  a snapshot.
     * @param codecs the codecs that wrote it.
     * @return state name to (key to value), keys sorted when comparable.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Map<Object, Object>> decode(final byte[] bytes, final CodecRegistry codecs)
    {
        final KeyedSnapshotReader reader = reader(bytes);
        final List<StateMeta> metas = reader.states();
        final Map<String, Map<Object, Object>> contents = new TreeMap<>();
        reader.read(reader.range(), (keyGroup, stateIndex, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) ->
        {
            final StateMeta meta = metas.get(stateIndex);
            final Codec<Object> keyCodec = (Codec<Object>)codecs.codecFor(load(meta.keyType()));
            final Codec<Object> valueCodec = (Codec<Object>)codecs.codecFor(load(meta.valueType()));
            final Object key = keyCodec.decode(buffer, keyOffset, keyLength);
            final Object value = valueCodec.decode(buffer, valueOffset, valueLength);
            if (KeyGroups.keyGroupOf(key, reader.maxParallelism()) != keyGroup)
            {
                throw new AssertionError("key " + key + " of state " + meta.name() + " is in key group " + keyGroup +
                    " instead of " + KeyGroups.keyGroupOf(key, reader.maxParallelism()));
            }
            final Map<Object, Object> state = contents.computeIfAbsent(meta.name(), name -> new HashMap<>());
            if (state.put(key, value) != null)
            {
                throw new AssertionError("key " + key + " of state " + meta.name() + " is in the snapshot twice");
            }
        });
        return contents;
    }

    /**
     * @param models state name to its model; empty models are left out, as {@link #decode} leaves out empty states.
     * @return a deep copy, comparable with {@link #decode}'s result.
     */
    public static Map<String, Map<Object, Object>> expected(final Map<String, ? extends Map<?, ?>> models)
    {
        final Map<String, Map<Object, Object>> copy = new TreeMap<>();
        models.forEach((name, model) ->
        {
            if (!model.isEmpty())
            {
                copy.put(name, new HashMap<>(model));
            }
        });
        return copy;
    }

    private static Class<?> load(final String name)
    {
        try
        {
            return Class.forName(name, false, SnapshotContents.class.getClassLoader());
        }
        catch (final ClassNotFoundException ex)
        {
            throw new AssertionError("type " + name + " of a snapshot is not on the class path", ex);
        }
    }
}
