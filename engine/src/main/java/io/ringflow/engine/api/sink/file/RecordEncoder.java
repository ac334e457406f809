package io.ringflow.engine.api.sink.file;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Turns a record into the bytes of a part file. A sink's encoder is shared by its subtasks, each writing on its own task
 * thread: an encoder must be safe to call from several threads at once (the built-in ones are).
 *
 * @param <T> the record type.
 */
@FunctionalInterface
public interface RecordEncoder<T>
{
    /**
     * @param record the record, not null.
     * @param out    the part file, buffered.
     * @throws IOException fails the job attempt.
     */
    void encode(T record, OutputStream out) throws IOException;

    /**
     * @param <T> the record type.
     * @return an encoder writing each record's {@code toString()} in UTF-8, one per line ({@code '\n'}); read back
     *     with {@link CommittedOutput#readLines}.
     */
    static <T> RecordEncoder<T> textLines()
    {
        return (record, out) ->
        {
            out.write(String.valueOf(record).getBytes(StandardCharsets.UTF_8));
            out.write('\n');
        };
    }

    /**
     * @param type the record type; its built-in codec (primitives, strings, records of them, enums) writes it.
     * @param <T>  the record type.
     * @return an encoder writing each record as a 4-byte big-endian length and the codec's bytes; read back with
     *     {@link CommittedOutput#readRecords}.
     */
    static <T> RecordEncoder<T> lengthPrefixed(final Class<T> type)
    {
        return lengthPrefixed(CodecRegistry.withBuiltIns().codecFor(Objects.requireNonNull(type, "type")));
    }

    /**
     * @param codec writes one record.
     * @param <T>   the record type.
     * @return an encoder writing each record as a 4-byte big-endian length and the codec's bytes.
     */
    static <T> RecordEncoder<T> lengthPrefixed(final Codec<T> codec)
    {
        return new LengthPrefixedEncoder<>(Objects.requireNonNull(codec, "codec"));
    }
}
