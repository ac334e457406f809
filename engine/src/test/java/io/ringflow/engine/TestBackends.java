package io.ringflow.engine;

import io.ringflow.state.backend.StateBackend;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import io.ringflow.state.heap.HeapStateBackend;

/** Both keyed-state backends, for tests that run against each. */
public enum TestBackends
{
    HEAP,
    CHRONICLE;

    /** @return a new backend of this kind, with its defaults. */
    public StateBackend create()
    {
        return this == HEAP ? new HeapStateBackend() : new ChronicleStateBackend();
    }
}
