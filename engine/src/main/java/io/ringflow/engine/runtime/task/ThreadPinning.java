package io.ringflow.engine.runtime.task;

import net.openhft.affinity.Affinity;

import java.lang.System.Logger.Level;

/**
 * Pins the calling thread to one core through OpenHFT Affinity. Loaded only when pinning is asked for; a platform
 * where pinning fails runs unpinned, with a warning.
 */
final class ThreadPinning
{
    private static final System.Logger LOG = System.getLogger(ThreadPinning.class.getName());

    private ThreadPinning()
    {
    }

    static void pinCurrentThread(final int cpu, final String taskName)
    {
        try
        {
            Affinity.setAffinity(cpu);
        }
        catch (final Throwable ex)
        {
            LOG.log(Level.WARNING, "could not pin task " + taskName + " to cpu " + cpu + "; running unpinned", ex);
        }
    }
}
