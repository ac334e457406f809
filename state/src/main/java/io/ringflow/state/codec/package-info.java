/**
 * Codecs: how values become bytes in ring channel slots and snapshots, and back. Java serialization is never used.
 *
 * <p>Every codec writes little-endian, whatever the platform, so snapshots move between machines. Formats
 * (all version 1):
 * <table>
 *   <caption>Wire formats</caption>
 *   <tr><th>Type</th><th>Codec</th><th>Bytes</th></tr>
 *   <tr><td>{@code long}, {@code Long}</td><td>{@link io.ringflow.state.codec.LongCodec}</td><td>8</td></tr>
 *   <tr><td>{@code int}, {@code Integer}</td><td>{@link io.ringflow.state.codec.IntegerCodec}</td><td>4</td></tr>
 *   <tr><td>{@code short}, {@code Short}</td><td>{@link io.ringflow.state.codec.ShortCodec}</td><td>2</td></tr>
 *   <tr><td>{@code byte}, {@code Byte}</td><td>{@link io.ringflow.state.codec.ByteCodec}</td><td>1</td></tr>
 *   <tr><td>{@code double}, {@code Double}</td><td>{@link io.ringflow.state.codec.DoubleCodec}</td>
 *   <td>8, raw IEEE 754 bits</td></tr>
 *   <tr><td>{@code float}, {@code Float}</td><td>{@link io.ringflow.state.codec.FloatCodec}</td>
 *   <td>4, raw IEEE 754 bits</td></tr>
 *   <tr><td>{@code boolean}, {@code Boolean}</td><td>{@link io.ringflow.state.codec.BooleanCodec}</td>
 *   <td>1: 0 or 1</td></tr>
 *   <tr><td>{@code char}, {@code Character}</td><td>{@link io.ringflow.state.codec.CharacterCodec}</td>
 *   <td>2, the UTF-16 unit</td></tr>
 *   <tr><td>{@code String}</td><td>{@link io.ringflow.state.codec.StringCodec}</td>
 *   <td>4-byte byte count, then UTF-8</td></tr>
 *   <tr><td>{@code byte[]}</td><td>{@link io.ringflow.state.codec.ByteArrayCodec}</td>
 *   <td>4-byte length, then the bytes</td></tr>
 *   <tr><td>enums</td><td>{@link io.ringflow.state.codec.EnumCodec}</td><td>4: the ordinal</td></tr>
 *   <tr><td>records</td><td>{@link io.ringflow.state.codec.RecordCodec}</td>
 *   <td>components in order; a presence byte before each reference component</td></tr>
 * </table>
 *
 * <p>Bounds: no codec writes at or past {@code buffer.capacity()}; a value that does not fit throws
 * {@link java.lang.IndexOutOfBoundsException}. Fixed-width writes rely on Agrona's bounds checks for this; the string
 * and byte array codecs, and record codecs for their fixed-size part, check before writing anything, so they stay
 * safe even if Agrona's checks are disabled ({@code agrona.disable.bounds.checks=true}). Expandable buffers grow
 * instead of throwing.
 *
 * <p>A job resolves its codecs through a {@link io.ringflow.state.codec.CodecRegistry}, where user code registers
 * codecs for its own types; a type with no codec fails the job at build time with
 * {@link io.ringflow.state.codec.MissingCodecException}, never while records flow.
 */
package io.ringflow.state.codec;
