package io.ringflow.engine.recovery;

import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.StateInitializationContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The job the recovery tests run: numbers from a {@link GatedSource}, keyed by {@code n % keys}, counted per key in
 * keyed state, the running count sent to a sink that keeps the highest count seen per key (an idempotent upsert, so
 * replayed output after a restore converges to the exact counts). The counting function also keeps, in operator
 * state, how many records its subtask processed, and can be armed to throw once.
 */
final class CountingJob
{
    /** One key's running count. */
    record Count(long key, long count)
    {
    }

    final GatedSource source = new GatedSource();
    /** Highest count per key the sink received, across attempts. */
    final Map<Long, Long> sinkCounts = new ConcurrentHashMap<>();
    /** Per counting subtask: its processed-records counter when it last closed. */
    final Map<Integer, Long> processedAtClose = new ConcurrentHashMap<>();
    /** When set, the next record makes the counting function throw, once. */
    final AtomicBoolean armed = new AtomicBoolean();
    final long keys;

    CountingJob(final long keys)
    {
        this.keys = keys;
    }

    /**
     * @param env              where to build it.
     * @param countParallelism parallelism of the counting operator.
     */
    void build(final JobEnvironment env, final int countParallelism)
    {
        final long modulo = keys;
        final DataStream<Long> numbers = env.fromSource(source, "numbers").uid("numbers");
        numbers.keyBy(n -> n % modulo)
            .process(() -> new CountPerKey(armed, processedAtClose))
            .returns(Count.class)
            .uid("count")
            .setParallelism(countParallelism)
            .sinkTo(new MaxPerKeySink(sinkCounts))
            .uid("sink");
    }

    /** @return the sum over keys of the highest count the sink saw: every record once when exactly-once. */
    long sinkTotal()
    {
        return sinkCounts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @param records how many numbers went through. @return whether every key's count is exact. */
    boolean sinkCountsAreExactFor(final long records)
    {
        for (long key = 0; key < keys; key++)
        {
            final long expected = records / keys + (key < records % keys ? 1 : 0);
            if (sinkCounts.getOrDefault(key, 0L) != expected)
            {
                return false;
            }
        }
        return true;
    }

    /** Counts per key in a {@code ValueState<Long>}, and records processed per subtask in operator state. */
    static final class CountPerKey extends KeyedProcessFunction<Long, Long, Count> implements CheckpointedFunction
    {
        private final AtomicBoolean armed;
        private final Map<Integer, Long> processedAtClose;
        private ValueState<Long> count;
        private OperatorListState<Long> processedState;
        private long processed;
        private int subtask;

        CountPerKey(final AtomicBoolean armed, final Map<Integer, Long> processedAtClose)
        {
            this.armed = armed;
            this.processedAtClose = processedAtClose;
        }

        @Override
        public void initializeState(final StateInitializationContext context)
        {
            processedState = context.getListState("processed", Long.class);
            for (final long value : processedState.get())
            {
                processed += value;
            }
        }

        @Override
        public void open(final RuntimeContext context)
        {
            subtask = context.subtaskIndex();
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Count> out)
        {
            if (armed.compareAndSet(true, false))
            {
                throw new IllegalStateException("injected failure at " + value);
            }
            final long next = count.value() + 1;
            count.update(next);
            processed++;
            out.collect(new Count(ctx.getCurrentKey(), next));
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            processedState.update(java.util.List.of(processed));
        }

        @Override
        public void close()
        {
            processedAtClose.put(subtask, processed);
        }
    }

    /** Keeps the highest count per key. */
    record MaxPerKeySink(Map<Long, Long> counts) implements Sink<Count>
    {
        @Override
        public SinkWriter<Count> createWriter(final SubtaskInfo subtask)
        {
            return record -> counts.merge(record.key(), record.count(), Math::max);
        }
    }
}
