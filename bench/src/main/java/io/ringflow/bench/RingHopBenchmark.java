package io.ringflow.bench;

import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.source.RecordGenerator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The cost of one ring hop: Ringflow's channel against a bare Disruptor ring, in the same run.
 *
 * <p><b>{@link #ringflowOneHop}</b>: records/s through a minimal two-task Ringflow job with chaining disabled, so each
 * record crosses exactly one ring channel: the source task generates a {@code Hop(sequence, timestamp)} record (one
 * allocation, as any Ringflow source), encodes it into an off-heap slot (8-byte header + 16-byte payload; slots of
 * 128 B, ring of 1024, publish batch 256: the engine's defaults), and the sink task decodes it (a second allocation)
 * and counts it. Each invocation runs a bounded job of {@code records} records end to end, job start-up included
 * (two threads, one ring: a few milliseconds against the default 10,000,000 records).
 *
 * <pre>
 * +----------------+    ring channel (SPSC, off-heap slots)    +-----------------+
 * | source task    |------------------------------------------>| sink task       |
 * | generate Hop,  |  claim, encode, publish every 256 records | poll, decode,   |
 * | encode         |  or at the end of each work cycle         | count, check    |
 * +----------------+                                           +-----------------+
 *     thread 1                                                     thread 2
 * </pre>
 *
 * <p><b>{@link #disruptorOneHop}</b>: the floor, records/s through an {@link OffHeapRing}: the same Disruptor
 * {@code RingBuffer} sequencing (1024 slots), 16-byte off-heap slots holding two longs, the JMH thread as producer
 * claiming and publishing batches of 256, one consumer thread (started once per trial) busy-polling the cursor and
 * releasing what it read with one store per poll. No objects, codecs, headers or tasks: what is left is the ring.
 *
 * <pre>
 *                  track to prevent wrap
 *              +-----------------------------------+
 *              v                                   |
 * +----------+    +====+    +================+   +----------+
 * | producer |--->| RB |--->| 16 B off-heap  |-->| consumer |
 * | JMH      |    +====+    | slots          |   | thread   |
 * +----------+  claim 256,  +================+   +----------+
 *               put, publish                     poll cursor, read, release
 * </pre>
 *
 * <p>Both throughput benchmarks use {@code @OperationsPerInvocation(records)}, so the score is records/s, and both
 * verify every invocation: the consumer must see sequences 0, 1, 2, ... with no gap, duplicate or reordering, and
 * exactly {@code records} of them; otherwise the invocation throws and the run fails.
 *
 * <p><b>{@link #disruptorPingPong}</b>: latency of the bare ring, as a round trip over two {@link OffHeapRing}s
 * (JMH thread publishes one event on "ping", an echo thread copies it to "pong", the JMH thread spins until it sees
 * it). Average and sampled distribution of the round trip in ns; one hop is about half of it. Ringflow jobs are
 * acyclic, so there is no Ringflow ping-pong: the Ringflow one-hop latency distribution, corrected for coordinated
 * omission, is measured by {@link LatencyHarness} instead.
 *
 * <pre>
 * +----------+  ping: claim 1, put, publish   +------------+
 * | JMH      |------------------------------->| echo       |
 * | thread   |                                | thread     |
 * |          |<-------------------------------|            |
 * +----------+  pong: spin on cursor, read    +------------+
 * </pre>
 *
 * <p>On a 2-core machine every benchmark here runs two spinning threads (for BACKOFF and YIELD, the Ringflow tasks
 * back off or yield when idle); JMH's own thread is parked while a Ringflow job runs, and is one of the two threads in
 * the Disruptor benchmarks.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS, JvmFlags.OPEN_LANG,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL, JvmFlags.OPEN_NIO, JvmFlags.EXPORT_REF,
    JvmFlags.EXPORT_MISC, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_SUN_MISC, JvmFlags.EXPORT_JAVAC_FILE,
    JvmFlags.OPEN_JAVAC})
public class RingHopBenchmark
{
    /** Records per invocation of the throughput benchmarks unless overridden (with {@code -p records=N -opi N}). */
    public static final int DEFAULT_RECORDS = 10_000_000;
    /** Slots per ring: the engine's default ring size. */
    static final int RING_SIZE = 1024;
    /** Records per publish: the engine's default publish batch for that ring size. */
    static final int PUBLISH_BATCH = 256;

    /**
     * The record of the Ringflow hop: two longs, like a bare slot.
     *
     * @param sequence  the record's index.
     * @param timestamp its creation time.
     */
    public record Hop(long sequence, long timestamp)
    {
    }

    private static final RecordGenerator<Hop> HOPS = Hop::new;

    /**
     * The number of records per invocation, shared by both throughput benchmarks.
     */
    @State(Scope.Benchmark)
    public static class Workload
    {
        /** Records per invocation; must equal JMH's operations per invocation. */
        @Param({"" + DEFAULT_RECORDS})
        public int records;

        /**
         * @param params injected by JMH, to check the operations per invocation.
         */
        @Setup(Level.Trial)
        public void setUp(final BenchmarkParams params)
        {
            BenchSupport.checkOperationsPerInvocation(params, records);
        }
    }

    /**
     * The Ringflow job's settings.
     */
    @State(Scope.Benchmark)
    public static class RingflowHop
    {
        /** How idle task threads wait. */
        @Param({"BUSY_SPIN", "YIELD", "BACKOFF"})
        public IdleStrategyKind idleStrategy;

        JobConfig config;

        /** Builds the job's settings. */
        @Setup(Level.Trial)
        public void setUp()
        {
            config = JobConfig.builder()
                .defaultParallelism(1)
                .chaining(false)
                .ringSize(RING_SIZE)
                .publishBatch(PUBLISH_BATCH)
                .idleStrategy(idleStrategy)
                .build();
        }
    }

    /**
     * The bare ring and its consumer thread, alive for the whole trial.
     */
    @State(Scope.Benchmark)
    public static class BareHop
    {
        OffHeapRing ring;
        /** Next sequence the producer (JMH thread) will publish; producer only. */
        long nextSequence;
        private Thread consumer;
        /** Written by the consumer before it releases the slots concerned; read by the producer after. */
        private long anomalies;
        private volatile Throwable failure;

        /** Allocates the ring and starts the consumer. */
        @Setup(Level.Trial)
        public void setUp()
        {
            ring = new OffHeapRing(RING_SIZE);
            nextSequence = 0;
            consumer = new Thread(this::consume, "bare-ring-consumer");
            consumer.setDaemon(true);
            consumer.start();
        }

        /**
         * Stops the consumer and frees the ring.
         *
         * @throws InterruptedException when interrupted while joining the consumer.
         */
        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            ring.halt();
            consumer.join();
            ring.free();
        }

        /**
         * @param published the last sequence published; the consumer has released it.
         */
        void verify(final long published)
        {
            if (failure != null)
            {
                throw new IllegalStateException("bare ring consumer failed", failure);
            }
            if (anomalies != 0 || ring.consumed() != published)
            {
                throw new IllegalStateException("bare ring: " + anomalies + " slots out of sequence; consumer at " +
                    ring.consumed() + ", producer at " + published);
            }
        }

        private void consume()
        {
            final OffHeapRing ring = this.ring;
            long next = 0;
            long bad = 0;
            try
            {
                while (!ring.isHalted())
                {
                    final long available = ring.cursor();
                    if (available < next)
                    {
                        Thread.onSpinWait();
                        continue;
                    }
                    for (long sequence = next; sequence <= available; sequence++)
                    {
                        final long first = ring.first(sequence);
                        if (first != sequence || ring.second(sequence) != ~first)
                        {
                            bad++;
                        }
                    }
                    anomalies = bad;
                    next = available + 1;
                    ring.release(available);
                }
            }
            catch (final Throwable ex)
            {
                failure = ex;
                ring.halt();
            }
        }
    }

    /**
     * Two bare rings and the echo thread between them, alive for the whole trial.
     */
    @State(Scope.Benchmark)
    public static class PingPong
    {
        OffHeapRing ping;
        OffHeapRing pong;
        /** Next value sent; JMH thread only. */
        long nextValue;
        private Thread echo;
        private volatile Throwable failure;

        /** Allocates the rings and starts the echo thread. */
        @Setup(Level.Trial)
        public void setUp()
        {
            ping = new OffHeapRing(RING_SIZE);
            pong = new OffHeapRing(RING_SIZE);
            nextValue = 0;
            echo = new Thread(this::echo, "bare-ring-echo");
            echo.setDaemon(true);
            echo.start();
        }

        /**
         * Stops the echo thread and frees the rings.
         *
         * @throws InterruptedException when interrupted while joining the echo thread.
         */
        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            ping.halt();
            pong.halt();
            echo.join();
            ping.free();
            pong.free();
            if (failure != null)
            {
                throw new IllegalStateException("echo thread failed", failure);
            }
        }

        private void echo()
        {
            long next = 0;
            try
            {
                while (!ping.isHalted())
                {
                    final long available = ping.cursor();
                    if (available < next)
                    {
                        Thread.onSpinWait();
                        continue;
                    }
                    for (long sequence = next; sequence <= available; sequence++)
                    {
                        final long hi = pong.claim(1);
                        pong.put(hi, ping.first(sequence), ping.second(sequence));
                        pong.publish(hi, hi);
                    }
                    next = available + 1;
                    ping.release(available);
                }
            }
            catch (final Throwable ex)
            {
                failure = ex;
                ping.halt();
                pong.halt();
            }
        }
    }

    /**
     * Counts {@link Hop}s and checks that their sequences arrive as 0, 1, 2, ... (one channel is FIFO). Plain
     * fields per writer, published on flush and close.
     */
    static final class HopCheckingSink implements Sink<Hop>
    {
        private final LongAdder received = new LongAdder();
        private final LongAdder anomalies = new LongAdder();

        @Override
        public SinkWriter<Hop> createWriter(final SubtaskInfo subtask)
        {
            return new SinkWriter<>()
            {
                private long expected;
                private long unreported;
                private long outOfSequence;

                @Override
                public void write(final Hop record)
                {
                    if (record.sequence() != expected)
                    {
                        outOfSequence++;
                    }
                    expected = record.sequence() + 1;
                    unreported++;
                }

                @Override
                public void flush()
                {
                    received.add(unreported);
                    unreported = 0;
                    anomalies.add(outOfSequence);
                    outOfSequence = 0;
                }

                @Override
                public void close()
                {
                    flush();
                }
            };
        }

        void verify(final long expected)
        {
            if (received.sum() != expected || anomalies.sum() != 0)
            {
                throw new IllegalStateException("ringflow hop: sink received " + received.sum() + " records, " +
                    anomalies.sum() + " out of sequence; expected " + expected + ", 0");
            }
        }
    }

    /**
     * One bounded Ringflow job, source to sink over one ring, run to its end and verified.
     *
     * @param workload the number of records.
     * @param hop      the job's settings.
     * @return records received.
     * @throws Exception when the job failed or its output is incomplete.
     */
    @Benchmark
    @OperationsPerInvocation(DEFAULT_RECORDS)
    public long ringflowOneHop(final Workload workload, final RingflowHop hop) throws Exception
    {
        final HopCheckingSink sink = new HopCheckingSink();
        final JobEnvironment env = JobEnvironment.create(hop.config);
        env.fromSource(GeneratorSource.bounded(workload.records, Hop.class, HOPS), "source")
            .sinkTo(sink).name("sink");
        BenchSupport.runToCompletion(env, "ring-hop");
        sink.verify(workload.records);
        return workload.records;
    }

    /**
     * Publishes {@code records} records on the bare ring in batches of 256 and waits until the consumer has read
     * them all.
     *
     * @param workload the number of records.
     * @param bare     the ring and its consumer.
     * @return the last sequence published.
     */
    @Benchmark
    @OperationsPerInvocation(DEFAULT_RECORDS)
    public long disruptorOneHop(final Workload workload, final BareHop bare)
    {
        final OffHeapRing ring = bare.ring;
        long next = bare.nextSequence;
        final long end = next + workload.records;
        while (next < end)
        {
            final int n = (int)Math.min(PUBLISH_BATCH, end - next);
            final long hi = ring.claim(n);
            final long lo = hi - n + 1;
            for (long sequence = lo; sequence <= hi; sequence++)
            {
                ring.put(sequence, sequence, ~sequence);
            }
            ring.publish(lo, hi);
            next = hi + 1;
        }
        ring.awaitConsumed(end - 1);
        bare.nextSequence = end;
        bare.verify(end - 1);
        return end - 1;
    }

    /**
     * One round trip over two bare rings.
     *
     * @param pingPong the rings and the echo thread.
     * @return the value that came back.
     */
    @Benchmark
    @BenchmarkMode({Mode.AverageTime, Mode.SampleTime})
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long disruptorPingPong(final PingPong pingPong)
    {
        final OffHeapRing ping = pingPong.ping;
        final OffHeapRing pong = pingPong.pong;
        final long value = pingPong.nextValue++;
        final long sequence = ping.claim(1);
        ping.put(sequence, value, ~value);
        ping.publish(sequence, sequence);
        while (pong.cursor() < sequence)
        {
            pong.checkNotHalted();
            Thread.onSpinWait();
        }
        final long echoed = pong.first(sequence);
        pong.release(sequence);
        if (echoed != value)
        {
            throw new IllegalStateException("ping-pong: sent " + value + ", got " + echoed + " back");
        }
        return echoed;
    }
}
