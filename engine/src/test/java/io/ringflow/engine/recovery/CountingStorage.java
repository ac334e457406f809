package io.ringflow.engine.recovery;

import io.ringflow.engine.ForwardingCheckpointStorage;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.StateFile;
import io.ringflow.state.checkpoint.StateHandle;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A storage that hands every call to another and counts, per state file name, how each was read: checked whole
 * ({@link #verifyState}), opened and checked ({@link #openState}), opened after a check ({@link #openVerifiedState}).
 *
 * <p>Thread contract: the counts may be read from any thread.
 */
final class CountingStorage extends ForwardingCheckpointStorage
{
    final Map<String, Integer> verified = new ConcurrentHashMap<>();
    final Map<String, Integer> openedAndChecked = new ConcurrentHashMap<>();
    final Map<String, Integer> openedVerified = new ConcurrentHashMap<>();

    CountingStorage(final CheckpointStorage delegate)
    {
        super(delegate);
    }

    @Override
    public void verifyState(final long checkpointId, final StateHandle handle) throws IOException
    {
        verified.merge(handle.name(), 1, Integer::sum);
        super.verifyState(checkpointId, handle);
    }

    @Override
    public StateFile openState(final long checkpointId, final StateHandle handle) throws IOException
    {
        openedAndChecked.merge(handle.name(), 1, Integer::sum);
        return super.openState(checkpointId, handle);
    }

    @Override
    public StateFile openVerifiedState(final long checkpointId, final StateHandle handle) throws IOException
    {
        openedVerified.merge(handle.name(), 1, Integer::sum);
        return super.openVerifiedState(checkpointId, handle);
    }

    @Override
    public String describe()
    {
        return "counting " + super.describe();
    }
}
