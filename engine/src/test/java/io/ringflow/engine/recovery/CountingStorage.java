package io.ringflow.engine.recovery;

import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.StateFile;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.StateOutput;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A storage that hands every call to another and counts, per state file name, how each was read: checked whole
 * ({@link #verifyState}), opened and checked ({@link #openState}), opened after a check ({@link #openVerifiedState}).
 *
 * <p>Thread contract: the counts may be read from any thread.
 */
final class CountingStorage implements CheckpointStorage
{
    final Map<String, Integer> verified = new ConcurrentHashMap<>();
    final Map<String, Integer> openedAndChecked = new ConcurrentHashMap<>();
    final Map<String, Integer> openedVerified = new ConcurrentHashMap<>();
    private final CheckpointStorage delegate;

    CountingStorage(final CheckpointStorage delegate)
    {
        this.delegate = delegate;
    }

    @Override
    public void verifyState(final long checkpointId, final StateHandle handle) throws IOException
    {
        verified.merge(handle.name(), 1, Integer::sum);
        delegate.verifyState(checkpointId, handle);
    }

    @Override
    public StateFile openState(final long checkpointId, final StateHandle handle) throws IOException
    {
        openedAndChecked.merge(handle.name(), 1, Integer::sum);
        return delegate.openState(checkpointId, handle);
    }

    @Override
    public StateFile openVerifiedState(final long checkpointId, final StateHandle handle) throws IOException
    {
        openedVerified.merge(handle.name(), 1, Integer::sum);
        return delegate.openVerifiedState(checkpointId, handle);
    }

    @Override
    public StateOutput createStateOutput(final long checkpointId, final String name) throws IOException
    {
        return delegate.createStateOutput(checkpointId, name);
    }

    @Override
    public StateOutput createSharedStateOutput(final long checkpointId, final String name) throws IOException
    {
        return delegate.createSharedStateOutput(checkpointId, name);
    }

    @Override
    public byte[] readState(final long checkpointId, final StateHandle handle) throws IOException
    {
        return delegate.readState(checkpointId, handle);
    }

    @Override
    public void commit(final CheckpointMetadata metadata) throws IOException
    {
        delegate.commit(metadata);
    }

    @Override
    public void prune(final long newest, final int retained, final Set<Long> pinned)
    {
        delegate.prune(newest, retained, pinned);
    }

    @Override
    public void discardPending(final long checkpointId) throws IOException
    {
        delegate.discardPending(checkpointId);
    }

    @Override
    public List<Long> discardIncomplete() throws IOException
    {
        return delegate.discardIncomplete();
    }

    @Override
    public List<Long> checkpointIds() throws IOException
    {
        return delegate.checkpointIds();
    }

    @Override
    public CheckpointMetadata load(final long checkpointId) throws IOException
    {
        return delegate.load(checkpointId);
    }

    @Override
    public void discardAll() throws IOException
    {
        delegate.discardAll();
    }

    @Override
    public boolean isDurable()
    {
        return delegate.isDurable();
    }

    @Override
    public String describe()
    {
        return "counting " + delegate.describe();
    }
}
