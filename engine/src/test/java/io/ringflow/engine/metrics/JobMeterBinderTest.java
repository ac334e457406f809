package io.ringflow.engine.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** An application's Micrometer registry sees a job's state and checkpoints, tagged with its name. */
class JobMeterBinderTest
{
    @Test
    void aRegistrySeesTheJobAndItsCheckpoints() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().chaining(false).build());
        final DataStream<Long> numbers = env.fromSource(
            GeneratorSource.unbounded(Long.class, (index, due) -> index).withRate(10_000), "numbers");
        numbers.sinkTo(new DiscardSink<>()).name("discard");
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JobHandle handle = env.execute("metered"))
        {
            new JobMeterBinder(handle).bindTo(registry);
            assertThat(registry.get("ringflow.job.running").tag("job", "metered").gauge().value()).isEqualTo(1);
            assertThat(registry.get("ringflow.checkpoints.completed").functionCounter().count()).isZero();

            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);

            assertThat(registry.get("ringflow.checkpoints.completed").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("ringflow.checkpoint.last.id").gauge().value())
                .isEqualTo(checkpoint.checkpointId());
            assertThat(registry.get("ringflow.checkpoint.last.duration").gauge().value()).isPositive();
            assertThat(registry.get("ringflow.ring.fill.max").gauge().value()).isBetween(0.0, 1.0);
            assertThat(handle.mxBean().getRingBacklogs()).hasSize(1)
                .allSatisfy(line -> assertThat(line).matches(".+: \\d+/\\d+"));
            handle.cancel();
            assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
            Awaitility.await().atMost(TestJobs.HANG_GUARD)
                .until(() -> registry.get("ringflow.job.running").gauge().value() == 0);
            assertThat(registry.get("ringflow.ring.fill.max").gauge().value()).isZero();
        }
    }
}
