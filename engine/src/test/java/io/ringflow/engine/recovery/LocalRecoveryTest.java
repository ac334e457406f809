package io.ringflow.engine.recovery;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local recovery ({@code CheckpointConfig.Builder#localRecovery}): after failures inside the JVM, the restarted
 * attempts revert the failed attempt's keyed stores in place (Chronicle backend), or restore in full (heap backend, or
 * a failure that may have left a store half-written), and every key's final summary, over every state kind, equals
 * what a run without failure computes ({@link StateKindsRecoveryTest.AllKinds}).
 */
class LocalRecoveryTest
{
    private static final long KEYS = 50;
    private static final long TOTAL = 12_000;

    @ParameterizedTest(name = "{0}, incremental {1}")
    @CsvSource({"CHRONICLE, false", "CHRONICLE, true", "HEAP, false"})
    void restartsRevertTheKeptStoresAndGiveTheSameResult(final TestBackends backend, final boolean incremental)
        throws Exception
    {
        final Run run = run(backend, incremental, () -> new IllegalStateException("injected failure"));
        assertThat(run.restarts).isEqualTo(3);
        if (backend == TestBackends.CHRONICLE)
        {
            assertThat(run.storesReverted).as("both subtasks at each of 3 restarts").isEqualTo(6);
            assertThat(run.keysRewritten).as("keys changed after each checkpoint").isGreaterThan(0);
        }
        else
        {
            assertThat(run.storesReverted).as("the heap backend tracks no changes").isZero();
        }
    }

    @Test
    void aFailureByAnErrorRestoresInFull() throws Exception
    {
        final Run run = run(TestBackends.CHRONICLE, false, () -> new StackOverflowError("injected"));
        assertThat(run.restarts).isEqualTo(3);
        assertThat(run.storesReverted).as("an Error may have stopped a store's write midway").isZero();
    }

    /** What a run did, once its output was checked. */
    private record Run(int restarts, long storesReverted, long keysRewritten)
    {
    }

    private static Run run(final TestBackends backend, final boolean incremental,
        final java.util.function.Supplier<Throwable> failure) throws Exception
    {
        final GatedSource source = new GatedSource();
        final AtomicBoolean armed = new AtomicBoolean();
        final Map<Long, StateKindsRecoveryTest.Summary> latest = new ConcurrentHashMap<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(backend.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).incremental(incremental).localRecovery(true)
                .build())
            .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO))
            .build());
        final long modulo = KEYS;
        env.fromSource(source, "numbers").uid("numbers")
            .keyBy(n -> n % modulo)
            .process(() -> new Failing(armed, failure)).returns(StateKindsRecoveryTest.Summary.class)
            .uid("all-kinds").setParallelism(2)
            .sinkTo(new StateKindsRecoveryTest.LatestSink(latest)).uid("sink").setParallelism(2);
        final int restarts;
        final long reverted;
        final long rewritten;
        try (JobHandle handle = env.execute("local-recovery-" + backend + "-" + incremental))
        {
            long open = 0;
            for (int failures = 1; failures <= 3; failures++)
            {
                open += 2_000;
                source.openUpTo(open);
                final long upTo = open;
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> processed(latest) >= upTo);
                handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
                // changes after the checkpoint, which the restart must take back
                open += 1_000;
                source.openUpTo(open);
                final long changed = open;
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> processed(latest) >= changed);
                armed.set(true);
                open += 10;
                source.openUpTo(open);
                final int expected = failures;
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == expected &&
                    handle.status() == JobStatus.RUNNING);
            }
            source.finishAt(TOTAL);
            TestJobs.awaitFinished(handle);
            restarts = handle.restartCount();
            reverted = handle.mxBean().getLocallyRecoveredStores();
            rewritten = handle.mxBean().getLocallyRecoveredKeys();
        }
        for (long key = 0; key < KEYS; key++)
        {
            final List<Long> numbers = new ArrayList<>();
            for (long n = key; n < TOTAL; n += KEYS)
            {
                numbers.add(n);
            }
            final long sum = numbers.stream().mapToLong(Long::longValue).sum();
            final StateKindsRecoveryTest.Summary summary = latest.get(key);
            assertThat(summary.count()).as("key %d", key).isEqualTo(numbers.size());
            assertThat(summary.sum()).as("key %d", key).isEqualTo(sum);
            assertThat(summary.mean()).as("key %d", key).isEqualTo((double)sum / numbers.size());
            assertThat(summary.lastThree()).as("key %d", key)
                .isEqualTo(numbers.subList(numbers.size() - 3, numbers.size()));
        }
        return new Run(restarts, reverted, rewritten);
    }

    /** Records seen by the sink, counted from the summaries: each key's highest count. */
    private static long processed(final Map<Long, StateKindsRecoveryTest.Summary> latest)
    {
        return latest.values().stream().mapToLong(StateKindsRecoveryTest.Summary::count).sum();
    }

    /** Every state kind, and a failure of the given kind once armed. */
    static final class Failing extends StateKindsRecoveryTest.AllKinds
    {
        private final AtomicBoolean armed;
        private final java.util.function.Supplier<Throwable> failure;

        Failing(final AtomicBoolean armed, final java.util.function.Supplier<Throwable> failure)
        {
            super(new AtomicBoolean());
            this.armed = armed;
            this.failure = failure;
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx,
            final io.ringflow.engine.api.functions.Collector<StateKindsRecoveryTest.Summary> out)
        {
            if (armed.compareAndSet(true, false))
            {
                sneakyThrow(failure.get());
            }
            super.processElement(value, ctx, out);
        }

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> void sneakyThrow(final Throwable failure) throws E
        {
            throw (E)failure;
        }
    }
}
