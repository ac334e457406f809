package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.OutputTag;
import io.ringflow.engine.api.windowing.ProcessWindowFunction;
import io.ringflow.engine.api.windowing.TimeWindow;
import io.ringflow.engine.api.windowing.Trigger;
import io.ringflow.engine.api.windowing.WindowAssigner;
import io.ringflow.engine.api.windowing.WindowResultFunction;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.NullKeyException;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.AggregateFunction;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReduceFunction;

import java.util.ArrayList;
import java.util.List;

/**
 * Windows on a keyed stream, built on keyed state and {@link KeyedTimers}, so both backends, incremental checkpoints,
 * savepoints and rescaling work as for any keyed state.
 *
 * <p>State, per key: {@value #CONTENTS} maps each open window to its value (the reduced record, or the aggregate's
 * accumulator); a window function that sees whole contents keeps its records in {@value #ELEMENTS} (window and
 * position to record) and their number in {@value #COUNTS}, which a count trigger also uses. Timers, per key and time:
 * the window's end (its last instant, {@code end - 1}) for the default trigger, interval boundaries for a continuous
 * one, and the window's cleanup time (end - 1 + allowed lateness) in event time.
 *
 * <p>A record whose every window is past its cleanup time (its window's end plus the allowed lateness is at or below
 * the watermark) is late: it goes to the late-data side output if one is set, else it is dropped and counted
 * ({@link #lateRecordsDropped()}, and a warning at the first and at close). A record late only for the end of a
 * window still within its lateness updates the window and fires it again at once.
 *
 * <p><b>Write-back cache.</b> Non-merging windows with a reduce or aggregate function and a time trigger (the common
 * case: tumbling or sliding counts, sums, averages) keep each window's value in a heap cache while the window is
 * open, so a record costs one hash lookup and the user's fold, not a state read and write (a key's map state is one
 * entry of the Chronicle backend, re-encoded on every write). The cache is written back to keyed state at every
 * barrier (before the snapshot, so checkpoints hold every value), before any timer fires (firing reads state), and
 * when it holds more than {@value #CACHE_LIMIT} windows (then it is emptied). A window met for the first time is
 * looked up in keyed state once. Keyed state is therefore exact at every barrier and every firing; between them
 * the cache is ahead of it, which nothing reads.
 *
 * <p>Thread contract: the task thread.
 */
public final class WindowOperator extends StreamOperator implements KeyedTimers.Target
{
    /** The state of windows' values. */
    public static final String CONTENTS = "ringflow.window.contents";
    /** The state of windows' records (whole-contents functions). */
    public static final String ELEMENTS = "ringflow.window.elements";
    /** The state of windows' record counts. */
    public static final String COUNTS = "ringflow.window.counts";
    private static final System.Logger LOG = System.getLogger(WindowOperator.class.getName());
    /** Most windows the write-back cache holds before it is written back and emptied. */
    static final int CACHE_LIMIT = 1 << 16;

    /** One cached window of one key: the key (unboxed when a {@code Long}), the window, its value. */
    private static final class CachedWindow
    {
        boolean longKey;
        long key;
        Object objectKey;
        int keyGroup;
        long start;
        long end;
        Object value;
        boolean dirty;

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof CachedWindow that && that.start == start && that.end == end &&
                that.longKey == longKey && (longKey ? that.key == key : that.objectKey.equals(objectKey));
        }

