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
 * <p>Buffers: codecs write into and read from a {@link io.ringflow.state.codec.CodecBuffer}, a little-endian window
 * over a heap or direct {@link java.nio.ByteBuffer} reached through {@link java.lang.invoke.VarHandle}s, so encoding
 * and decoding need no JVM flag ({@code --add-exports} and the like).
 *
 * <p>Bounds: nothing is ever written at or past a window's capacity, and "does not fit" is never an exception. A
 * codec writes as if room were unlimited; a fixed window (a ring slot) drops what would go past its end and marks
 * itself {@link io.ringflow.state.codec.CodecBuffer#overflowed() overflowed}, which whoever handed it the window
 * checks after every encode; a growable buffer grows instead. The string and byte array codecs, and record codecs
 * for their fixed-size part, reserve the room they need before writing anything
 * ({@link io.ringflow.state.codec.CodecBuffer#reserve}), so a value refused there leaves the window untouched.
 * Reading past the end of a buffer (corrupt input) throws {@link java.lang.IndexOutOfBoundsException}.
 *
 * <p>A job resolves its codecs through a {@link io.ringflow.state.codec.CodecRegistry}, where user code registers
 * codecs for its own types; a type with no codec fails the job at build time with
 * {@link io.ringflow.state.codec.MissingCodecException}, never while records flow.
 */
package io.ringflow.state.codec;
