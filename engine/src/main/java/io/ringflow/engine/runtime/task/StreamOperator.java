package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.CheckpointListener;
import io.ringflow.engine.api.functions.CheckpointedFunction;

/**
 * The runtime form of a logical operator, one instance per subtask. All methods are called on the task thread, in
 * this order: {@link #setup}, {@link #open}, any number of {@code processElement*} and {@link #onBarrier} calls,
 * {@link #endInput} once all inputs have ended (not on failure or cancellation), then {@link #close} always.
 */
public abstract class StreamOperator
{
    /** Where results go; set by {@link #setup}. */
    protected Output output;
    /** Names, subtask, keyed state; set by {@link #setup}. */
    protected OperatorRuntime runtime;

    public final void setup(final OperatorRuntime runtime, final Output output)
    {
        this.runtime = runtime;
        this.output = output;
    }

    /** @return the operator's identity, for errors and statistics. */
    public final OperatorRuntime runtime()
    {
        return runtime;
    }

    /**
     * Lets the user object declare (and get back) its operator state: called before {@link #open}. Operators whose
     * user object only exists after {@link #open} (a source's reader, a sink's writer) override this with nothing and
     * call {@link #initializeListenerState} once it exists.
     *
     * @throws Exception fails the task.
     */
    public void initializeState() throws Exception
    {
        initializeListenerState();
    }

    /**
     * Calls the user object's {@link CheckpointedFunction#initializeState} if it has one.
     *
     * @throws Exception fails the task.
     */
    protected final void initializeListenerState() throws Exception
    {
        if (listener() instanceof CheckpointedFunction)
        {
            ((CheckpointedFunction)listener()).initializeState(runtime.operatorStateStore());
        }
    }

    /**
     * Prepares the operator: open user functions, create readers or writers.
     *
     * @throws Exception fails the task.
     */
    public void open() throws Exception
    {
    }

    /**
     * A record of the (first) input.
     *
     * @param record the record.
     * @throws Exception fails the task.
     */
    public void processElement(final Object record) throws Exception
    {
        throw new IllegalStateException(getClass().getSimpleName() + " has no input");
    }

    /**
     * A record of the (first) input that arrived through a ring: {@code keyGroup} is the key group the producer
     * computed when it sent the record by key, or {@link io.ringflow.engine.channel.SlotDescriptor#NO_KEY_GROUP}. A
     * keyed operator scopes its state with it instead of hashing the key again; the others ignore it.
     *
     * @param record   the record.
     * @param keyGroup the key group of its key, or NO_KEY_GROUP.
     * @throws Exception fails the task.
     */
    public void processElement(final Object record, final int keyGroup) throws Exception
    {
        processElement(record);
    }

