package io.ringflow.bench.peers;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import io.ringflow.samples.pageview.AppCount;
import io.ringflow.samples.pageview.PageView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs each engine's page-view job in this JVM, small, and checks that it did the whole work and verified its
 * totals. Outside CI (the module is built only with {@code -Ppeers}); about a minute on two busy cores, most of it
 * the engines' start-up.
 */
class PeerJobsSmokeTest
{
    /**
     * At a fixed rate for about two seconds, with checkpoints every 100 ms: the paced generator, the checkpoints
     * and their confirmation, the steady part of the measurement.
     */
    @ParameterizedTest(name = "{0}, paced, checkpointed")
    @CsvSource({"ringflow", "flink", "jet"})
    void pacedRunWithCheckpointsVerifies(final String engine) throws Exception
    {
        final RunOptions options = new RunOptions(200_000, 1_000, 100_000, 1, 100, RunOptions.FlinkState.HEAP, -1,
            120);

        final RunResult result = run(engine, options);

        assertThat(result.engine()).isEqualTo(engine);
        assertThat(result.generated()).isEqualTo(200_000);
        assertThat(result.received()).isEqualTo(200_000);
        assertThat(result.latencySamples()).isEqualTo(200_000);
        assertThat(result.checkpoints()).as("checkpoints confirmed in a run of about 2 s").isPositive();
        assertThat(result.startupS()).isPositive().isLessThan(result.lastRecordS());
        assertThat(result.lastRecordS()).isLessThanOrEqualTo(result.wallS());
        // 200,000 views at 100,000/s: the last is due 2 s after the first (which may reach the sink late).
        assertThat(result.lastRecordS() - result.startupS()).isGreaterThan(1.5);
        assertThat(result.p50Us()).isPositive();
    }

    /** As fast as possible, two subtasks per operator: every app's updates reach one sink subtask, in order. */
    @ParameterizedTest(name = "{0}, parallelism 2")
    @CsvSource({"ringflow", "flink", "jet"})
    void parallelRunVerifies(final String engine) throws Exception
    {
        final RunOptions options = new RunOptions(200_001, 37, 0, 2, 0, RunOptions.FlinkState.HEAP, -1, 120);

        final RunResult result = run(engine, options);

        assertThat(result.received()).isEqualTo(200_001);
        assertThat(result.checkpoints()).isZero();
    }

    @Test
    void flinkRocksDbRunVerifies() throws Exception
    {
        final RunOptions options = new RunOptions(100_000, 1_000, 0, 1, 100, RunOptions.FlinkState.ROCKSDB, -1, 120);

        assertThat(run("flink", options).received()).isEqualTo(100_000);
    }

    /** Flink must not fall back to Kryo for the records (which would slow it down unfairly). */
    @Test
    void flinkSerializesTheRecordsAsPojos()
    {
        assertThat(TypeInformation.of(PageView.class)).isInstanceOf(PojoTypeInfo.class);
        assertThat(TypeInformation.of(AppCount.class)).isInstanceOf(PojoTypeInfo.class);
    }

    private static RunResult run(final String engine, final RunOptions options) throws Exception
    {
        final ByteArrayOutputStream problems = new ByteArrayOutputStream();
        final RunResult result;
        try (PrintStream log = new PrintStream(problems, true, StandardCharsets.UTF_8))
        {
            result = PeerRun.run(PeerRun.create(engine, options), options, 1, log);
        }
        assertThat(problems.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(result.verified()).as(result.toLine()).isTrue();
        assertThat(result.problems()).isZero();
        assertThat(RunResult.parse(result.toLine()).verified()).isTrue();
        return result;
    }
}
