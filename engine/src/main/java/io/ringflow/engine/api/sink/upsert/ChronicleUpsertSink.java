package io.ringflow.engine.api.sink.upsert;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.state.chronicle.ChronicleUpsertTable;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * An idempotent sink: writes each record's value under its key into a Chronicle Map file, replacing the key's value,
 * so a record replayed after a restore writes what its first delivery wrote and the table converges to the exact
 * result. Writes are visible at once (no transaction, no wait for a checkpoint), which is what makes it idempotent
 * rather than transactional: see docs/exactly-once.md for when that is enough. Keys and values are stored as the bytes
 * of the built-in codecs (primitives, strings, records of them, enums); the file is memory-mapped, so a write survives
 * a crash of the process (not of the operating system). Needs the Chronicle JVM flags, like the default state
 * backend.
 *
 * @param <T> the record type.
 * @param <K> the key type.
 * @param <V> the value type.
 */
public final class ChronicleUpsertSink<T, K, V> implements Sink<T>
{
    private final Path file;
    private final Class<K> keyType;
    private final Class<V> valueType;
    private final Function<T, K> keyOf;
    private final Function<T, V> valueOf;
    private final long entries;
    private final int averageKeyBytes;
    private final int averageValueBytes;

    private ChronicleUpsertSink(final Builder<T, K, V> b)
    {
        this.file = b.file;
        this.keyType = b.keyType;
        this.valueType = b.valueType;
        this.keyOf = b.keyOf;
        this.valueOf = b.valueOf;
        this.entries = b.entries;
        this.averageKeyBytes = b.averageKeyBytes;
        this.averageValueBytes = b.averageValueBytes;
    }

    /**
     * @param file      the table's map file, created when missing.
     * @param keyType   the key type.
     * @param keyOf     a record's key; must be deterministic.
     * @param valueType the value type.
     * @param valueOf   a record's value; must be deterministic.
     * @param <T>       the record type.
     * @param <K>       the key type.
     * @param <V>       the value type.
     * @return a builder.
     */
    public static <T, K, V> Builder<T, K, V> builder(final Path file, final Class<K> keyType,
        final Function<T, K> keyOf, final Class<V> valueType, final Function<T, V> valueOf)
    {
        return new Builder<>(file, keyType, keyOf, valueType, valueOf);
    }

    /**
     * Reads a table written by this sink (while its job runs or after).
     *
     * @param file      the map file.
     * @param keyType   the key type it was written with.
     * @param valueType the value type it was written with.
     * @param <K>       the key type.
     * @param <V>       the value type.
     * @return every key and its latest value.
     * @throws IOException when the file cannot be opened.
     */
    public static <K, V> Map<K, V> read(final Path file, final Class<K> keyType, final Class<V> valueType)
        throws IOException
    {
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        try (ChronicleUpsertTable<K, V> table = ChronicleUpsertTable.open(file, codecs.codecFor(keyType),
            codecs.codecFor(valueType), 1, 16, 16))
        {
            return table.toMap();
        }
    }

    @Override
    public SinkWriter<T> createWriter(final SubtaskInfo subtask) throws IOException
    {
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        final Codec<K> keyCodec = codecs.codecFor(keyType);
        final Codec<V> valueCodec = codecs.codecFor(valueType);
        final ChronicleUpsertTable<K, V> table = ChronicleUpsertTable.open(file, keyCodec, valueCodec, entries,
            averageKeyBytes, averageValueBytes);
        return new SinkWriter<>()
        {
            @Override
            public void write(final T record)
            {
                table.put(keyOf.apply(record), valueOf.apply(record));
            }

            @Override
            public void close()
            {
                table.close();
            }
        };
    }

    @Override
    public String toString()
    {
        return "ChronicleUpsertSink[" + file + "]";
    }

    /**
     * Options of a {@link ChronicleUpsertSink}.
     *
     * @param <T> the record type.
     * @param <K> the key type.
     * @param <V> the value type.
     */
    public static final class Builder<T, K, V>
    {
        private final Path file;
        private final Class<K> keyType;
        private final Function<T, K> keyOf;
        private final Class<V> valueType;
        private final Function<T, V> valueOf;
        private long entries = 1_000_000;
        private int averageKeyBytes = 16;
        private int averageValueBytes = 32;

        private Builder(final Path file, final Class<K> keyType, final Function<T, K> keyOf, final Class<V> valueType,
            final Function<T, V> valueOf)
        {
            this.file = Objects.requireNonNull(file, "file").toAbsolutePath().normalize();
            this.keyType = Objects.requireNonNull(keyType, "keyType");
            this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
            this.valueType = Objects.requireNonNull(valueType, "valueType");
            this.valueOf = Objects.requireNonNull(valueOf, "valueOf");
        }

        /**
         * @param value keys the file is sized for when created (default 1,000,000; it grows up to 10x beyond).
         * @return this
         */
        public Builder<T, K, V> entries(final long value)
        {
            if (value < 1)
            {
                throw new InvalidJobException("entries must be at least 1, was " + value);
            }
            entries = value;
            return this;
        }

        /**
         * @param keyBytes   the average encoded key (default 16).
         * @param valueBytes the average encoded value (default 32).
         * @return this
         */
        public Builder<T, K, V> averageSizes(final int keyBytes, final int valueBytes)
        {
            if (keyBytes < 1 || valueBytes < 1)
            {
                throw new InvalidJobException("average sizes must be at least 1, were " + keyBytes + " and " +
                    valueBytes);
            }
            averageKeyBytes = keyBytes;
            averageValueBytes = valueBytes;
            return this;
        }

        /**
         * @return the sink.
         * @throws InvalidJobException when the key or value type has no built-in codec, naming it.
         */
        public ChronicleUpsertSink<T, K, V> build()
        {
            final CodecRegistry codecs = CodecRegistry.withBuiltIns();
            try
            {
                codecs.codecFor(keyType);
                codecs.codecFor(valueType);
            }
            catch (final RuntimeException ex)
            {
                throw new InvalidJobException("ChronicleUpsertSink " + file + ": " + ex.getMessage(), ex);
            }
            return new ChronicleUpsertSink<>(this);
        }
    }
}
