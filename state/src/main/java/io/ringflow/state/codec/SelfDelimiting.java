package io.ringflow.state.codec;

/**
 * Implemented by built-in codecs whose encoding carries its own length, so that {@link RecordCodec} can place them
 * inside a record without a length prefix. Package-private on purpose: a codec from outside this package is always
 * framed with a length prefix, so a wrong answer from user code can never desynchronise a record.
 */
interface SelfDelimiting
{
    /**
     * @param buffer holding a value written by this codec's {@code encode}.
     * @param offset where that value starts.
     * @return how many bytes the value occupies, read without decoding it and without allocating. A negative result
     * means the bytes are not a valid encoding.
     */
    int encodedLength(CodecBuffer buffer, int offset);
}
