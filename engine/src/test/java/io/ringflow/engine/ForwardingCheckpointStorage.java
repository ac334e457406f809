package io.ringflow.engine;

import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.StateFile;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.StateOutput;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * For tests: a storage that hands every call to another, for subclasses that inject faults or count calls by
 * overriding some of them. Thread contract: the delegate's.
 */
public class ForwardingCheckpointStorage implements CheckpointStorage
{
    /** Where every call goes. */
    protected final CheckpointStorage delegate;

    /** @param delegate where every call goes. */
    public ForwardingCheckpointStorage(final CheckpointStorage delegate)
    {
        this.delegate = delegate;
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
    public StateFile openState(final long checkpointId, final StateHandle handle) throws IOException
    {
        return delegate.openState(checkpointId, handle);
    }

    @Override
    public StateFile openVerifiedState(final long checkpointId, final StateHandle handle) throws IOException
    {
        return delegate.openVerifiedState(checkpointId, handle);
    }

    @Override
    public void verifyState(final long checkpointId, final StateHandle handle) throws IOException
    {
        delegate.verifyState(checkpointId, handle);
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
        return delegate.describe();
    }
}
