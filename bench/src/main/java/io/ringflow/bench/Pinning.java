package io.ringflow.bench;

import net.openhft.affinity.Affinity;

/**
 * Pins a harness thread (not a Ringflow task: those are pinned by the engine, through {@code JobConfig.cpus}) to one
 * core with OpenHFT Affinity, as the engine does. Loaded only when pinning is asked for.
 */
final class Pinning
{
    private Pinning()
    {
    }

    /**
     * @param cpu the core.
     * @return null when pinned, otherwise why not (the thread then runs unpinned).
     */
    static String pinCurrentThread(final int cpu)
    {
        try
        {
            Affinity.setAffinity(cpu);
            return null;
        }
        catch (final Throwable ex)
        {
            return "could not pin " + Thread.currentThread().getName() + " to cpu " + cpu + ": " + ex;
        }
    }
}
