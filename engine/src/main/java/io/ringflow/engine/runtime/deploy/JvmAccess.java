package io.ringflow.engine.runtime.deploy;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks, before a job allocates its rings, that the JVM lets Agrona reach {@code jdk.internal.misc}; without it the
 * first ring would fail with an {@link IllegalAccessError} deep inside Agrona. Ringflow's own jars carry the flags
 * in their manifests and its Maven builds pass them; an application that embeds Ringflow passes them itself.
 */
public final class JvmAccess
{
    /** The flag the engine cannot run without. */
    public static final String REQUIRED_FLAG = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";

    private JvmAccess()
    {
    }

    /**
     * @throws IllegalStateException naming the missing JVM flag.
     */
    public static void check()
    {
        final Module agrona = UnsafeBuffer.class.getModule();
        if (!Object.class.getModule().isExported("jdk.internal.misc", agrona))
        {
            throw new IllegalStateException("Ringflow's off-heap ring slots (Agrona) need access to jdk.internal.misc:" +
                " start the JVM with " + REQUIRED_FLAG + " (the README's 'Embedding Ringflow' section lists every" +
                " flag; Ringflow's executable jars carry them in their manifests)");
        }
    }
}
