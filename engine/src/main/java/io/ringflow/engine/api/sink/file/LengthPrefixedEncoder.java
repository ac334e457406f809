package io.ringflow.engine.api.sink.file;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A 4-byte big-endian length and the codec's bytes. The file sink's writer encodes straight into its part buffer
 * through {@link #codec()}; {@link #encode} is the general path (another stream, or a record larger than the part
 * buffer).
 *
 * @param <T> the record type.
 */
final class LengthPrefixedEncoder<T> implements RecordEncoder<T>
{
    private final Codec<T> codec;
    /** One buffer per task thread: the encoder is shared by the sink's subtasks. */
    private final ThreadLocal<CodecBuffer> buffers = ThreadLocal.withInitial(() -> CodecBuffer.growable(256));

    LengthPrefixedEncoder(final Codec<T> codec)
    {
        this.codec = codec;
    }

    Codec<T> codec()
    {
        return codec;
    }

    @Override
    public void encode(final T record, final OutputStream out) throws IOException
    {
        final CodecBuffer buffer = buffers.get();
        final int length = codec.encode(record, buffer, 0);
        if (buffer.overflowed())
        {
            throw new IOException("a record encodes to more than a buffer can hold: " + record.getClass());
        }
        out.write(length >>> 24);
        out.write(length >>> 16);
        out.write(length >>> 8);
        out.write(length);
        buffer.writeTo(0, length, out);
    }
}
