package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobMXBean;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.runtime.deploy.JobAttempt;

import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link JobMXBean} of one run: reads the handle, never the task threads, so a JMX client cannot slow the record
 * path. Registered by {@link #register} when the run has started and unregistered when it terminates; any thread.
 */
final class JobRunMXBean implements JobMXBean
{
    private static final System.Logger LOG = System.getLogger(JobRunMXBean.class.getName());
    private static final AtomicLong IDS = new AtomicLong();

    private final JobRun handle;

    JobRunMXBean(final JobRun handle)
    {
        this.handle = handle;
    }

    /**
     * Registers the handle's MBean in the platform MBean server and unregisters it once the job has terminated. A
     * JVM without a platform MBean server, or a refused registration, is logged and otherwise ignored: a job never
     * fails for its MBean.
     *
     * @param handle the running job.
     * @param bean   its MBean.
     * @return its name, or null when it could not be registered.
     */
    static ObjectName register(final JobRun handle, final JobRunMXBean bean)
    {
        try
        {
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            final ObjectName name = new ObjectName("io.ringflow:type=Job,name=" + ObjectName.quote(handle.jobName()) +
                ",id=" + IDS.incrementAndGet());
            server.registerMBean(bean, name);
            handle.termination().whenComplete((status, ignored) -> unregister(server, name));
            return name;
        }
        catch (final RuntimeException | JMException ex)
        {
            LOG.log(Level.WARNING, "job '" + handle.jobName() + "': not visible through JMX: " + ex);
            return null;
        }
    }

    private static void unregister(final MBeanServer server, final ObjectName name)
    {
        try
        {
            server.unregisterMBean(name);
        }
        catch (final InstanceNotFoundException gone)
        {
            // unregistered by someone else: nothing left to do
        }
        catch (final JMException | RuntimeException ex)
        {
            LOG.log(Level.WARNING, "could not unregister " + name + ": " + ex);
        }
    }

    @Override
    public String getJobName()
    {
        return handle.jobName();
    }

    @Override
    public String getStatus()
    {
        return handle.status().name();
    }

    @Override
    public int getRestartCount()
    {
        return handle.restartCount();
    }

    @Override
    public String getFailureCause()
    {
        return handle.failureCause().map(String::valueOf).orElse("");
    }

    @Override
    public long getCompletedCheckpoints()
    {
        return handle.checkpointsCompleted();
    }

    @Override
    public long getLastCheckpointId()
    {
        final CompletedCheckpoint last = last();
        return last == null ? 0 : last.checkpointId();
    }

    @Override
    public double getLastCheckpointDurationMillis()
    {
        final CompletedCheckpoint last = last();
        return last == null ? 0 : last.durationNanos() / 1e6;
    }

    @Override
    public long getLastCheckpointStateBytes()
    {
        final CompletedCheckpoint last = last();
        return last == null ? 0 : last.stateSizeBytes();
    }

    @Override
    public long getLastCheckpointInFlightBytes()
    {
        final CompletedCheckpoint last = last();
        return last == null ? 0 : last.inFlightBytes();
    }

    @Override
    public double getLastCheckpointMaxAlignmentMillis()
    {
        final CompletedCheckpoint last = last();
        return last == null ? 0 : last.maxAlignmentNanos() / 1e6;
    }

    @Override
    public String getLastCheckpointSummary()
    {
        final CompletedCheckpoint last = last();
        return last == null ? "" : last.summary();
    }

    @Override
    public long getLateRecordsDropped()
    {
        return handle.lateRecordsDropped();
    }

    @Override
    public long getLocallyRecoveredStores()
    {
        return handle.localStores() == null ? 0 : handle.localStores().storesReverted();
    }

    @Override
    public long getLocallyRecoveredKeys()
    {
        return handle.localStores() == null ? 0 : handle.localStores().keysRewritten();
    }

    @Override
    public double getMaxRingFill()
    {
        final JobAttempt attempt = runningAttempt();
        return attempt == null ? 0 : attempt.maxRingFill();
    }

    @Override
    public String[] getRingBacklogs()
    {
        final JobAttempt attempt = runningAttempt();
        return attempt == null ? new String[0] : attempt.ringBacklogs().toArray(new String[0]);
    }

    @Override
    public String[] getRingTraffic()
    {
        final JobAttempt attempt = runningAttempt();
        return attempt == null ? new String[0] : attempt.ringTraffic().toArray(new String[0]);
    }

    @Override
    public String[] getCheckpointHistory()
    {
        return handle.completedCheckpoints().stream().map(CompletedCheckpoint::summary).toArray(String[]::new);
    }

    @Override
    public String triggerCheckpoint() throws Exception
    {
        return await(handle.triggerCheckpoint());
    }

    @Override
    public String triggerSavepoint() throws Exception
    {
        return await(handle.triggerSavepoint());
    }

    @Override
    public String stopWithSavepoint() throws Exception
    {
        return await(handle.stopWithSavepoint());
    }

    @Override
    public void cancel()
    {
        handle.cancel();
    }

    /** @return the attempt that runs now, or null while the run restarts or after it ended. */
    private JobAttempt runningAttempt()
    {
        final JobAttempt attempt = handle.currentAttempt();
        return attempt == null || handle.status() != JobStatus.RUNNING ? null : attempt;
    }

    private CompletedCheckpoint last()
    {
        final List<CompletedCheckpoint> completed = handle.completedCheckpoints();
        return completed.isEmpty() ? null : completed.get(completed.size() - 1);
    }

    /** Waits for a trigger; its failure reaches the JMX client as a plain exception with the reason. */
    private static String await(final CompletableFuture<CompletedCheckpoint> trigger) throws Exception
    {
        try
        {
            return trigger.get(OPERATION_TIMEOUT_SECONDS, TimeUnit.SECONDS).summary();
        }
        catch (final ExecutionException ex)
        {
            // a JMX client may not have Ringflow's classes: only JDK exception types cross the wire
            throw new IllegalStateException(String.valueOf(ex.getCause()));
        }
        catch (final TimeoutException ex)
        {
            throw new TimeoutException("not completed within " + OPERATION_TIMEOUT_SECONDS + " s");
        }
    }
}
