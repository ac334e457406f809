package io.ringflow.engine.sink;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.sink.upsert.ChronicleUpsertSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The idempotent sink: after failures and restarts (records replayed into it), the table holds exactly each key's
 * final count, as a failure-free run would; the same holds with a sink at parallelism 3 sharing one file.
 */
class ChronicleUpsertSinkTest
{
    private static final long KEYS = 23;
    private static final long RECORDS = 30_000;

    @TempDir
    Path dir;

    record KeyCount(long key, long count)
    {
    }

    @ParameterizedTest
    @EnumSource(TestBackends.class)
    void replaysOverwriteAndTheTableConvergesToTheExactCounts(final TestBackends backend) throws Exception
    {
        final AtomicLong processed = new AtomicLong();
        final AtomicBoolean failed = new AtomicBoolean();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().stateBackend(backend.create())
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(5)).build())
            .restartStrategy(RestartStrategy.fixedDelay(5, Duration.ZERO)).build());
        final Path table = dir.resolve("counts.cm");
        env.fromSource(GeneratorSource.bounded(RECORDS, Long.class, (i, nanos) -> i).withRate(100_000), "numbers")
            .uid("numbers")
            .keyBy(n -> n % KEYS)
            .reduce((a, b) -> a + b)
            .uid("sum")
            .map(sum -> sum)
            .returns(Long.class)
            .setParallelism(3)
            .keyBy(sum -> sum % KEYS)
            .process(() -> new TwoPhaseCommitJobTest.Count(failed, processed))
            .returns(String.class)
            .uid("count")
            .setParallelism(3)
            .sinkTo(ChronicleUpsertSink.builder(table, Long.class, (String line) -> Long.parseLong(
                line.substring(0, line.indexOf(','))), Long.class,
                (String line) -> Long.parseLong(line.substring(line.indexOf(',') + 1))).entries(1_000).build())
            .uid("table")
            .setParallelism(3);
        final JobHandle job = env.execute("upsert");
        failed.set(true);
        assertThat(job.termination().get(60, TimeUnit.SECONDS)).as("%s", job.failureCause())
            .isEqualTo(JobStatus.FINISHED);
        job.close();

        // the failure-free result: per key of the running sums' residues, how many sums fell on it
        final Map<Long, Long> expected = new HashMap<>();
        final long[] sums = new long[(int)KEYS];
        for (long n = 0; n < RECORDS; n++)
        {
            final int key = (int)(n % KEYS);
            sums[key] += n;
            expected.merge(sums[key] % KEYS, 1L, Long::sum);
        }
        assertThat(ChronicleUpsertSink.read(table, Long.class, Long.class)).isEqualTo(expected);
    }
}
