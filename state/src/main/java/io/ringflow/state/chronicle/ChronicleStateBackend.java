package io.ringflow.state.chronicle;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.backend.KeyedStoreSpec;
import io.ringflow.state.backend.StateBackend;

import java.util.Objects;

/**
 * Keyed state as encoded bytes in off-heap Chronicle Maps (or memory-mapped files): state costs the garbage
 * collector nothing and may exceed the heap; snapshots are copy-on-write with a synchronous part independent of the
 * number of keys; incremental snapshots are supported. Hot keys of value states are served from a small on-heap
 * front. Needs the JVM flags of the root pom's {@code ringflow.jvm.flags} (Chronicle reaches into JDK internals):
 * creating a store in a JVM started without them fails with an {@link IllegalStateException} naming them. The default
 * backend; {@link io.ringflow.state.heap.HeapStateBackend} needs no flag.
 */
public final class ChronicleStateBackend implements StateBackend
{
    private final ChronicleStateConfig config;

    /** With {@link ChronicleStateConfig#defaults()}. */
    public ChronicleStateBackend()
    {
        this(ChronicleStateConfig.defaults());
    }

    /**
     * Checks the sizing here, when the job is configured, rather than when its first store is created: a
     * {@code maxEntrySize} that maps of {@code expectedEntriesPerState} entries cannot hold is refused now, naming
     * both and the largest entry they take. The check builds one in-memory Chronicle Map of the configured sizing
     * (not for the default sizing, which is known to fit); in a JVM without Chronicle's flags it is left to store
     * creation, which names the flags.
     *
     * @param config the sizing and location of the maps.
     * @throws IllegalArgumentException when Chronicle Map cannot be sized by it.
     */
    public ChronicleStateBackend(final ChronicleStateConfig config)
    {
        this.config = Objects.requireNonNull(config, "config");
        if (!config.sizedAsDefaults() &&
            ChronicleJvmAccess.missing(net.openhft.chronicle.map.ChronicleMap.class.getModule()).isEmpty())
        {
            StateMapFactory.checkEntryCapacity(config);
        }
    }

    /** @return the sizing and location of the maps. */
    public ChronicleStateConfig config()
    {
        return config;
    }

    @Override
    public String name()
    {
        return "chronicle";
    }

    @Override
    public boolean supportsIncrementalSnapshots()
    {
        return true;
    }

    @Override
    public KeyedStateStore createKeyedStore(final KeyedStoreSpec spec)
    {
        final ChronicleKeyedStateStore store;
        try
        {
            store = new ChronicleKeyedStateStore(config, spec.codecs(), spec.maxParallelism(), spec.keyGroups());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("cannot create the Chronicle state of " + spec.owner() + ": " +
                ex.getMessage(), ex);
        }
        // the engine clears the current key after every record, before its task can wait for anything (see
        // StateBackend): a read's lookup may stay open until the write that follows it
        store.holdLookups();
        if (spec.trackChanges())
        {
            store.trackChanges();
        }
        return store;
    }

    @Override
    public String toString()
    {
        return "ChronicleStateBackend{" + config + '}';
    }
}
