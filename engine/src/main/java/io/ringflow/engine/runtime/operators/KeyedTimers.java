package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.runtime.task.OperatorRuntime;
import io.ringflow.engine.runtime.task.OperatorStateStore;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The timers of one keyed operator subtask, event time and processing time: per key and time at most one timer of
 * each domain (registering again changes nothing), fired in time order (ties in registration order).
 *
 * <p><b>Bounded firing.</b> A watermark does not fire its timers at once: {@link #fireEventTime} fires at most a
 * budget of them, and the task calls it again on its next cycles, reading its inputs (and their barriers) in between.
 * {@link #forwardableWatermark} says how far the operator's output watermark may go: to the input watermark once every
 * timer at or below it fired, else to just below the earliest timer not yet fired. An interrupted pass therefore keeps
 * its progress downstream (the output watermark follows the last fully fired time) and never freezes it.
 *
 * <p><b>Checkpoints.</b> At each barrier every timer is written into the operator's union list state
 * {@value #STATE_NAME} (one blob per subtask, format below); on restore each subtask keeps the timers whose key group
 * it owns, so timers follow their keys at any parallelism. Timers restored at or below the new watermark fire at the
 * first watermark after the restore (a restored task starts from no watermark).
 *
 * <pre>
 *   magic "RFTM" (int) | version 1 (int) | key class count (int) | per class: name length (int), UTF-8 name
 *   | timer count (int) | per timer: domain (byte: 0 event, 1 processing) | key class index (int) | key group (int)
 *   | time (long) | key length (int) | key, as its codec encodes it
 * </pre>
 * Little-endian. A blob that does not parse is refused as a corrupt checkpoint, naming the operator.
 *
 * <p>Thread contract: the task thread only. Registering allocates one timer (a duplicate allocates nothing beyond
 * boxing a {@code long} key); firing allocates nothing.
 */
public final class KeyedTimers
{
    /** The operator state the timers are checkpointed in. */
    public static final String STATE_NAME = "ringflow.timers";
    private static final int MAGIC = 0x5246544D;
    private static final int VERSION = 1;
    /** Bytes of a timer before its key: domain, key class index, key group, time, key length. */
    private static final int TIMER_HEADER = 1 + 4 + 4 + 8 + 4;

    /** Called for each timer that fires, with its key to be made current. */
    public interface Target
    {
        /**
         * @param timer     the timer; valid during the call only.
         * @param eventTime whether it is an event-time timer.
         * @throws Exception fails the task.
         */
        void onTimer(Timer timer, boolean eventTime) throws Exception;
    }

    /** One timer: a time, a key and its key group. */
    public static final class Timer
    {
        long time;
        Object key;
        int keyGroup;
        long sequence;

        /** @return the timer's time. */
        public long time()
        {
            return time;
        }

        /** @return its key. */
        public Object key()
        {
            return key;
        }

        /** @return its key's key group. */
        public int keyGroup()
        {
            return keyGroup;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof Timer timer && timer.time == time && timer.key.equals(key);
        }

        @Override
        public int hashCode()
        {
            return Long.hashCode(time) * 31 + key.hashCode();
        }
    }

    private static final java.util.Comparator<Timer> ORDER =
        (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence);

    private final Queue eventTime = new Queue();
    private final Queue processingTime = new Queue();
    private final Target target;
    private long sequence;
    private long inputWatermark = Long.MIN_VALUE;
    private OperatorListState<byte[]> state;

    /** @param target receives the timers that fire. */
    public KeyedTimers(final Target target)
    {
        this.target = target;
    }

    /** The timers of one domain: ordered by time, and indexed by key and time for duplicates and deletion. */
    private static final class Queue
    {
        final TreeSet<Timer> ordered = new TreeSet<>(ORDER);
        final Map<Timer, Timer> index = new HashMap<>();
        final Timer probe = new Timer();
    }

    /**
     * @return the operator's event time: the input watermark once every timer at or below it has fired, else just
     *     below the earliest due timer not yet fired (an interrupted pass has not reached later times yet). What
     *     lateness is judged against, and what is forwarded.
     */
    public long currentWatermark()
    {
        return forwardableWatermark();
    }

    /** @return the last watermark handed to {@link #advanceWatermark}. */
    public long inputWatermark()
    {
        return inputWatermark;
    }

    /** @param watermark the operator's new input watermark. */
    public void advanceWatermark(final long watermark)
    {
        if (watermark > inputWatermark)
        {
            inputWatermark = watermark;
        }
    }

    /**
     * @param eventTime the domain.
     * @param time      the timer's time.
     * @param key       its key, not null.
     * @param keyGroup  the key's key group.
     */
    public void register(final boolean eventTime, final long time, final Object key, final int keyGroup)
    {
        final Queue queue = eventTime ? this.eventTime : processingTime;
        final Timer probe = queue.probe;
        probe.time = time;
        probe.key = key;
        if (queue.index.containsKey(probe))
        {
            probe.key = null;
            return;
        }
        probe.key = null;
        final Timer timer = new Timer();
        timer.time = time;
        timer.key = key;
        timer.keyGroup = keyGroup;
        timer.sequence = sequence++;
        queue.index.put(timer, timer);
        queue.ordered.add(timer);
    }

    /**
     * @param eventTime the domain.
     * @param time      the timer's time.
     * @param key       its key.
     */
    public void delete(final boolean eventTime, final long time, final Object key)
    {
        final Queue queue = eventTime ? this.eventTime : processingTime;
        final Timer probe = queue.probe;
        probe.time = time;
        probe.key = key;
        final Timer timer = queue.index.remove(probe);
        probe.key = null;
        if (timer != null)
        {
            queue.ordered.remove(timer);
        }
    }

    /** @return whether an event-time timer at or below the input watermark is waiting to fire. */
    public boolean eventTimersDue()
    {
        return !eventTime.ordered.isEmpty() && eventTime.ordered.first().time <= inputWatermark;
    }

    /** @return the earliest processing-time timer's time, or {@link Long#MAX_VALUE}. */
    public long nextProcessingTime()
    {
        return processingTime.ordered.isEmpty() ? Long.MAX_VALUE : processingTime.ordered.first().time;
    }

    /**
     * Fires due event-time timers, earliest first, at most {@code budget}.
     *
     * @param budget the most to fire.
     * @return how many fired.
     * @throws Exception from the target.
     */
    public int fireEventTime(final int budget) throws Exception
    {
        return fire(eventTime, true, inputWatermark, budget);
    }

    /**
     * Fires processing-time timers at or before {@code now}, earliest first, at most {@code budget}.
     *
     * @param now    processing time.
     * @param budget the most to fire.
     * @return how many fired.
     * @throws Exception from the target.
     */
    public int fireProcessingTime(final long now, final int budget) throws Exception
    {
        return fire(processingTime, false, now, budget);
    }

    private int fire(final Queue queue, final boolean eventTime, final long upTo, final int budget) throws Exception
    {
        int fired = 0;
        while (fired < budget && !queue.ordered.isEmpty() && queue.ordered.first().time <= upTo)
        {
            final Timer timer = queue.ordered.pollFirst();
            queue.index.remove(timer);
            fired++;
            target.onTimer(timer, eventTime);
        }
        return fired;
    }

    /**
     * @return how far the output watermark may go: the input watermark once no event-time timer at or below it is
     *     left, else just below the earliest one left.
     */
    public long forwardableWatermark()
    {
        if (eventTimersDue())
        {
            return eventTime.ordered.first().time - 1;
        }
        return inputWatermark;
    }

    /** @return how many timers are registered, both domains. */
    public int size()
    {
        return eventTime.ordered.size() + processingTime.ordered.size();
    }

    /**
     * Declares the checkpointed state and takes back the timers of this subtask's key groups from a restore. Called
     * from the operator's {@code initializeState}.
     *
     * @param runtime the operator.
     */
    public void initializeState(final OperatorRuntime runtime)
    {
        final OperatorStateStore store = runtime.operatorStateStore();
        state = store.getUnionListState(STATE_NAME, byte[].class);
        if (!store.isRestored())
        {
            return;
        }
        final KeyGroupRange mine = KeyGroups.rangeOf(runtime.subtaskIndex(), runtime.maxParallelism(),
            runtime.parallelism());
        final ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (final byte[] blob : state.get())
        {
            decode(blob, runtime, store, mine, loader);
        }
        state.clear();
    }

    /**
     * Writes every timer into the checkpointed state; called at each barrier, before the operator state is captured.
     *
     * @param runtime the operator.
     */
    public void snapshot(final OperatorRuntime runtime)
    {
        if (size() == 0)
        {
            state.clear();
            return;
        }
        final OperatorStateStore store = runtime.operatorStateStore();
        final CodecBuffer out = CodecBuffer.growable(64 + size() * 32);
        final List<Class<?>> classes = new ArrayList<>();
        final Map<Class<?>, Integer> classIndex = new HashMap<>();
        for (final Queue queue : new Queue[] {eventTime, processingTime})
        {
            for (final Timer timer : queue.ordered)
            {
                classIndex.computeIfAbsent(timer.key.getClass(), type ->
                {
                    classes.add(type);
                    return classes.size() - 1;
                });
            }
        }
        int at = 0;
        out.putInt(at, MAGIC);
        out.putInt(at + 4, VERSION);
        out.putInt(at + 8, classes.size());
        at += 12;
        final List<Codec<Object>> codecs = new ArrayList<>();
        for (final Class<?> type : classes)
        {
            final byte[] name = type.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.putInt(at, name.length);
            out.putBytes(at + 4, name, 0, name.length);
            at += 4 + name.length;
            codecs.add(codecOf(store, type, runtime));
        }
        out.putInt(at, size());
        at += 4;
        for (final Queue queue : new Queue[] {eventTime, processingTime})
        {
            for (final Timer timer : queue.ordered)
            {
                final int type = classIndex.get(timer.key.getClass());
                out.putByte(at, (byte)(queue == eventTime ? 0 : 1));
                out.putInt(at + 1, type);
                out.putInt(at + 5, timer.keyGroup);
                out.putLong(at + 9, timer.time);
                final int length = codecs.get(type).encode(timer.key, out, at + TIMER_HEADER);
                out.putInt(at + 17, length);
                at += TIMER_HEADER + length;
            }
        }
        state.update(List.of(out.toByteArray(0, at)));
    }

    @SuppressWarnings("unchecked")
    private static Codec<Object> codecOf(final OperatorStateStore store, final Class<?> type,
        final OperatorRuntime runtime)
    {
        try
        {
            return (Codec<Object>)store.codecFor(type);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalStateException(runtime.describe() + " has timers for keys of type " + type.getName() +
                ", which has no codec to checkpoint them with: register one with JobEnvironment.registerCodec", ex);
        }
    }

    private void decode(final byte[] blob, final OperatorRuntime runtime, final OperatorStateStore store,
        final KeyGroupRange mine, final ClassLoader loader)
    {
        final String file = runtime.describe() + " timers";
        try
        {
            final CodecBuffer in = CodecBuffer.wrap(blob);
            if (blob.length < 12 || in.getInt(0) != MAGIC || in.getInt(4) != VERSION)
            {
                throw new CorruptCheckpointException(file, "not a timer blob of version " + VERSION);
            }
            final int classCount = in.getInt(8);
            int at = 12;
            final List<Codec<Object>> codecs = new ArrayList<>();
            for (int c = 0; c < classCount; c++)
            {
                final int length = in.getInt(at);
                final String name = new String(blob, at + 4, length, java.nio.charset.StandardCharsets.UTF_8);
                at += 4 + length;
                codecs.add(codecOf(store, Class.forName(name, false, loader == null ?
                    KeyedTimers.class.getClassLoader() : loader), runtime));
            }
            final int count = in.getInt(at);
            at += 4;
            for (int t = 0; t < count; t++)
            {
                final boolean event = in.getByte(at) == 0;
                final int type = in.getInt(at + 1);
                final int keyGroup = in.getInt(at + 5);
                final long time = in.getLong(at + 9);
                final int length = in.getInt(at + 17);
                if (length < 0 || at + TIMER_HEADER + (long)length > blob.length)
                {
                    throw new CorruptCheckpointException(file, "timer key length " + length + " at offset " + at);
                }
                final Object key = codecs.get(type).decode(in, at + TIMER_HEADER, length);
                at += TIMER_HEADER + length;
                if (mine.contains(keyGroup))
                {
                    register(event, time, Objects.requireNonNull(key), keyGroup);
                }
            }
            if (at != blob.length)
            {
                throw new CorruptCheckpointException(file, (blob.length - at) + " unexpected bytes at the end");
            }
        }
        catch (final CorruptCheckpointException ex)
        {
            throw ex;
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IllegalStateException(file + ": the key class " + ex.getMessage() + " is not on the class path",
                ex);
        }
        catch (final RuntimeException ex)
        {
            throw new CorruptCheckpointException(file, "does not parse: " + ex);
        }
    }
}
