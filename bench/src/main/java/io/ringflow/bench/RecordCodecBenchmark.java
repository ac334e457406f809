package io.ringflow.bench;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.RecordCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * One record with a {@code String} component encoded into a slot-sized window of direct memory and decoded back, by
 * the codec a job's registry hands out (a codec class spun for the record type: no per-component dispatch, no boxes,
 * no {@code Object[]}) and by the general {@link RecordCodec} (per-component objects, an {@code Object[]} of
 * constructor arguments, boxed primitives). Both write the same bytes. Run with {@code -prof gc} to see the bytes
 * allocated per operation: the spun codec allocates the record and its string, the general one also the array and
 * the boxes.
 *
 * <p>Verification: each invocation checks the decoded record's fields against the encoded one and throws on a
 * difference.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS})
@State(Scope.Thread)
public class RecordCodecBenchmark
{
    /** A click on a page: a record with one {@code String} among primitives. */
    public record Click(long userId, String page, int x, int y)
    {
    }

    /** {@code SPUN}: the registry's codec for the type; {@code GENERAL}: {@link RecordCodec} itself. */
    @Param({"SPUN", "GENERAL"})
    public String codec;

    private Codec<Click> clicks;
    private CodecBuffer window;
    private final Click[] values = new Click[16];
    private int next;

    @Setup
    public void setUp()
    {
        clicks = "SPUN".equals(codec) ? CodecRegistry.withBuiltIns().codecFor(Click.class) :
            RecordCodec.of(Click.class);
        if ("SPUN".equals(codec) == clicks instanceof RecordCodec)
        {
            throw new IllegalStateException("expected the " + codec + " codec, got " + clicks);
        }
        window = CodecBuffer.wrap(ByteBuffer.allocateDirect(128), 8, 120);
        for (int i = 0; i < values.length; i++)
        {
            values[i] = new Click(1_000L * i, "/products/" + i, i, 2 * i);
        }
    }

    @Benchmark
    public Click encodeDecode()
    {
        final Click value = values[next++ & (values.length - 1)];
        final int length = clicks.encode(value, window, 0);
        if (window.overflowed())
        {
            throw new IllegalStateException(value + " overflowed its window");
        }
        final Click back = clicks.decode(window, 0, length);
        if (back.userId() != value.userId() || back.x() != value.x() || back.y() != value.y() ||
            back.page().length() != value.page().length())
        {
            throw new IllegalStateException("decoded " + back + " from " + value);
        }
        return back;
    }
}
