package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A key-value table persisted in a Chronicle Map file, written by upsert: the latest value per key wins, so writing
 * the same (key, value) again changes nothing. Keys and values are stored as the bytes of Ringflow codecs (never Java
 * serialization). The file outlives the process (memory-mapped: what a write put there survives a process crash, not
 * an operating-system crash) and may be opened by other processes to read.
 *
 * <p>Thread contract: one handle per thread; the handles of one file in a JVM share one map, which is safe for
 * concurrent writers (Chronicle Map's segment locks). The map closes when its last handle closes.
 *
 * @param <K> the key type.
 * @param <V> the value type.
 */
public final class ChronicleUpsertTable<K, V> implements AutoCloseable
{
    static
    {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    private static final Map<Path, Shared> OPEN = new HashMap<>();
    private static final int MAX_ENTRY = 1 << 20;

    private final Shared shared;
    private final Codec<K> keyCodec;
    private final Codec<V> valueCodec;
    private final EncodedBytes key = new EncodedBytes(64);
    private final EncodedBytes value = new EncodedBytes(64);
    private final EncodedBytes read = new EncodedBytes(64);
    private boolean closed;

    private ChronicleUpsertTable(final Shared shared, final Codec<K> keyCodec, final Codec<V> valueCodec)
    {
        this.shared = shared;
        this.keyCodec = keyCodec;
        this.valueCodec = valueCodec;
    }

    /**
     * Opens (creating when missing) the table in {@code file}.
     *
     * @param file             the map file.
     * @param keyCodec         writes keys.
     * @param valueCodec       writes values.
     * @param entries          how many keys the file is sized for when it is created (it grows up to 10x beyond).
     * @param averageKeyBytes  the average encoded key, for sizing.
     * @param averageValueBytes the average encoded value, for sizing.
     * @param <K>              the key type.
     * @param <V>              the value type.
     * @return a handle for the calling thread.
     * @throws IOException when the file cannot be created or opened.
     */
    public static <K, V> ChronicleUpsertTable<K, V> open(final Path file, final Codec<K> keyCodec,
        final Codec<V> valueCodec, final long entries, final int averageKeyBytes, final int averageValueBytes)
        throws IOException
    {
        Objects.requireNonNull(keyCodec, "keyCodec");
        Objects.requireNonNull(valueCodec, "valueCodec");
        ChronicleJvmAccess.check();
        final Path absolute = file.toAbsolutePath().normalize();
        synchronized (OPEN)
        {
            Shared shared = OPEN.get(absolute);
            if (shared == null)
            {
                if (absolute.getParent() != null)
                {
                    Files.createDirectories(absolute.getParent());
                }
                final ChronicleMap<EncodedBytes, EncodedBytes> map =
                    ChronicleMapBuilder.of(EncodedBytes.class, EncodedBytes.class)
                        .name("ringflow-upsert:" + absolute.getFileName())
                        .keyReaderAndDataAccess(EncodedBytesReader.INSTANCE, new EncodedBytesAccess())
                        .valueReaderAndDataAccess(EncodedBytesReader.INSTANCE, new EncodedBytesAccess())
                        .entries(entries)
                        .averageKeySize(averageKeyBytes)
                        .averageValueSize(averageValueBytes)
                        .maxBloatFactor(10)
                        .createPersistedTo(absolute.toFile());
                shared = new Shared(absolute, map);
                OPEN.put(absolute, shared);
            }
            shared.handles++;
            return new ChronicleUpsertTable<>(shared, keyCodec, valueCodec);
        }
    }

    /**
     * Writes {@code v} as {@code k}'s value, replacing any other.
     *
     * @param k the key, not null.
     * @param v the value, not null.
     * @throws IllegalArgumentException when the key or value encodes to more than 1 MiB.
     */
    public void put(final K k, final V v)
    {
        encode(key, keyCodec, k, "key");
        encode(value, valueCodec, v, "value");
        shared.map.put(key, value);
    }

    /**
     * @param k a key.
     * @return its value, or null.
     */
    public V get(final K k)
    {
        encode(key, keyCodec, k, "key");
        final EncodedBytes found = shared.map.getUsing(key, read);
        return found == null ? null : valueCodec.decode(found.buffer(), 0, found.length());
    }

    /** @return the number of keys. */
    public long size()
    {
        return shared.map.longSize();
    }

    /** @return every key and its value, decoded, in the map's order. */
    public Map<K, V> toMap()
    {
        final Map<K, V> all = new LinkedHashMap<>();
        shared.map.forEach((k, v) -> all.put(keyCodec.decode(k.buffer(), 0, k.length()),
            valueCodec.decode(v.buffer(), 0, v.length())));
        return all;
    }

    private static <T> void encode(final EncodedBytes into, final Codec<T> codec, final T item, final String what)
    {
        final int length = into.encode(codec, Objects.requireNonNull(item, what), 0, MAX_ENTRY);
        if (length < 0)
        {
            throw new IllegalArgumentException("a " + what + " encodes to more than " + MAX_ENTRY + " bytes: " + item);
        }
        into.length(length);
    }

    /** Releases this handle; the last one of a file closes its map. Idempotent. */
    @Override
    public void close()
    {
        synchronized (OPEN)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            if (--shared.handles == 0)
            {
                OPEN.remove(shared.file);
                shared.map.close();
            }
        }
    }

    private static final class Shared
    {
        final Path file;
        final ChronicleMap<EncodedBytes, EncodedBytes> map;
        int handles;

        Shared(final Path file, final ChronicleMap<EncodedBytes, EncodedBytes> map)
        {
            this.file = file;
            this.map = map;
        }
    }
}
