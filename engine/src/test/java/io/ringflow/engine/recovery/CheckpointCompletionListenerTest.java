package io.ringflow.engine.recovery;

import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code JobHandle.onCheckpointCompleted}: every completed checkpoint and savepoint, once, across restarts. */
class CheckpointCompletionListenerTest
{
    @Test
    void everyCompletionReachesTheListenersOnceAcrossARestart() throws Exception
    {
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicLong seen = new AtomicLong();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO)).build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, nanos) -> i).withRate(20_000), "numbers")
            .keyBy(n -> n % 7)
            .map(n ->
            {
                if (armed.compareAndSet(true, false))
                {
                    throw new IllegalStateException("injected failure");
                }
                seen.incrementAndGet();
                return n;
            })
            .returns(Long.class)
            .sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("completion-listener");
        final List<CompletedCheckpoint> heard = new CopyOnWriteArrayList<>();
        final List<Long> alsoHeard = new CopyOnWriteArrayList<>();
        job.onCheckpointCompleted(heard::add);
        job.onCheckpointCompleted(done -> alsoHeard.add(done.checkpointId()));
        job.onCheckpointCompleted(done ->
        {
            throw new IllegalStateException("a listener that throws is logged and ignored");
        });
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 100);

        final List<Long> completed = new ArrayList<>();
        completed.add(job.triggerCheckpoint().get(60, TimeUnit.SECONDS).checkpointId());
        completed.add(job.triggerSavepoint().get(60, TimeUnit.SECONDS).checkpointId());
        final long restartsBefore = job.mxBean().getRestartCount();
        armed.set(true);
        await().atMost(Duration.ofSeconds(60)).until(() -> job.mxBean().getRestartCount() > restartsBefore);
        final long seenBefore = seen.get();
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > seenBefore + 100);
        completed.add(job.triggerCheckpoint().get(60, TimeUnit.SECONDS).checkpointId());

        await().atMost(Duration.ofSeconds(60)).until(() -> heard.size() == 3);
        assertThat(heard).extracting(CompletedCheckpoint::checkpointId).containsExactlyElementsOf(completed);
        assertThat(heard.get(1).savepoint()).isTrue();
        assertThat(heard).allSatisfy(done -> assertThat(done.durationNanos()).isPositive());
        assertThat(alsoHeard).containsExactlyElementsOf(completed);
        job.cancel();
        job.termination().get(60, TimeUnit.SECONDS);
        job.close();
    }
}
