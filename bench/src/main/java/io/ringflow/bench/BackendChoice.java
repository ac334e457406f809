package io.ringflow.bench;

import io.ringflow.state.backend.StateBackend;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.heap.HeapStateBackend;

/** The keyed-state backends, as a benchmark parameter. */
public enum BackendChoice
{
    /** On-heap maps: {@link HeapStateBackend}. */
    HEAP,
    /** Off-heap Chronicle Maps, the default: {@link ChronicleStateBackend}. */
    CHRONICLE;

    /**
     * @param chronicle the Chronicle sizing, used by {@link #CHRONICLE}.
     * @return the backend.
     */
    public StateBackend create(final ChronicleStateConfig chronicle)
    {
        return this == HEAP ? new HeapStateBackend() : new ChronicleStateBackend(chronicle);
    }
}
