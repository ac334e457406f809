package io.ringflow.engine.runtime.task;

import io.ringflow.engine.checkpoint.TaskAcknowledgement;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.StateOutput;
import io.ringflow.state.checkpoint.SubtaskState;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a task's chain captured at one barrier, waiting to be written: per operator, the asynchronous part of its keyed
 * snapshot and its encoded operator state; for the head, the in-flight records of its input channels.
 *
 * <p>Thread contract: built on the task thread; {@link #write} runs once, on the flusher or, for a small capture
 * into storage that is not durable, on the task thread itself; {@link #release} on whichever thread last holds it. A
 * capture the task thread itself wrote (or found empty) is no one else's once acknowledged: the task takes it again
 * for its next barrier ({@link #reuse}), so a checkpoint of a small state builds no new capture.
 */
public final class TaskSnapshot
{
    /** The parts of an operator subtask's state, as indexes of {@link #PART_NAMES}. */
    static final int KEYED = 0;
    static final int OPERATOR = 1;
    static final int CHANNELS = 2;
    /** How each part's file name ends ({@link #fileName}). */
    private static final String[] PART_NAMES = {"keyed", "operator", "channels"};
    long checkpointId;
    private final OperatorRuntime[] operators;
    private final KeyedStateSnapshot[] keyed;
    /**
     * Per operator with keyed state: null to write it in the checkpoint's folder (a full, self-contained snapshot);
     * else it goes to the shared area, and this is the chain it extends (empty for a full snapshot that starts one).
     */
    private final List<StateHandle>[] keyedChains;
    private final OperatorStateStore.Captured[] operatorState;
    private byte[] channelState;
    private long inFlightRecords;
    private long keyedEntries;
    /** What {@link #write} wrote, in bytes. */
    private long bytesWritten;

    TaskSnapshot(final long checkpointId, final int chainLength, final OperatorRuntime[] operators)
    {
        this.checkpointId = checkpointId;
        this.operators = operators;
        this.keyed = new KeyedStateSnapshot[chainLength];
        @SuppressWarnings("unchecked")
        final List<StateHandle>[] chains = new List[chainLength];
        this.keyedChains = chains;
        this.operatorState = new OperatorStateStore.Captured[chainLength];
    }

    /**
     * Empties a capture that was acknowledged and is held by no one else (the task thread wrote it, or it was empty),
     * for the task's next barrier. Task thread.
     *
     * @param nextCheckpointId the barrier's checkpoint.
     * @return this capture, as {@link #TaskSnapshot new} would build it for the same chain.
     */
    TaskSnapshot reuse(final long nextCheckpointId)
    {
        release();
        checkpointId = nextCheckpointId;
        java.util.Arrays.fill(keyedChains, null);
        java.util.Arrays.fill(operatorState, null);
        channelState = null;
        inFlightRecords = 0;
        keyedEntries = 0;
        bytesWritten = 0;
        return this;
    }

    /**
     * @param operator index in the chain.
     * @param snapshot the asynchronous part of its keyed snapshot.
     * @param entries  how many entries it holds.
     * @param chain    null to write it in the checkpoint's folder; else it is written to the shared area, and this
     *                 is the chain it extends (a delta) or empty (a full snapshot starting a chain).
     */
    void keyed(final int operator, final KeyedStateSnapshot snapshot, final long entries,
        final List<StateHandle> chain)
    {
        keyed[operator] = snapshot;
        keyedChains[operator] = chain;
        keyedEntries += entries;
    }

    /**
     * @return whether writing it is cheap enough for the task thread when the storage is in memory: a few thousand
     *     entries, a few hundred kilobytes.
     */
    boolean isSmall()
    {
        long bytes = channelState == null ? 0 : channelState.length;
        for (final OperatorStateStore.Captured state : operatorState)
        {
            if (state != null && state.hasDeferredParts())
            {
                // its encoding is the flusher's work by design (timers): never on the task thread
                return false;
            }
            bytes += state == null ? 0 : state.estimatedBytes();
        }
        return keyedEntries <= 4_096 && bytes <= 256 * 1024;
    }

    void operatorState(final int operator, final OperatorStateStore.Captured captured)
    {
        operatorState[operator] = captured;
    }

    /**
     * @param bytes   the head's channel state, encoded.
     * @param records how many records it holds.
     */
    void channelState(final byte[] bytes, final long records)
    {
        channelState = bytes;
        inFlightRecords = records;
    }

    long inFlightBytes()
    {
        return channelState == null ? 0 : channelState.length;
    }

    long inFlightRecords()
    {
        return inFlightRecords;
    }

    /** @return whether nothing needs writing. */
    boolean isEmpty()
    {
        if (channelState != null)
        {
            return false;
        }
        for (int i = 0; i < keyed.length; i++)
        {
            if (keyed[i] != null || operatorState[i] != null)
            {
                return false;
            }
        }
        return true;
    }

    /** @return the bytes the last {@link #write} wrote. */
    long bytesWritten()
    {
        return bytesWritten;
    }

    /**
     * Writes every part to the checkpoint's storage, durably. The flusher, or the task thread for a small in-memory
     * capture.
     *
     * @param storage where.
     * @return the state of every operator that had any; {@link #bytesWritten()} is then what was written.
     * @throws IOException when a file cannot be written; the checkpoint is then declined.
     */
    List<TaskAcknowledgement.OperatorStateAck> write(final CheckpointStorage storage) throws IOException
    {
        // the usual chain has one operator with state: its acknowledgement is held without a list to grow
        TaskAcknowledgement.OperatorStateAck first = null;
        List<TaskAcknowledgement.OperatorStateAck> states = null;
        bytesWritten = 0;
        for (int i = 0; i < operators.length; i++)
        {
            final OperatorRuntime operator = operators[i];
            StateHandle keyedHandle = null;
            List<StateHandle> increments = List.of();
            if (keyed[i] != null)
            {
                final List<StateHandle> chain = keyedChains[i];
                try (StateOutput out = chain == null ?
                    storage.createStateOutput(checkpointId, operator.stateFileName(KEYED)) :
                    storage.createSharedStateOutput(checkpointId, sharedFileName(operator, keyed[i])))
                {
                    keyed[i].writeTo(out);
                    keyedHandle = out.closeAndGetHandle();
                }
                if (chain != null && !chain.isEmpty())
                {
                    // a delta joins the chain; when it completes a round of rewritten slices, the files before the
                    // round hold nothing the round does not, and the chain drops them (the round's first delta
                    // becomes its head)
                    final List<StateHandle> extended = new ArrayList<>(chain);
                    extended.add(keyedHandle);
                    final int holdingEverything = keyed[i].filesHoldingEverything();
                    final int from = holdingEverything > 0 && holdingEverything < extended.size() ?
                        extended.size() - holdingEverything : 0;
                    keyedHandle = extended.get(from);
                    increments = List.copyOf(extended.subList(from + 1, extended.size()));
                }
            }
            final StateHandle operatorHandle = operatorState[i] == null ? null :
                writeBytes(storage, operator.stateFileName(OPERATOR), operatorState[i].toBytes());
            final StateHandle channelHandle = i == 0 && channelState != null ?
                writeBytes(storage, operator.stateFileName(CHANNELS), channelState) : null;
            final SubtaskState state = new SubtaskState(keyedHandle, increments, operatorHandle, channelHandle);
            if (!state.isEmpty())
            {
                bytesWritten += (keyedHandle == null ? 0 : increments.isEmpty() ? keyedHandle.length() :
                    increments.get(increments.size() - 1).length()) +
                    (operatorHandle == null ? 0 : operatorHandle.length()) +
                    (channelHandle == null ? 0 : channelHandle.length());
                final TaskAcknowledgement.OperatorStateAck ack = new TaskAcknowledgement.OperatorStateAck(
                    operator.uid(), operator.subtaskIndex(), operator.parallelism(), operator.maxParallelism(), state);
                if (first == null)
                {
                    first = ack;
                }
                else
                {
                    if (states == null)
                    {
                        states = new ArrayList<>();
                        states.add(first);
                    }
                    states.add(ack);
                }
            }
        }
        return states != null ? states : first != null ? List.of(first) : List.of();
    }

    /** Frees the keyed snapshots' copies or pinned versions. Idempotent. */
    void release()
    {
        for (int i = 0; i < keyed.length; i++)
        {
            if (keyed[i] != null)
            {
                keyed[i].release();
                keyed[i] = null;
            }
        }
    }

    private StateHandle writeBytes(final CheckpointStorage storage, final String name, final byte[] data)
        throws IOException
    {
        try (StateOutput out = storage.createStateOutput(checkpointId, name))
        {
            out.write(data);
            return out.closeAndGetHandle();
        }
    }

    /**
     * @return a name unique in the shared area: the operator subtask's keyed file name, the checkpoint, whether it is
     *     a full snapshot or a delta, and a random suffix (another run, or an attempt that crashed, may have used the
     *     same checkpoint id in the same directory).
     */
    private String sharedFileName(final OperatorRuntime operator, final KeyedStateSnapshot snapshot)
    {
        return operator.stateFileName(KEYED) + "-chk" + checkpointId +
            (snapshot.isIncremental() ? "-delta-" : "-full-") +
            Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xFFFF_FFFFL);
    }

    /**
     * @param part {@link #KEYED}, {@link #OPERATOR} or {@link #CHANNELS}.
     * @return {@link #fileName(OperatorRuntime, String)} of the part's name.
     */
    static String fileName(final OperatorRuntime operator, final int part)
    {
        return fileName(operator, PART_NAMES[part]);
    }

    /** @return a plain file name unique to the operator subtask and part: readable uid, a hash against clashes. */
    static String fileName(final OperatorRuntime operator, final String part)
    {
        final String uid = operator.uid();
        final StringBuilder name = new StringBuilder();
        for (int i = 0; i < uid.length() && name.length() < 48; i++)
        {
            final char c = uid.charAt(i);
            name.append(Character.isLetterOrDigit(c) || c == '-' || c == '_' ? c : '_');
        }
        name.append('-');
        final String hash = Integer.toHexString(uid.hashCode());
        for (int pad = hash.length(); pad < 8; pad++)
        {
            name.append('0');
        }
        return name.append(hash).append('-').append(operator.subtaskIndex()).append('.').append(part).toString();
    }
}