    /**
     * A record of the (first) input that a producer sent by its {@code Long} key: {@code key} is that key, unboxed, so a
     * keyed operator need not extract it again. Operators that are not keyed ignore it.
     *
     * @param record   the record.
     * @param keyGroup the key group of its key.
     * @param key      its key.
     * @throws Exception fails the task.
     */
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        processElement(record, keyGroup);
    }

    /**
     * Whether {@link #prefetchKey} does anything now: the record loop then reads the {@code Long} keys in the next
     * few slots and passes them to it. False unless a keyed operator's state store prefetches (the keyed process and
     * reduce operators ask theirs). Task thread; asked once per run of records.
     *
     * @return whether to pass upcoming keys to {@link #prefetchKey}.
     */
    public boolean prefetchesKeys()
    {
        return false;
    }

    /**
     * A hint that a record of the first input with this {@code Long} key follows soon: {@link
     * io.ringflow.state.backend.KeyedStateStore#prefetch}. Called only in a run of records for which
     * {@link #prefetchesKeys()} returned true. Changes nothing and never throws. Task thread.
     *
     * @param key the upcoming record's key, as its producer sent it.
     * @return a value of no meaning that the caller folds into a field, so the JIT keeps the loads.
     */
    public long prefetchKey(final long key)
    {
        return 0L;
    }

    /**
     * A record of the second input sent by its {@code Long} key; see {@link #processElement(Object, int, long)}.
     *
     * @param record   the record.
     * @param keyGroup the key group of its key.
     * @param key      its key.
     * @throws Exception fails the task.
     */
    public void processElement2(final Object record, final int keyGroup, final long key) throws Exception
    {
        processElement2(record, keyGroup);
    }

    /**
     * A record of the second input that arrived through a ring; see {@link #processElement(Object, int)}.
     *
     * @param record   the record.
     * @param keyGroup the key group of its key, or NO_KEY_GROUP.
     * @throws Exception fails the task.
     */
    public void processElement2(final Object record, final int keyGroup) throws Exception
    {
        processElement2(record);
    }

    /**
     * A record of the second input of a two-input operator.
     *
     * @param record the record.
     * @throws Exception fails the task.
     */
    public void processElement2(final Object record) throws Exception
    {
        throw new IllegalStateException(getClass().getSimpleName() + " has no second input");
    }

    /**
     * A barrier passes the operator: every record before it has been processed, none after. Checkpointing hooks in
     * here.
     *
     * @param checkpointId the barrier's checkpoint id.
     * @throws Exception fails the task.
     */
    public void onBarrier(final long checkpointId) throws Exception
    {
        snapshotListener(checkpointId);
    }

    /**
     * Checkpoint {@code checkpointId} completed: every task acknowledged it.
     *
     * @param checkpointId the checkpoint.
     * @throws Exception fails the task.
     */
    public void notifyCheckpointComplete(final long checkpointId) throws Exception
    {
        if (listener() instanceof CheckpointListener)
        {
            ((CheckpointListener)listener()).notifyCheckpointComplete(checkpointId);
        }
    }

    /**
     * Checkpoint {@code checkpointId} will not complete.
     *
     * @param checkpointId the checkpoint.
     * @throws Exception fails the task.
     */
    public void notifyCheckpointAborted(final long checkpointId) throws Exception
    {
        if (listener() instanceof CheckpointListener)
        {
            ((CheckpointListener)listener()).notifyCheckpointAborted(checkpointId);
        }
    }

    /**
     * @return the user object that may listen to checkpoints and snapshot itself (a function, a reader, a writer),
     *     or null.
     */
    protected Object listener()
    {
        return null;
    }

    /**
     * Calls the user object's {@link CheckpointedFunction#snapshotState} if it has one: the default
     * {@link #onBarrier}.
     *
     * @param checkpointId the checkpoint.
     * @throws Exception declines the checkpoint and fails the task.
     */
    protected final void snapshotListener(final long checkpointId) throws Exception
    {
        if (listener() instanceof CheckpointedFunction)
        {
            ((CheckpointedFunction)listener()).snapshotState(checkpointId);
        }
    }

    /**
     * The task's event time advanced to {@code watermark} (the minimum over its input channels, or what a timestamp
     * assigner upstream in the chain emitted). The default forwards it; an operator with event-time timers fires
     * the timers it made due first (possibly in bounded batches, {@link #fireTimers}) and forwards only what it has
     * fully fired.
     *
     * @param watermark the new watermark, larger than any before.
     * @throws Exception fails the task.
     */
    public void processWatermark(final long watermark) throws Exception
    {
        output.emitWatermark(watermark);
    }

    /**
     * The task's input went idle or is active again. The default forwards it.
     *
     * @param idle the new status.
     */
    public void processWatermarkStatus(final boolean idle)
    {
        output.emitWatermarkStatus(idle);
    }

    /**
     * @return whether this operator has timers or periodic work, so its task asks {@link #fireTimers} each cycle.
     *     Asked once, after {@link #open}.
     */
    public boolean usesTimers()
    {
        return false;
    }

    /**
     * @return the processing time (epoch ms) this operator next wants {@link #fireTimers} called at, or
     *     {@link Long#MAX_VALUE} when it has nothing due in processing time.
     */
    public long nextProcessingTime()
    {
        return Long.MAX_VALUE;
    }

    /** @return whether an event-time firing pass was interrupted and has timers left to fire. */
    public boolean hasPendingTimers()
    {
        return false;
    }

    /**
     * Fires due timers: processing-time timers at or before {@code now}, and what is left of an event-time pass; at
     * most {@code budget} in all.
     *
     * @param now    processing time, epoch ms.
     * @param budget the most timers to fire.
     * @return how many were fired (or how much periodic work was done).
     * @throws Exception fails the task.
     */
    public int fireTimers(final long now, final int budget) throws Exception
    {
        return 0;
    }

    /**
     * Asked once every input has ended (after {@link #endInput}) and after each checkpoint notification until it
     * says no: whether the operator holds output that only a completed checkpoint may release (a transactional
     * sink's pre-committed transactions). While any operator of a task says yes, the task does not finish: it takes
     * part in checkpoints on its own (it has no more barriers coming) and asks for one.
     *
     * @return true while output waits for a checkpoint to complete.
     */
    public boolean holdsUncommittedOutput()
    {
        return false;
    }

    /**
     * Every input has ended; emit whatever is buffered.
     *
     * @throws Exception fails the task.
     */
    public void endInput() throws Exception
    {
    }

    /**
     * Releases resources; called once, whether the task finished or failed.
     *
     * @throws Exception reported unless an earlier failure is already being reported.
     */
    public void close() throws Exception
    {
    }
}