        @Override
        public int hashCode()
        {
            final int keyHash = longKey ? Long.hashCode(key) : objectKey.hashCode();
            return (keyHash * 31 + Long.hashCode(start)) * 31 + Long.hashCode(end);
        }
    }

    /** A record of a window, by position: the key of {@value #ELEMENTS}. */
    public record WindowElement(long start, long end, long index)
    {
    }

    private final WindowAssigner assigner;
    private final Trigger trigger;
    private final long allowedLateness;
    private final OutputTag<Object> lateTag;
    private final KeySelector<Object, Object> keySelector;
    private final ReduceFunction<Object> reduce;
    private final AggregateFunction<Object, Object, Object> aggregate;
    private final ProcessWindowFunction<Object, Object, Object> process;
    private final WindowResultFunction<Object, Object, Object> result;
    private final Class<?> valueType;
    private final Class<?> inputType;
    private final KeyedTimers timers = new KeyedTimers(this);
    private final long[] starts;
    private final boolean counted;
    private KeyedStateStore state;
    private MapState<TimeWindow, Object> contents;
    private MapState<WindowElement, Object> elements;
    private MapState<TimeWindow, Long> counts;
    private RecordTimestamp timestamps;
    private Output lateOutput;
    private int currentKeyGroup;
    private long lateRecordsDropped;
    private final List<TimeWindow> scratch = new ArrayList<>();
    /**
     * Whether the keyed store hands out the objects it holds (the heap backend) rather than decoded copies: then a
     * value taken from state is copied before it is folded, and one put into state is a copy, so a snapshot that
     * shares the stored object never sees a later change (an {@code AggregateFunction} may change its accumulator).
     */
    private boolean sharesValues;
    private io.ringflow.state.codec.Codec<Object> valueCodec;
    private final io.ringflow.state.codec.CodecBuffer copyBuffer = io.ringflow.state.codec.CodecBuffer.growable(256);
    /** Whether the write-back cache is used (see the class comment). */
    private final boolean cached;
    private final java.util.HashMap<CachedWindow, CachedWindow> cache = new java.util.HashMap<>();
    private final CachedWindow probe = new CachedWindow();
    /** The current record's key, unboxed when a {@code Long}; the store's current key is set only when needed. */
    private boolean currentLongKey;
    private long currentKey;
    private Object currentObjectKey;
    private boolean storeKeySet;

    /**
     * @param assigner        the windows.
     * @param trigger         when they fire.
     * @param allowedLateness how long after its end a window still takes records, ms (event time).
     * @param lateTag         where records too late for every window go, or null (dropped and counted).
     * @param keySelector     the key.
     * @param reduce          a reduce function, or null.
     * @param aggregate       an aggregate function, or null.
     * @param process         a whole-contents function (this subtask's own instance), or null.
     * @param result          turns a reduced or aggregated value into the emitted record, or null (emit it as is).
     * @param valueType       what {@value #CONTENTS} holds: the input type (reduce) or the accumulator type.
     * @param inputType       the record type.
     */
    @SuppressWarnings("unchecked")
    public WindowOperator(final WindowAssigner assigner, final Trigger trigger, final long allowedLateness,
        final OutputTag<?> lateTag, final KeySelector<?, ?> keySelector, final ReduceFunction<?> reduce,
        final AggregateFunction<?, ?, ?> aggregate, final ProcessWindowFunction<?, ?, ?> process,
        final WindowResultFunction<?, ?, ?> result, final Class<?> valueType, final Class<?> inputType)
    {
        this.assigner = assigner;
        this.trigger = trigger;
        this.allowedLateness = assigner.isEventTime() ? allowedLateness : 0;
        this.lateTag = (OutputTag<Object>)lateTag;
        this.keySelector = (KeySelector<Object, Object>)keySelector;
        this.reduce = (ReduceFunction<Object>)reduce;
        this.aggregate = (AggregateFunction<Object, Object, Object>)aggregate;
        this.process = (ProcessWindowFunction<Object, Object, Object>)process;
        this.result = (WindowResultFunction<Object, Object, Object>)result;
        this.valueType = valueType;
        this.inputType = inputType;
        this.starts = new long[assigner.windowsPerRecord()];
        this.counted = process != null || trigger.kind() == Trigger.Kind.COUNT;
        this.cached = !assigner.isMerging() && process == null && !counted;
    }

    @Override
    public void initializeState() throws Exception
    {
        timers.initializeState(runtime);
        initializeListenerState();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception
    {
        state = runtime.keyedStateStore();
        timestamps = runtime.time().timestamp;
        if (process == null)
        {
            contents = state.getMapState(new MapStateDescriptor<>(CONTENTS, TimeWindow.class, (Class<Object>)valueType));
            sharesValues = state.sharesValueObjects();
            valueCodec = sharesValues ? (io.ringflow.state.codec.Codec<Object>)runtime.operatorStateStore()
                .codecFor(valueType) : null;
        }
        else
        {
            elements = state.getMapState(new MapStateDescriptor<>(ELEMENTS, WindowElement.class,
                (Class<Object>)inputType));
        }
        if (counted)
        {
            counts = state.getMapState(new MapStateDescriptor<>(COUNTS, TimeWindow.class, Long.class));
        }
        lateOutput = lateTag == null ? null : runtime.sideOutput(lateTag);
        if (process != null)
        {
            process.open(runtime);
        }
    }

    // ---------------------------------------------------------------- records

    @Override
    public void processElement(final Object record) throws Exception
    {
        processElement(record, SlotDescriptor.NO_KEY_GROUP);
    }

    @Override
    public void processElement(final Object record, final int keyGroup) throws Exception
    {
        final Object key = keySelector.getKey(record);
        if (key == null)
        {
            throw NullKeyException.of(runtime.operatorName(), record);
        }
        final int group = keyGroup != SlotDescriptor.NO_KEY_GROUP ? keyGroup :
            KeyGroups.keyGroupOf(key, runtime.maxParallelism());
        if (key instanceof Long)
        {
            currentLongKey = true;
            currentKey = (Long)key;
            currentObjectKey = null;
        }
        else
        {
            currentLongKey = false;
            currentObjectKey = key;
        }
        currentKeyGroup = group;
        storeKeySet = false;
        process(record);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        currentLongKey = true;
        currentKey = key;
        currentObjectKey = null;
        currentKeyGroup = keyGroup;
        storeKeySet = false;
        process(record);
    }

    /** Scopes keyed state to the current record's key, once per record, only when state is used. */
    private void useStoreKey()
    {
        if (!storeKeySet)
        {
            if (currentLongKey)
            {
                state.setCurrentKey(currentKey, currentKeyGroup);
            }
            else
            {
                state.setCurrentKey(currentObjectKey, currentKeyGroup);
            }
            storeKeySet = true;
        }
    }

    private void process(final Object record) throws Exception
    {
        try
        {
            final long time;
            if (assigner.isEventTime())
            {
                time = timestamps.value;
                if (time == RecordTimestamp.NO_TIMESTAMP)
                {
                    throw new IllegalStateException("operator '" + runtime.operatorName() + "' got a record " +
                        "without a timestamp (" + record + "): event-time windows need one; apply " +
                        "assignTimestampsAndWatermarks(...) upstream");
                }
            }
            else
            {
                time = runtime.time().now();
            }
            if (assigner.isMerging())
            {
                useStoreKey();
                addToSession(record, time);
            }
            else
            {
                final int windows = assigner.assign(time, starts);
                boolean taken = false;
                for (int i = 0; i < windows; i++)
                {
                    final long start = starts[i];
                    final long end = assigner.endOf(start);
                    if (isLate(end - 1))
                    {
                        continue;
                    }
                    taken = true;
                    if (cached)
                    {
                        addToCachedWindow(start, end, record, time);
                    }
                    else
                    {
                        useStoreKey();
                        addToWindow(new TimeWindow(start, end), record, time);
                    }
                }
                if (!taken)
                {
                    late(record);
                }
            }
        }
        finally
        {
            if (storeKeySet)
            {
                state.setCurrentKey(null);
                storeKeySet = false;
            }
        }
    }

    /** {@link #addToWindow} through the write-back cache. */
    private void addToCachedWindow(final long start, final long end, final Object record, final long time)
        throws Exception
    {
        probe.longKey = currentLongKey;
        probe.key = currentKey;
        probe.objectKey = currentObjectKey;
        probe.start = start;
        probe.end = end;
        CachedWindow entry = cache.get(probe);
        probe.objectKey = null;
        if (entry == null)
        {
            useStoreKey();
            final TimeWindow window = new TimeWindow(start, end);
            entry = new CachedWindow();
            entry.longKey = currentLongKey;
            entry.key = currentKey;
            entry.objectKey = currentObjectKey;
            entry.keyGroup = currentKeyGroup;
            entry.start = start;
            entry.end = end;
            entry.value = own(contents.get(window));
            if (entry.value == null)
            {
                registerTimers(window);
            }
            if (cache.size() >= CACHE_LIMIT)
            {
                writeBackCache(true);
                useStoreKey();
            }
            cache.put(entry, entry);
        }
        entry.value = fold(entry.value, record);
        entry.dirty = true;
        if (trigger.kind() == Trigger.Kind.CONTINUOUS ||
            (assigner.isEventTime() && end - 1 <= timers.currentWatermark()))
        {
            // the trigger needs the window in state: a boundary timer to register, or a late firing now
            useStoreKey();
            writeBack(entry);
            onElement(new TimeWindow(start, end), time, 0);
        }
    }

    /**
     * Writes the cache's changed windows to keyed state.
     *
     * @param empty whether to empty the cache too.
     */
    private void writeBackCache(final boolean empty)
    {
        if (cache.isEmpty())
        {
            return;
        }
        for (final CachedWindow entry : cache.values())
        {
            if (entry.dirty)
            {
                if (entry.longKey)
                {
                    state.setCurrentKey(entry.key, entry.keyGroup);
                }
                else
                {
                    state.setCurrentKey(entry.objectKey, entry.keyGroup);
                }
                writeBack(entry);
            }
        }
        state.setCurrentKey(null);
        storeKeySet = false;
        if (empty)
        {
            cache.clear();
        }
    }

    /** Writes one window's value; the store's current key must be the entry's. */
    private void writeBack(final CachedWindow entry)
    {
        // the cache goes on changing its value; state (and a snapshot of it) keeps its own
        contents.put(new TimeWindow(entry.start, entry.end), own(entry.value));
        entry.dirty = false;
    }

    /** Firing reads keyed state: the cache goes first (and is emptied, as firing and cleanup change state). */
    private void beforeFiring()
    {
        if (cached)
        {
            writeBackCache(true);
        }
    }

    /** @return whether a window ending at {@code maxTimestamp} is past its cleanup: no record may enter it. */
    private boolean isLate(final long maxTimestamp)
    {
        return assigner.isEventTime() && cleanupTime(maxTimestamp) <= timers.currentWatermark();
    }

    private long cleanupTime(final long maxTimestamp)
    {
        final long cleanup = maxTimestamp + allowedLateness;
        // an overflow at the end of time means never
        return cleanup < maxTimestamp ? Long.MAX_VALUE : cleanup;
    }

    private void late(final Object record)
    {
        if (lateOutput != null)
        {
            lateOutput.collect(record);
            return;
        }
        runtime.time().lateRecordDropped();
        if (lateRecordsDropped++ == 0)
        {
            LOG.log(System.Logger.Level.WARNING, () -> runtime.describe() + " dropped a record too late for every " +
                "window (" + record + " at " + timestamps.value + ", watermark " + timers.currentWatermark() +
                "); late records are counted, not kept: set allowedLateness or sideOutputLateData to keep them");
        }
    }

    /** @return how many records were too late for every window and had no side output to go to. */
    public long lateRecordsDropped()
    {
        return lateRecordsDropped;
    }

    private void addToWindow(final TimeWindow window, final Object record, final long time) throws Exception
    {
        final Long before = counted ? counts.get(window) : null;
        final boolean fresh;
        if (process == null)
        {
            final Object value = contents.get(window);
            fresh = value == null;
            contents.put(window, fold(own(value), record));
        }
        else
        {
            fresh = before == null;
            elements.put(new WindowElement(window.start(), window.end(), fresh ? 0 : before), record);
        }
        long count = 0;
        if (counted)
        {
            count = before == null ? 1 : before + 1;
            counts.put(window, count);
        }
        if (fresh)
        {
            registerTimers(window);
        }
        onElement(window, time, count);
    }

    /** @return {@code value}, or a copy of it when the store shares the objects it holds (see sharesValues). */
    private Object own(final Object value)
    {
        if (!sharesValues || value == null)
        {
            return value;
        }
        final int length = valueCodec.encode(value, copyBuffer, 0);
        return valueCodec.decode(copyBuffer, 0, length);
    }

    private Object fold(final Object value, final Object record)
    {
        if (reduce != null)
        {
            return value == null ? record : reduce.reduce(value, record);
        }
        return aggregate.add(record, value == null ? aggregate.createAccumulator() : value);
    }

    private void registerTimers(final TimeWindow window)
    {
        final Object key = state.currentKey();
        final boolean eventTime = assigner.isEventTime();
        // a window already past its end fires on the record itself (onElement), not again on a timer
        if (trigger.kind() != Trigger.Kind.COUNT && !(eventTime && window.maxTimestamp() <= timers.currentWatermark()))
        {
            timers.register(eventTime, window.maxTimestamp(), key, currentKeyGroup);
        }
        timers.register(eventTime, cleanupTime(window.maxTimestamp()), key, currentKeyGroup);
    }

    /** The trigger's view of a record added to {@code window}. */
    private void onElement(final TimeWindow window, final long time, final long count) throws Exception
    {
        switch (trigger.kind())
        {
            case COUNT:
                if (count % trigger.parameter() == 0)
                {
                    fire(window);
                }
                break;
            case CONTINUOUS:
            {
                final long boundary = TimeWindow.startOf(time, 0, trigger.parameter()) + trigger.parameter() - 1;
                if (boundary < window.maxTimestamp() &&
                    !(assigner.isEventTime() && boundary <= timers.currentWatermark()))
                {
                    timers.register(assigner.isEventTime(), boundary, state.currentKey(), currentKeyGroup);
                }
                // fall through: a window already past its end fires at once
            }
            default:
                if (assigner.isEventTime() && window.maxTimestamp() <= timers.currentWatermark())
                {
                    // a late record within the allowed lateness: the window fires again with it
                    fire(window);
                }
                break;
        }
    }

    // ---------------------------------------------------------------- sessions

    private void addToSession(final Object record, final long time) throws Exception
    {
        TimeWindow merged = new TimeWindow(time, time + assigner.size());
        if (isLate(merged.maxTimestamp()))
        {
            late(record);
            return;
        }
        scratch.clear();
        for (final TimeWindow existing : windowsOfCurrentKey())
        {
            if (existing.intersects(merged))
            {
                scratch.add(existing);
                merged = merged.cover(existing);
            }
        }
        if (!scratch.isEmpty() && !(scratch.size() == 1 && scratch.get(0).equals(merged)))
        {
            mergeInto(merged, scratch);
        }
        addToWindow(merged, record, time);
    }

    private Iterable<TimeWindow> windowsOfCurrentKey()
    {
        final List<TimeWindow> windows = new ArrayList<>();
        for (final TimeWindow window : counted ? counts.keys() : contents.keys())
        {
            windows.add(window);
        }
        return windows;
    }

    /** Moves the state of {@code sources} into {@code target} (which none of them equals) and sets its timers. */
    private void mergeInto(final TimeWindow target, final List<TimeWindow> sources) throws Exception
    {
        Object value = null;
        long count = 0;
        final long[] sourceCounts = new long[sources.size()];
        int s = 0;
        for (final TimeWindow source : sources)
        {
            if (process == null)
            {
                final Object sourceValue = own(contents.get(source));
                contents.remove(source);
                value = value == null ? sourceValue : reduce != null ? reduce.reduce(value, sourceValue) :
                    aggregate.merge(value, sourceValue);
            }
            if (counted)
            {
                final long sourceCount = counts.get(source);
                counts.remove(source);
                if (process != null)
                {
                    for (long i = 0; i < sourceCount; i++)
                    {
                        final WindowElement at = new WindowElement(source.start(), source.end(), i);
                        final Object element = elements.get(at);
                        elements.remove(at);
                        elements.put(new WindowElement(target.start(), target.end(), count + i), element);
                    }
                }
                count += sourceCount;
                sourceCounts[s++] = sourceCount;
            }
        }
        // the merged windows' timers stay: a timer is per key and time, not per window, so it may also be another
        // window's; when it fires it acts on whichever windows of the key end or expire at its time, if any
        if (process == null)
        {
            contents.put(target, value);
        }
        if (counted)
        {
            counts.put(target, count);
        }
        registerTimers(target);
        if (trigger.kind() == Trigger.Kind.COUNT)
        {
            // the merge may have passed a multiple of the count that no source reached on its own: fire for it now
            long firedBefore = 0;
            for (final long sourceCount : sourceCounts)
            {
                firedBefore += sourceCount / trigger.parameter();
            }
            if (count / trigger.parameter() > firedBefore)
            {
                fire(target);
            }
        }
    }

    // ---------------------------------------------------------------- time

    @Override
    public void processWatermark(final long watermark) throws Exception
    {
        if (cached)
        {
            // firing reads keyed state: write the cache back first if a timer is due (this watermark's, or one
            // left from an interrupted pass)
            timers.advanceWatermark(watermark);
            if (timers.eventTimersDue())
            {
                beforeFiring();
            }
        }
        timers.onWatermark(watermark, runtime.time().firingBatch(), output);
    }

    @Override
    public boolean usesTimers()
    {
        return true;
    }

    @Override
    public long nextProcessingTime()
    {
        return timers.nextProcessingTime();
    }

    @Override
    public boolean hasPendingTimers()
    {
        return timers.eventTimersDue();
    }

    @Override
    public int fireTimers(final long now, final int budget) throws Exception
    {
        beforeFiring();
        return timers.fireDue(now, budget, output);
    }

    @Override
    public void onTimer(final KeyedTimers.Timer timer, final boolean eventTime) throws Exception
    {
        if (eventTime != assigner.isEventTime())
        {
            return;
        }
        timer.scopeState(state);
        currentKeyGroup = timer.keyGroup();
        final long time = timer.time();
        try
        {
            for (final TimeWindow window : windowsOfCurrentKey())
            {
                final boolean end = time == window.maxTimestamp();
                final boolean early = trigger.kind() == Trigger.Kind.CONTINUOUS && time >= window.start() &&
                    time < window.maxTimestamp();
                if ((end && trigger.kind() != Trigger.Kind.COUNT) || early)
                {
                    fire(window);
                }
                if (time == cleanupTime(window.maxTimestamp()))
                {
                    clear(window);
                }
            }
        }
        finally
        {
            state.setCurrentKey(null);
        }
    }

    @SuppressWarnings("unchecked")
    private void fire(final TimeWindow window) throws Exception
    {
        final long previous = timestamps.value;
        timestamps.value = assigner.isEventTime() ? window.maxTimestamp() : RecordTimestamp.NO_TIMESTAMP;
        try
        {
            if (process != null)
            {
                final long count = counts.get(window);
                final List<Object> all = new ArrayList<>((int)Math.min(count, 1 << 20));
                for (long i = 0; i < count; i++)
                {
                    all.add(elements.get(new WindowElement(window.start(), window.end(), i)));
                }
                process.process(state.currentKey(), window, all, (Collector<Object>)output);
                return;
            }
            final Object value = contents.get(window);
            if (value == null)
            {
                return;
            }
            final Object emitted = reduce != null ? value : aggregate.getResult(value);
            output.collect(result == null ? emitted : result.apply(state.currentKey(), window, emitted));
        }
        finally
        {
            timestamps.value = previous;
        }
    }

    private void clear(final TimeWindow window)
    {
        if (process == null)
        {
            contents.remove(window);
        }
        else
        {
            final Long count = counts.get(window);
            for (long i = 0; count != null && i < count; i++)
            {
                elements.remove(new WindowElement(window.start(), window.end(), i));
            }
        }
        if (counted)
        {
            counts.remove(window);
        }
    }

    @Override
    public void onBarrier(final long checkpointId) throws Exception
    {
        // the snapshot that follows must see every window's value
        writeBackCache(false);
        snapshotListener(checkpointId);
    }

    @Override
    public void close() throws Exception
    {
        if (lateRecordsDropped > 0)
        {
            LOG.log(System.Logger.Level.WARNING, runtime.describe() + " dropped " + lateRecordsDropped +
                " records too late for every window");
        }
        if (process != null)
        {
            process.close();
        }
    }

    @Override
    protected Object listener()
    {
        return process;
    }
}
