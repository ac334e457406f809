package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.runtime.JobRun;
import io.ringflow.engine.runtime.deploy.JobAttempt;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unaligned checkpoints under back-pressure: the sink only takes a record when the test hands it a permit, so every
 * ring is full when the checkpoint is triggered. The barrier must overtake the queued records: the checkpoint
 * completes after a number of permits bounded by the read batches, far fewer than the records queued in front of the
 * barrier, and those records are in its channel state. A failure afterwards restores the channel state and the
 * counts come out exact.
 */
class UnalignedCheckpointTest
{
    private static final int RING = 16;
    private static final int READ_BATCH = 4;
    private static final long KEYS = 5;

    @Test
    void theBarrierOvertakesQueuedRecordsWhichAreRestoredAfterAFailure() throws Exception
    {
        final Semaphore permits = new Semaphore(0);
        final Map<Long, Long> sinkCounts = new ConcurrentHashMap<>();
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .ringSize(RING)
            .readBatch(READ_BATCH)
            .publishBatch(1)
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).unaligned(true).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        final long modulo = KEYS;
        env.fromSource(job.source, "numbers").uid("numbers")
            .keyBy(n -> n % modulo)
            .process(() -> new CountingJob.CountPerKey(job.armed, job.processedAtClose))
            .returns(CountingJob.Count.class)
            .uid("count")
            .sinkTo(new PermitSink(permits, sinkCounts))
            .uid("sink");
        try (JobHandle handle = env.execute("unaligned-backpressure"))
        {
            final JobAttempt attempt = ((JobRun)handle).currentAttempt();
            job.source.openUpTo(1_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                attempt.channelBacklogs().stream().allMatch(backlog -> backlog == RING) && permits.hasQueuedThreads());

            final CompletableFuture<CompletedCheckpoint> pending = handle.triggerCheckpoint();
            int released = 0;
            while (!pending.isDone())
            {
                permits.release();
                released++;
                // wait until the sink took the permit and the source refilled the rings (or the checkpoint
                // completed): one record at a time, the rings full before the next, however slow the source thread
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                    pending.isDone() || (permits.availablePermits() == 0 && permits.hasQueuedThreads() &&
                        attempt.channelBacklogs().stream().allMatch(backlog -> backlog == RING)));
            }
            final CompletedCheckpoint checkpoint = pending.get(2, TimeUnit.MINUTES);
            // an aligned barrier would wait behind both full rings: at least 2 * RING records
            assertThat(released).isLessThan(2 * RING);
            assertThat(checkpoint.unaligned()).isTrue();
            assertThat(checkpoint.subtasks().stream().mapToLong(s -> s.inFlightRecords()).sum())
                .as("records overtaken by the barrier").isPositive();
            assertThat(checkpoint.inFlightBytes()).isPositive();
            final long position = checkpoint.sourcePositions().get("numbers").get(0);
            assertThat(position).isLessThan(1_000);

            // fail after the checkpoint; the restart replays the channel state before any new input
            job.armed.set(true);
            permits.release(Integer.MAX_VALUE / 2);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            job.source.finishAt(3_000);
            TestJobs.awaitFinished(handle);
        }
        for (long key = 0; key < KEYS; key++)
        {
            assertThat(sinkCounts.get(key)).as("count of key %d", key).isEqualTo(3_000 / KEYS);
        }
        assertThat(job.processedAtClose.get(0)).isEqualTo(3_000);
    }

    /** Writes a record only when given a permit; keeps the highest count per key. */
    record PermitSink(Semaphore permits, Map<Long, Long> counts) implements Sink<CountingJob.Count>
    {
        @Override
        public SinkWriter<CountingJob.Count> createWriter(final SubtaskInfo subtask)
        {
            return record ->
            {
                permits.acquire();
                counts.merge(record.key(), record.count(), Math::max);
            };
        }
    }
}
