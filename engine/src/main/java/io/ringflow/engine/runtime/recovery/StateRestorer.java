package io.ringflow.engine.runtime.recovery;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.runtime.operators.TwoPhaseCommitSinkOperator;
import io.ringflow.engine.runtime.task.ChannelStateRecorder;
import io.ringflow.engine.runtime.task.InputTask;
import io.ringflow.engine.runtime.task.OperatorStateStore;
import io.ringflow.engine.runtime.task.SourceOperator;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.StateFile;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.SubtaskState;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.snapshot.KeyedSnapshotChain;
import io.ringflow.state.snapshot.KeyedSnapshotReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Hands each operator subtask of a new attempt its part of a checkpoint: a source its position, a keyed operator the
 * keyed snapshots whose key groups it now owns (any parallelism, same number of key groups), a checkpointed function
 * its operator state (its own list at the same parallelism, dealt round-robin otherwise). Every state file is checked
 * against its length and CRC32C as it is read, or was just before the restore (see {@link RestoreSpec}).
 *
 * <p>Thread contract: runs on the deploying thread, before any task starts, except the keyed part of each subtask
 * (restoring or reverting its keyed store, by far the longest part at millions of keys), which {@link #restore}
 * hands to a {@link KeyedRestores} to be run on its own thread, in parallel with other subtasks' keyed parts: each
 * one touches only its own store and its own readers of the (read-only) checkpoint, and counts into
 * {@link LocalKeyedStores}, which is thread-safe.
 */
public final class StateRestorer
{
    private static final System.Logger LOG = System.getLogger(StateRestorer.class.getName());

    private final RestoreSpec spec;
    private final CheckpointMetadata checkpoint;
    private final JobConfig config;

    /** Counts local recoveries; null when local recovery is off. */
    private final LocalKeyedStores localStores;

    /**
     * @param spec        what to restore from.
     * @param config      the job's settings.
     * @param localStores where reverts in place are counted (local recovery), or null when it is off.
     */
    public StateRestorer(final RestoreSpec spec, final JobConfig config, final LocalKeyedStores localStores)
    {
        this.spec = spec;
        this.checkpoint = spec.checkpoint();
        this.config = config;
        this.localStores = localStores;
    }

    /** @return the id of the checkpoint restored from. */
    public long checkpointId()
    {
        return checkpoint.checkpointId();
    }

    /**
     * Refuses to start when the checkpoint holds state of uids the job does not have, unless allowed.
     *
     * @param nodes the job's operators.
     */
    public void checkAllStateIsClaimed(final List<StreamNode> nodes)
    {
        final TreeSet<String> unclaimed = new TreeSet<>(checkpoint.operators().keySet());
        unclaimed.addAll(checkpoint.sourcePositions().keySet());
        for (final StreamNode node : nodes)
        {
            unclaimed.remove(node.uid());
        }
        if (!unclaimed.isEmpty() && !spec.allowNonRestoredState())
        {
            throw new InvalidJobException("checkpoint " + checkpoint.checkpointId() + " holds state of operators " +
                "this job does not have (uids " + unclaimed + "). Give the operators their old uids with .uid(...), " +
                "or allow dropping that state (allowNonRestoredState / --allow-non-restored-state)");
        }
        for (final String uid : unclaimed)
        {
            final long transactions = pendingTransactions(uid);
            System.getLogger(StateRestorer.class.getName()).log(System.Logger.Level.WARNING, "checkpoint " +
                checkpoint.checkpointId() + ": dropping the state of uid '" + uid + "', which this job does not have " +
                "(allowNonRestoredState)" + (transactions == 0 ? "" : "; it holds " + transactions + " pre-committed " +
                "transaction(s) of a transactional sink, which are aborted: never committed"));
        }
    }

    /** @return how many committables a transactional sink with this uid left in the checkpoint, 0 for other uids. */
    private long pendingTransactions(final String uid)
    {
        final OperatorState state = checkpoint.operators().get(uid);
        if (state == null)
        {
            return 0;
        }
        final List<Map.Entry<String, byte[]>> snapshots = new ArrayList<>();
        for (final SubtaskState subtask : state.subtasks())
        {
            if (subtask.operator() != null)
            {
                snapshots.add(new AbstractMap.SimpleImmutableEntry<>(subtask.operator().name(),
                    read(subtask.operator())));
            }
        }
        final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
        store.restore(snapshots, 0, -1);
        return store.restoredElements(TwoPhaseCommitSinkOperator.COMMITTABLES_STATE);
    }

    /**
     * Restores one operator subtask.
     *
     * @param node          the operator.
     * @param subtask       the subtask.
     * @param keyedStore    its keyed store, or null when it is not keyed.
     * @param operatorStore its operator state.
     * @param operator      the operator.
     * @param chainHead     whether it heads its task's chain.
     * @param keyedParts    where the keyed part of the restore goes, to be run before the task starts.
     */
    public void restore(final StreamNode node, final int subtask, final KeyedStateStore keyedStore,
        final OperatorStateStore operatorStore, final StreamOperator operator, final boolean chainHead,
        final KeyedRestores keyedParts)
    {
        final OperatorState withChannels = checkpoint.operators().get(node.uid());
        if (!chainHead && withChannels != null && withChannels.subtasks().stream().anyMatch(s -> s.channels() != null))
        {
            throw new InvalidJobException("checkpoint " + checkpoint.checkpointId() + " holds in-flight records " +
                "of " + node.describe() + ", which is now chained behind another operator and has no input " +
                "channels to replay them into: keep the chaining as it was (disableChaining) or restore from an " +
                "aligned checkpoint");
        }
        final List<Long> positions = checkpoint.sourcePositions().get(node.uid());
        if (positions != null && operator instanceof SourceOperator source && source.keepsPositionInState())
        {
            source.restoreFormerPositions(positions);
        }
        else if (positions != null && operator instanceof SourceOperator)
        {
            if (positions.size() != node.parallelism())
            {
                throw new InvalidJobException(node.describe() + " has parallelism " + node.parallelism() + " but " +
                    "checkpoint " + checkpoint.checkpointId() + " recorded " + positions.size() + " source " +
                    "positions for it: a source cannot change its parallelism on restore");
            }
            ((SourceOperator)operator).restorePosition(positions.get(subtask));
        }
        final OperatorState state = checkpoint.operators().get(node.uid());
        if (keyedStore != null && keyedStore.canRevertTo(checkpoint.checkpointId()))
        {
            // local recovery: the failed attempt's store, which took this checkpoint's snapshot itself (so the key
            // groups are the same); the checkpoint may hold no keyed state for it (empty then), still reverted
            keyedParts.add(() -> revertKeyed(node, subtask, keyedStore, state));
        }
        else if (state != null && state.subtasks().stream().anyMatch(s -> s.keyed() != null))
        {
            checkKeyedRestorable(node, keyedStore, state);
            keyedParts.add(() -> restoreKeyed(node, subtask, keyedStore, state));
        }
        if (state != null)
        {
            restoreOperatorState(node, subtask, operatorStore, state);
        }
    }

    /**
     * Gives the head of an input task the in-flight records its subtask stored (unaligned checkpoints); they are
     * replayed before any new input. Needs the same parallelism as when they were stored.
     *
     * @param head    the chain's head operator.
     * @param subtask the subtask.
     * @param task    its task.
     */
    public void restoreChannelState(final StreamNode head, final int subtask, final InputTask task)
    {
        final OperatorState state = checkpoint.operators().get(head.uid());
        if (state == null || state.subtasks().stream().allMatch(s -> s.channels() == null))
        {
            return;
        }
        if (state.parallelism() != head.parallelism())
        {
            throw new InvalidJobException("checkpoint " + checkpoint.checkpointId() + " is unaligned and holds " +
                "in-flight records of " + head.describe() + " at parallelism " + state.parallelism() + ", which " +
                "cannot be restored at parallelism " + head.parallelism() + ": restore it at the same parallelism, " +
                "or take an aligned checkpoint or savepoint to rescale");
        }
        final StateHandle handle = state.subtasks().get(subtask).channels();
        if (handle != null)
        {
            final byte[] bytes = read(handle);
            try
            {
                ChannelStateRecorder.checkLayout(bytes, handle.name(), task.inputIndexes());
            }
            catch (final IllegalStateException ex)
            {
                throw new InvalidJobException("cannot restore checkpoint " + checkpoint.checkpointId() + " into " +
                    head.describe() + " subtask " + subtask + ": " + ex.getMessage(), ex);
            }
            task.restoreChannelState(bytes, handle.name());
        }
    }

    /** Runs on a {@link KeyedRestores} thread. */
    private void revertKeyed(final StreamNode node, final int subtask, final KeyedStateStore keyedStore,
        final OperatorState state)
    {
        final List<KeyedSnapshotReader> readers = state == null ? List.of() : keyedReaders(node, subtask, state);
        final long rewritten;
        try
        {
            rewritten = keyedStore.revertTo(checkpoint.checkpointId(), readers);
        }
        finally
        {
            close(readers);
        }
        if (localStores != null)
        {
            localStores.reverted(rewritten);
        }
    }

    /** Refuses, on the deploying thread, keyed state that cannot be restored into this operator. */
    private void checkKeyedRestorable(final StreamNode node, final KeyedStateStore keyedStore,
        final OperatorState state)
    {
        if (keyedStore == null)
        {
            throw new InvalidJobException("checkpoint " + checkpoint.checkpointId() + " holds keyed state of " +
                node.describe() + ", whose input is no longer keyed");
        }
        if (state.maxParallelism() != config.maxParallelism())
        {
            throw new InvalidJobException("checkpoint " + checkpoint.checkpointId() + " was taken with max " +
                "parallelism " + state.maxParallelism() + " and keyed state cannot be restored with " +
                config.maxParallelism() + ": set JobConfig maxParallelism back to " + state.maxParallelism());
        }
    }

    /** Runs on a {@link KeyedRestores} thread. */
    private void restoreKeyed(final StreamNode node, final int subtask, final KeyedStateStore keyedStore,
        final OperatorState state)
    {
        final List<KeyedSnapshotReader> readers = keyedReaders(node, subtask, state);
        try
        {
            keyedStore.restore(readers);
        }
        finally
        {
            close(readers);
        }
        if (state.parallelism() == node.parallelism() && subtask < state.subtasks().size() &&
            !state.subtasks().get(subtask).keyedChain().isEmpty())
        {
            // same key groups, restored from this subtask's own chain only: the store holds exactly that snapshot
            keyedStore.restoredFrom(checkpoint.checkpointId());
        }
    }

    private void close(final List<KeyedSnapshotReader> readers)
    {
        for (final KeyedSnapshotReader reader : readers)
        {
            try
            {
                reader.close();
            }
            catch (final IOException ex)
            {
                LOG.log(System.Logger.Level.WARNING, "cannot close state file " + reader.file() + ": " + ex);
            }
        }
    }

    /** @return the checkpoint's keyed snapshots of the key groups the subtask owns, a chain merged into one. */
    private List<KeyedSnapshotReader> keyedReaders(final StreamNode node, final int subtask,
        final OperatorState state)
    {
        final KeyGroupRange mine = KeyGroups.rangeOf(subtask, config.maxParallelism(), node.parallelism());
        final List<KeyedSnapshotReader> readers = new ArrayList<>();
        for (int old = 0; old < state.parallelism(); old++)
        {
            final List<StateHandle> chain = state.subtasks().get(old).keyedChain();
            final KeyGroupRange theirs = KeyGroups.rangeOf(old, state.maxParallelism(), state.parallelism());
            if (!chain.isEmpty() && theirs.start() <= mine.end() && mine.start() <= theirs.end())
            {
                // a full snapshot, or the full snapshot and deltas of an incremental chain, merged into one: only
                // the key groups this subtask owns, read by position one key group at a time (the files need not
                // fit in the heap)
                final List<KeyedSnapshotReader> files = new ArrayList<>(chain.size());
                try
                {
                    for (final StateHandle handle : chain)
                    {
                        files.add(KeyedSnapshotReader.open(open(handle)));
                    }
                    readers.add(KeyedSnapshotChain.merge(files, mine));
                }
                catch (final IOException | RuntimeException ex)
                {
                    close(files);
                    close(readers);
                    throw ex instanceof IOException io ? new UncheckedIOException("cannot read keyed state of " +
                        "checkpoint " + checkpoint.checkpointId() + " from " + spec.storage().describe(), io) :
                        (RuntimeException)ex;
                }
            }
        }
        return readers;
    }

    private void restoreOperatorState(final StreamNode node, final int subtask, final OperatorStateStore store,
        final OperatorState state)
    {
        // every former subtask's snapshot: union list states need all of them, list states this subtask's share
        final List<Map.Entry<String, byte[]>> snapshots = new ArrayList<>();
        final boolean same = state.parallelism() == node.parallelism();
        int own = OperatorStateStore.DEAL;
        for (int old = 0; old < state.parallelism(); old++)
        {
            final StateHandle handle = state.subtasks().get(old).operator();
            if (handle != null)
            {
                if (same && old == subtask)
                {
                    own = snapshots.size();
                }
                snapshots.add(new AbstractMap.SimpleImmutableEntry<>(handle.name(), read(handle)));
            }
        }
        if (same && own == OperatorStateStore.DEAL)
        {
            own = snapshots.size(); // this subtask snapshotted nothing: none of the list elements are its own
        }
        store.restore(snapshots, subtask, node.parallelism(), own);
    }

    private StateFile open(final StateHandle handle)
    {
        try
        {
            return spec.stateFilesVerified() ? spec.storage().openVerifiedState(checkpoint.checkpointId(), handle) :
                spec.storage().openState(checkpoint.checkpointId(), handle);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read state file " + handle.name() + " of checkpoint " +
                checkpoint.checkpointId() + " from " + spec.storage().describe(), ex);
        }
    }

    private byte[] read(final StateHandle handle)
    {
        try
        {
            return spec.storage().readState(checkpoint.checkpointId(), handle);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read state file " + handle.name() + " of checkpoint " +
                checkpoint.checkpointId() + " from " + spec.storage().describe(), ex);
        }
    }
}
