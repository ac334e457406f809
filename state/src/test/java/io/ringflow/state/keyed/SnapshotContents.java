package io.ringflow.state.keyed;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.ListCodec;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Test support: writes snapshots to bytes and decodes a keyed snapshot, independently of any backend, into
 * {@code state name -> (key -> value)}, checking on the way that no (state, key) appears twice and that every entry
 * sits in the key group of its key.
 *
 * <p>What a value decodes to, by kind: the value (VALUE, REDUCING), the accumulator (AGGREGATING), a {@code List} of
 * the elements (LIST), and, for MAP states, a {@code Map} of the key's user keys to values (one snapshot entry per
 * user key). Time-to-live timestamps are checked to be present and dropped; {@link #timestamps} returns them.
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
    public static Map<String, Map<Object, Object>> decode(final byte[] bytes, final CodecRegistry codecs)
    {
        return decode(reader(bytes), codecs);
    }

    /**
     * {@link #decode(byte[], CodecRegistry)}, from a reader (read once).
     *
     * @param reader a snapshot, full or a merged chain.
     * @param codecs the codecs that wrote it.
     * @return state name to (key to value), keys sorted when comparable.
     */
    public static Map<String, Map<Object, Object>> decode(final KeyedSnapshotReader reader,
        final CodecRegistry codecs)
    {
        final Map<String, Map<Object, Object>> contents = new TreeMap<>();
        visit(reader, codecs, (meta, key, userKey, value, timestamp) ->
        {
            final Map<Object, Object> state = contents.computeIfAbsent(meta.name(), name -> new HashMap<>());
            if (meta.kind() == StateKind.MAP)
            {
                @SuppressWarnings("unchecked")
                final Map<Object, Object> map = (Map<Object, Object>)state.computeIfAbsent(key, k -> new HashMap<>());
                if (map.put(userKey, value) != null)
                {
                    throw new AssertionError("user key " + userKey + " of key " + key + " of state " + meta.name() +
                        " is in the snapshot twice");
                }
            }
            else if (state.put(key, value) != null)
            {
                throw new AssertionError("key " + key + " of state " + meta.name() + " is in the snapshot twice");
            }
        });
        return contents;
    }

    /**
     * @param bytes  a snapshot.
     * @param codecs the codecs that wrote it.
     * @return state name to (key, or for a map state {@code List.of(key, userKey)}, to the entry's time-to-live
     * timestamp), for the states that have a time-to-live.
     */
    public static Map<String, Map<Object, Long>> timestamps(final byte[] bytes, final CodecRegistry codecs)
    {
        final Map<String, Map<Object, Long>> contents = new TreeMap<>();
        visit(bytes, codecs, (meta, key, userKey, value, timestamp) ->
        {
            if (meta.timeToLive())
            {
                contents.computeIfAbsent(meta.name(), name -> new HashMap<>())
                    .put(meta.kind() == StateKind.MAP ? List.of(key, userKey) : key, timestamp);
            }
        });
        return contents;
    }

    /**
     * The entries exactly as written, for comparing the snapshots of two backends byte for byte, whatever the order
     * of entries within a key group.
     *
     * @param bytes a snapshot.
     * @return one line per entry, "state | key group | key | sub-key | value" in hex, sorted.
     */
    public static List<String> rawEntries(final byte[] bytes)
    {
        return rawEntries(reader(bytes));
    }

    /**
     * @param reader a snapshot, read once.
     * @return one line per entry, "state | key group | key | sub-key | value" in hex, sorted.
     */
    public static List<String> rawEntries(final KeyedSnapshotReader reader)
    {
        final List<StateMeta> metas = reader.states();
        final HexFormat hex = HexFormat.of();
        final TreeSet<String> lines = new TreeSet<>();
        reader.read(reader.range(), (keyGroup, stateIndex, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) ->
        {
            final String line = metas.get(stateIndex) + " | " + keyGroup + " | " +
                hex.formatHex(slice(buffer, keyOffset, keyLength)) + " | " +
                (subKeyLength < 0 ? "-" : hex.formatHex(slice(buffer, subKeyOffset, subKeyLength))) + " | " +
                (valueLength < 0 ? "tombstone" : hex.formatHex(slice(buffer, valueOffset, valueLength)));
            if (!lines.add(line))
            {
                throw new AssertionError("entry written twice: " + line);
            }
        });
        return new ArrayList<>(lines);
    }

    /**
     * @param models state name to its model; empty models are left out, as {@link #decode} leaves out empty states.
     *               A map state's model maps keys to maps of user keys, which are copied too, like lists.
     * @return a deep copy, comparable with {@link #decode}'s result.
     */
    public static Map<String, Map<Object, Object>> expected(final Map<String, ? extends Map<?, ?>> models)
    {
        final Map<String, Map<Object, Object>> copy = new TreeMap<>();
        models.forEach((name, model) ->
        {
            final Map<Object, Object> state = new HashMap<>();
            model.forEach((key, value) ->
            {
                if (value instanceof Map<?, ?> map)
                {
                    if (!map.isEmpty())
                    {
                        state.put(key, new HashMap<>(map));
                    }
                }
                else if (value instanceof List<?> list)
                {
                    if (!list.isEmpty())
                    {
                        state.put(key, new ArrayList<>(list));
                    }
                }
                else
                {
                    state.put(key, value);
                }
            });
            if (!state.isEmpty())
            {
                copy.put(name, state);
            }
        });
        return copy;
    }

    /** Receives decoded entries. */
    @FunctionalInterface
    private interface DecodedVisitor
    {
        void entry(StateMeta meta, Object key, Object userKey, Object value, long timestamp);
    }

    @SuppressWarnings("unchecked")
    private static void visit(final byte[] bytes, final CodecRegistry codecs, final DecodedVisitor visitor)
    {
        visit(reader(bytes), codecs, visitor);
    }

    @SuppressWarnings("unchecked")
    private static void visit(final KeyedSnapshotReader reader, final CodecRegistry codecs,
        final DecodedVisitor visitor)
    {
        final List<StateMeta> metas = reader.states();
        reader.read(reader.range(), (keyGroup, stateIndex, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) ->
        {
            final StateMeta meta = metas.get(stateIndex);
            final Codec<Object> keyCodec = (Codec<Object>)codecs.codecFor(load(meta.keyType()));
            Codec<?> valueCodec = codecs.codecFor(load(meta.valueType()));
            if (meta.kind() == StateKind.LIST)
            {
                valueCodec = new ListCodec<>(valueCodec);
            }
            final Object key = keyCodec.decode(buffer, keyOffset, keyLength);
            if (KeyGroups.keyGroupOf(key, reader.maxParallelism()) != keyGroup)
            {
                throw new AssertionError("key " + key + " of state " + meta.name() + " is in key group " + keyGroup +
                    " instead of " + KeyGroups.keyGroupOf(key, reader.maxParallelism()));
            }
            Object userKey = null;
            if (meta.kind() == StateKind.MAP)
            {
                if (subKeyLength < 0)
                {
                    throw new AssertionError("an entry of map state " + meta.name() + " has no user key");
                }
                userKey = codecs.codecFor(load(meta.userKeyType())).decode(buffer, subKeyOffset, subKeyLength);
            }
            else if (subKeyLength >= 0)
            {
                throw new AssertionError("an entry of " + meta.kind() + " state " + meta.name() + " has a sub-key");
            }
            final int prefix = meta.timeToLive() ? TtlValues.PREFIX_LENGTH : 0;
            if (valueLength < prefix)
            {
                throw new AssertionError("a value of state " + meta.name() + " has no time-to-live timestamp");
            }
            final long timestamp = prefix == 0 ? 0 : TtlValues.timestamp(buffer, valueOffset);
            final Object value = valueCodec.decode(buffer, valueOffset + prefix, valueLength - prefix);
            visitor.entry(meta, key, userKey, value, timestamp);
        });
    }

    private static byte[] slice(final CodecBuffer buffer, final int offset, final int length)
    {
        return buffer.toByteArray(offset, length);
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
