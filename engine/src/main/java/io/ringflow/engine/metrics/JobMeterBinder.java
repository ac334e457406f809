package io.ringflow.engine.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobMXBean;
import io.ringflow.engine.api.JobStatus;

/**
 * Reports a job to an application's Micrometer registry (and so to Prometheus, Datadog or whatever it is wired to):
 * {@code new JobMeterBinder(handle).bindTo(registry)}. Every meter is tagged {@code job=<name>} and reads the job's
 * {@link JobMXBean} when the registry polls it, never a task thread, so reporting costs the record path nothing.
 * Micrometer is an optional dependency of the engine: an application that uses this class has it already.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code ringflow.job.running}</td><td>gauge</td><td>1 while the job runs, else 0</td></tr>
 *   <tr><td>{@code ringflow.job.restarts}</td><td>function counter</td><td>restarts after failures</td></tr>
 *   <tr><td>{@code ringflow.checkpoints.completed}</td><td>function counter</td><td>checkpoints, savepoints</td></tr>
 *   <tr><td>{@code ringflow.checkpoint.last.id}</td><td>gauge</td><td>the newest completed one's id</td></tr>
 *   <tr><td>{@code ringflow.checkpoint.last.duration}</td><td>gauge, ms</td><td>trigger to completion</td></tr>
 *   <tr><td>{@code ringflow.checkpoint.last.state}</td><td>gauge, bytes</td><td>state it wrote</td></tr>
 *   <tr><td>{@code ringflow.checkpoint.last.inflight}</td><td>gauge, bytes</td><td>in-flight records stored</td></tr>
 *   <tr><td>{@code ringflow.checkpoint.last.alignment}</td><td>gauge, ms</td><td>its longest alignment</td></tr>
 *   <tr><td>{@code ringflow.window.late.dropped}</td><td>counter</td><td>records too late for every window, no side output</td></tr>
 *   <tr><td>{@code ringflow.ring.fill.max}</td><td>gauge, 0..1</td><td>the fullest ring: back-pressure</td></tr>
 * </table>
 */
public final class JobMeterBinder implements MeterBinder
{
    private final JobHandle handle;

    /** @param handle the job to report. */
    public JobMeterBinder(final JobHandle handle)
    {
        this.handle = handle;
    }

    @Override
    public void bindTo(final MeterRegistry registry)
    {
        final JobMXBean job = handle.mxBean();
        final Tags tags = Tags.of("job", handle.jobName());
        Gauge.builder("ringflow.job.running", handle, h -> h.status() == JobStatus.RUNNING ? 1 : 0).tags(tags)
            .description("1 while the job runs").register(registry);
        FunctionCounter.builder("ringflow.job.restarts", job, JobMXBean::getRestartCount).tags(tags)
            .description("restarts after failures").register(registry);
        FunctionCounter.builder("ringflow.checkpoints.completed", job, JobMXBean::getCompletedCheckpoints).tags(tags)
            .description("checkpoints and savepoints completed").register(registry);
        Gauge.builder("ringflow.checkpoint.last.id", job, JobMXBean::getLastCheckpointId).tags(tags)
            .description("id of the newest completed checkpoint").register(registry);
        Gauge.builder("ringflow.checkpoint.last.duration", job, JobMXBean::getLastCheckpointDurationMillis)
            .tags(tags).baseUnit("milliseconds").description("trigger to completion").register(registry);
        Gauge.builder("ringflow.checkpoint.last.state", job, JobMXBean::getLastCheckpointStateBytes).tags(tags)
            .baseUnit("bytes").description("keyed and operator state written").register(registry);
        Gauge.builder("ringflow.checkpoint.last.inflight", job, JobMXBean::getLastCheckpointInFlightBytes).tags(tags)
            .baseUnit("bytes").description("in-flight records stored (unaligned)").register(registry);
        Gauge.builder("ringflow.checkpoint.last.alignment", job, JobMXBean::getLastCheckpointMaxAlignmentMillis)
            .tags(tags).baseUnit("milliseconds").description("longest alignment at any task").register(registry);
        FunctionCounter.builder("ringflow.window.late.dropped", job, JobMXBean::getLateRecordsDropped).tags(tags)
            .description("records too late for every window, with no late-data side output").register(registry);
        Gauge.builder("ringflow.ring.fill.max", job, JobMXBean::getMaxRingFill).tags(tags)
            .description("fill of the fullest ring, 0 to 1: back-pressure").register(registry);
    }
}
