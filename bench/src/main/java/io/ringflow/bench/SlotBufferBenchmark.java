package io.ringflow.bench;

import io.ringflow.state.codec.CodecBuffer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The cost of the slot buffer the engine uses, with no JVM flag, against the Agrona {@link UnsafeBuffer} it replaced
 * (which needs {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED}), in the same run.
 *
 * <p>One operation writes one page-view record into a slot and reads it back, as a ring's writer and reader do, on
 * one thread so that only the buffer is measured: the writer takes the slot's payload window, writes the {@code Long}
 * key and the record's two longs, checks that the window did not overflow, and writes the slot's header; the reader
 * reads the header, the key and both longs. The region is {@value #SLOTS} slots of {@value #SLOT_SIZE} bytes of
 * aligned direct memory, the engine's default ring, walked in order.
 *
 * <ul>
 *   <li>{@code codecBuffer}: {@link CodecBuffer} windows (VarHandle views over a direct {@link ByteBuffer},
 *       little-endian, bounds-checked), rewrapped per slot exactly as {@code ChannelWriter.claimRecord} does.</li>
 *   <li>{@code unsafeBuffer}: one Agrona {@link UnsafeBuffer} over the same kind of region, addressed by offset, with
 *       Agrona's bounds checks on (its default).</li>
 * </ul>
 *
 * <p>Verification: each invocation compares the sum it read with the sum it wrote and throws on a difference.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(value = 3, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS, JvmFlags.OPEN_LANG,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL, JvmFlags.OPEN_NIO, JvmFlags.EXPORT_REF,
    JvmFlags.EXPORT_MISC, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_SUN_MISC, JvmFlags.EXPORT_JAVAC_FILE,
    JvmFlags.OPEN_JAVAC})
@State(Scope.Thread)
public class SlotBufferBenchmark
{
    /** Slots in the region: the engine's default ring size. */
    static final int SLOTS = 1024;
    /** Bytes per slot, header included: the engine's default slot size. */
    static final int SLOT_SIZE = 128;

    private static final int HEADER_LENGTH = 8;
    private static final int RECORD_LENGTH = 3 * Long.BYTES;
    private static final long RECORD_KIND = 1L << 56;

    private ByteBuffer codecRegion;
    private CodecBuffer slots;
    private CodecBuffer window;
    private UnsafeBuffer unsafeRegion;
    private long round;

    @Setup
    public void setUp()
    {
        codecRegion = BufferUtil.allocateDirectAligned(SLOTS * SLOT_SIZE, 64);
        slots = CodecBuffer.wrap(codecRegion, 0, SLOTS * SLOT_SIZE);
        window = CodecBuffer.wrap(codecRegion, 0, SLOT_SIZE - HEADER_LENGTH);
        unsafeRegion = new UnsafeBuffer(BufferUtil.allocateDirectAligned(SLOTS * SLOT_SIZE, 64));
    }

    @Benchmark
    @OperationsPerInvocation(SLOTS)
    public long codecBuffer()
    {
        final long base = ++round;
        long written = 0;
        for (int slot = 0; slot < SLOTS; slot++)
        {
            final int offset = slot * SLOT_SIZE;
            final CodecBuffer payload = window.rewrap(codecRegion, offset + HEADER_LENGTH, SLOT_SIZE - HEADER_LENGTH);
            final long key = base + slot;
            payload.putLong(0, key);
            payload.putLong(8, key * 31);
            payload.putLong(16, base);
            if (payload.overflowed())
            {
                throw new IllegalStateException("a 24-byte record overflowed a " + SLOT_SIZE + "-byte slot");
            }
            slots.putLong(offset, RECORD_KIND | RECORD_LENGTH);
            written += key + key * 31 + base;
        }
        final CodecBuffer all = slots;
        long read = 0;
        for (int slot = 0; slot < SLOTS; slot++)
        {
            final int offset = slot * SLOT_SIZE;
            final int length = (int)(all.getLong(offset) & 0xFFFF);
            read += all.getLong(offset + HEADER_LENGTH) + all.getLong(offset + HEADER_LENGTH + 8)
                + all.getLong(offset + HEADER_LENGTH + 16) + length - RECORD_LENGTH;
        }
        return verified(written, read);
    }

    @Benchmark
    @OperationsPerInvocation(SLOTS)
    public long unsafeBuffer()
    {
        final long base = ++round;
        final UnsafeBuffer region = unsafeRegion;
        long written = 0;
        for (int slot = 0; slot < SLOTS; slot++)
        {
            final int offset = slot * SLOT_SIZE;
            final long key = base + slot;
            region.putLong(offset + HEADER_LENGTH, key);
            region.putLong(offset + HEADER_LENGTH + 8, key * 31);
            region.putLong(offset + HEADER_LENGTH + 16, base);
            region.putLong(offset, RECORD_KIND | RECORD_LENGTH);
            written += key + key * 31 + base;
        }
        long read = 0;
        for (int slot = 0; slot < SLOTS; slot++)
        {
            final int offset = slot * SLOT_SIZE;
            final int length = (int)(region.getLong(offset) & 0xFFFF);
            read += region.getLong(offset + HEADER_LENGTH) + region.getLong(offset + HEADER_LENGTH + 8)
                + region.getLong(offset + HEADER_LENGTH + 16) + length - RECORD_LENGTH;
        }
        return verified(written, read);
    }

    private static long verified(final long written, final long read)
    {
        if (written != read)
        {
            throw new IllegalStateException("read " + read + " but wrote " + written);
        }
        return read;
    }
}
