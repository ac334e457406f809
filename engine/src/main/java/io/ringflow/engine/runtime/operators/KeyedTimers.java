package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.runtime.task.OperatorRuntime;
import io.ringflow.engine.runtime.task.OperatorStateStore;
import io.ringflow.state.backend.KeyedStateStore;
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
 * <p><b>Checkpoints.</b> At each barrier the timers are captured: both queues are heaps in arrays, so the
 * capture is two array copies of references (timers never change once registered), about a millisecond per million
 * timers on the task thread; the snapshot flusher then encodes them into the operator's union list state
 * {@value #STATE_NAME} (one blob per subtask, format below) while the task goes on. On restore each subtask keeps the
 * timers whose key group it owns, so timers follow their keys at any parallelism. Timers restored at or below the new watermark fire at the
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
public final class KeyedTimers implements OperatorStateStore.DeferredState
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

        /**
         * Scopes keyed state to this timer's key and key group (a {@code Long} key unboxed), before it fires. Task
         * thread.
         *
         * @param state the operator's keyed state.
         */
        public void scopeState(final KeyedStateStore state)
        {
            if (key instanceof Long)
            {
                state.setCurrentKey(((Long)key).longValue(), keyGroup);
            }
            else
            {
                state.setCurrentKey(key, keyGroup);
            }
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

    private final Queue eventTime = new Queue();
    private final Queue processingTime = new Queue();
    private final Target target;
    private long sequence;
    private long inputWatermark = Long.MIN_VALUE;
    /** The last watermark the operator forwarded. */
    private long forwardedWatermark = Long.MIN_VALUE;
    private OperatorRuntime runtime;
    /** The codec of each key class registered so far, for snapshots. */
    private final Map<Class<?>, Codec<Object>> keyCodecs = new java.util.LinkedHashMap<>();
    private Class<?> lastKeyClass;

    /** @param target receives the timers that fire. */
    public KeyedTimers(final Target target)
    {
        this.target = target;
    }

    /**
     * The timers of one domain: a 4-ary min-heap by time, then registration order, kept in primitive arrays (so sifting
     * compares without touching the timers), plus an index by key and time for duplicates and deletion. A deleted
     * timer stays in the heap, remembered in {@code deleted}, and is dropped when it reaches the top: deletion is
     * rare, and no timer is ever changed once registered (a snapshot may be reading it on another thread).
     */
    private static final class Queue
    {
        long[] times = new long[64];
        long[] sequences = new long[64];
        Timer[] heap = new Timer[64];
        int size;
        final Map<Timer, Timer> index = new HashMap<>();
        final java.util.Set<Timer> deleted = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final Timer probe = new Timer();

        /** @return the earliest live timer, or null; drops deleted ones from the top. */
        Timer peek()
        {
            while (size > 0 && !deleted.isEmpty() && deleted.remove(heap[0]))
            {
                removeTop();
            }
            return size == 0 ? null : heap[0];
        }

        boolean isEmpty()
        {
            return peek() == null;
        }

        Timer poll()
        {
            final Timer first = peek();
            removeTop();
            return first;
        }

        void add(final Timer timer)
        {
            if (size == heap.length)
            {
                final int capacity = size * 2;
                heap = java.util.Arrays.copyOf(heap, capacity);
                times = java.util.Arrays.copyOf(times, capacity);
                sequences = java.util.Arrays.copyOf(sequences, capacity);
            }
            final long time = timer.time;
            final long sequence = timer.sequence;
            int at = size++;
            while (at > 0)
            {
                final int parent = (at - 1) >>> 2;
                if (!before(time, sequence, times[parent], sequences[parent]))
                {
                    break;
                }
                move(parent, at);
                at = parent;
            }
            place(at, timer, time, sequence);
        }

        /**
         * @param timer a live timer to forget; it leaves the heap when it reaches the top, or when deleted timers
         *              make up half the heap (then the heap is rebuilt without them, so "delete and register again"
         *              on every record keeps the heap, and what a barrier copies, at the live timers).
         */
        void remove(final Timer timer)
        {
            deleted.add(timer);
            if (deleted.size() > 64 && deleted.size() * 2 > size)
            {
                compact();
            }
        }

        private void compact()
        {
            final Timer[] live = new Timer[Math.max(64, size - deleted.size())];
            int count = 0;
            for (int i = 0; i < size; i++)
            {
                if (!deleted.contains(heap[i]))
                {
                    live[count++] = heap[i];
                }
            }
            deleted.clear();
            heap = new Timer[live.length];
            times = new long[live.length];
            sequences = new long[live.length];
            size = 0;
            for (int i = 0; i < count; i++)
            {
                add(live[i]);
            }
        }

        private void removeTop()
        {
            size--;
            final Timer last = heap[size];
            final long time = times[size];
            final long sequence = sequences[size];
            heap[size] = null;
            if (size == 0)
            {
                return;
            }
            int at = 0;
            while (true)
            {
                final int first = 4 * at + 1;
                if (first >= size)
                {
                    break;
                }
                int best = first;
                final int end = Math.min(first + 4, size);
                for (int child = first + 1; child < end; child++)
                {
                    if (before(times[child], sequences[child], times[best], sequences[best]))
                    {
                        best = child;
                    }
                }
                if (!before(times[best], sequences[best], time, sequence))
                {
                    break;
                }
                move(best, at);
                at = best;
            }
            place(at, last, time, sequence);
        }

        private void move(final int from, final int to)
        {
            heap[to] = heap[from];
            times[to] = times[from];
            sequences[to] = sequences[from];
        }

        private void place(final int at, final Timer timer, final long time, final long sequence)
        {
            heap[at] = timer;
            times[at] = time;
            sequences[at] = sequence;
        }

        private static boolean before(final long time, final long sequence, final long otherTime,
            final long otherSequence)
        {
            return time != otherTime ? time < otherTime : sequence < otherSequence;
        }
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
        final Class<?> keyClass = key.getClass();
        if (keyClass != lastKeyClass && runtime != null)
        {
            // the key codecs a snapshot needs, resolved here, once per class, not at the barrier
            if (!keyCodecs.containsKey(keyClass))
            {
                keyCodecs.put(keyClass, codecOf(runtime.operatorStateStore(), keyClass, runtime));
            }
            lastKeyClass = keyClass;
        }
        final Timer timer = new Timer();
        timer.time = time;
        timer.key = key;
        timer.keyGroup = keyGroup;
        timer.sequence = sequence++;
        queue.index.put(timer, timer);
        queue.add(timer);
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
            queue.remove(timer);
        }
    }

    /** @return whether an event-time timer at or below the input watermark is waiting to fire. */
    public boolean eventTimersDue()
    {
        return !eventTime.isEmpty() && eventTime.peek().time <= inputWatermark;
    }

    /** @return the earliest processing-time timer's time, or {@link Long#MAX_VALUE}. */
    public long nextProcessingTime()
    {
        return processingTime.isEmpty() ? Long.MAX_VALUE : processingTime.peek().time;
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
        while (fired < budget && !queue.isEmpty() && queue.peek().time <= upTo)
        {
            final Timer timer = queue.poll();
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
            final long earliest = eventTime.peek().time;
            return earliest == Long.MIN_VALUE ? Long.MIN_VALUE : earliest - 1;
        }
        return inputWatermark;
    }

    /**
     * The operator's input watermark advanced: fires at most {@code budget} of the event-time timers it made due
     * (the rest on later cycles, {@link #fireDue}) and forwards the watermark as far as they fired.
     *
     * @param watermark the new input watermark.
     * @param budget    the most timers to fire now.
     * @param output    where the operator's watermark goes.
     * @throws Exception from the target.
     */
    public void onWatermark(final long watermark, final int budget,
        final io.ringflow.engine.runtime.task.Output output) throws Exception
    {
        advanceWatermark(watermark);
        fireEventTime(budget);
        forwardProgress(output);
    }

    /**
     * One cycle's firing: processing-time timers due at {@code now}, then what is left of an event-time pass, at
     * most {@code budget} in all; then the watermark is forwarded as far as the pass has gone.
     *
     * @param now    processing time.
     * @param budget the most timers to fire.
     * @param output where the operator's watermark goes.
     * @return how many fired.
     * @throws Exception from the target.
     */
    public int fireDue(final long now, final int budget, final io.ringflow.engine.runtime.task.Output output)
        throws Exception
    {
        int fired = fireProcessingTime(now, budget);
        if (fired < budget)
        {
            fired += fireEventTime(budget - fired);
        }
        forwardProgress(output);
        return fired;
    }

    private void forwardProgress(final io.ringflow.engine.runtime.task.Output output)
    {
        final long forwardable = forwardableWatermark();
        if (forwardable > forwardedWatermark)
        {
            forwardedWatermark = forwardable;
            output.emitWatermark(forwardable);
        }
    }

    /** @return how many timers are registered, both domains. */
    public int size()
    {
        return eventTime.index.size() + processingTime.index.size();
    }

    /**
     * Takes back the timers of this subtask's key groups from a restore, then declares the checkpointed state (encoded
     * off the task thread, see the class comment). Called from the operator's {@code initializeState}, before any
     * timer is registered.
     *
     * @param runtime the operator.
     */
    public void initializeState(final OperatorRuntime runtime)
    {
        this.runtime = runtime;
        final OperatorStateStore store = runtime.operatorStateStore();
        final OperatorListState<byte[]> restored = store.getUnionListState(STATE_NAME, byte[].class);
        if (store.isRestored())
        {
            final KeyGroupRange mine = KeyGroups.rangeOf(runtime.subtaskIndex(), runtime.maxParallelism(),
                runtime.parallelism());
            final ClassLoader loader = Thread.currentThread().getContextClassLoader();
            for (final byte[] blob : restored.get())
            {
                decode(blob, runtime, store, mine, loader);
            }
        }
        store.deferredUnionList(STATE_NAME, this);
    }

    /** Task thread, at the barrier: two array copies of references, and the (few) key codecs. */
    @Override
    public OperatorStateStore.DeferredState.Encoding capture()
    {
        final Timer[] events = java.util.Arrays.copyOf(eventTime.heap, eventTime.size);
        final Timer[] processing = java.util.Arrays.copyOf(processingTime.heap, processingTime.size);
        // deleted timers still in the heaps are left out; the sets are small (deletion is rare)
        final java.util.Set<Timer> deleted = eventTime.deleted.isEmpty() && processingTime.deleted.isEmpty() ?
            java.util.Set.of() : copyDeleted();
        final List<Map.Entry<Class<?>, Codec<Object>>> codecs = new ArrayList<>(keyCodecs.entrySet());
        return new OperatorStateStore.DeferredState.Encoding()
        {
            @Override
            public long estimatedBytes()
            {
                return (events.length + processing.length) * (TIMER_HEADER + 12L);
            }

            @Override
            public List<byte[]> encode()
            {
                return events.length + processing.length == 0 ? List.of() :
                    List.of(KeyedTimers.encode(events, processing, deleted, codecs));
            }
        };
    }

    /** The blob of the class comment; any thread (the timers and codecs given never change). */
    private java.util.Set<Timer> copyDeleted()
    {
        final java.util.Set<Timer> copy = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        copy.addAll(eventTime.deleted);
        copy.addAll(processingTime.deleted);
        return copy;
    }

    private static byte[] encode(final Timer[] events, final Timer[] processing, final java.util.Set<Timer> deleted,
        final List<Map.Entry<Class<?>, Codec<Object>>> codecs)
    {
        // in firing order (time, then registration), so a restore registers them again in that order and timers of
        // equal time keep their order; the sort runs here, on the flusher, not at the barrier
        final java.util.Comparator<Timer> order = (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) :
            Long.compare(a.sequence, b.sequence);
        java.util.Arrays.sort(events, order);
        java.util.Arrays.sort(processing, order);
        final CodecBuffer out = CodecBuffer.growable(64 + (events.length + processing.length) * 32);
        final Map<Class<?>, Integer> classIndex = new java.util.IdentityHashMap<>();
        int at = 0;
        out.putInt(at, MAGIC);
        out.putInt(at + 4, VERSION);
        out.putInt(at + 8, codecs.size());
        at += 12;
        for (final Map.Entry<Class<?>, Codec<Object>> codec : codecs)
        {
            classIndex.put(codec.getKey(), classIndex.size());
            final byte[] name = codec.getKey().getName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.putInt(at, name.length);
            out.putBytes(at + 4, name, 0, name.length);
            at += 4 + name.length;
        }
        final int countAt = at;
        int count = 0;
        at += 4;
        Class<?> lastClass = null;
        int lastType = -1;
        for (int domain = 0; domain < 2; domain++)
        {
            for (final Timer timer : domain == 0 ? events : processing)
            {
                if (!deleted.isEmpty() && deleted.contains(timer))
                {
                    continue;
                }
                count++;
                final Class<?> keyClass = timer.key.getClass();
                if (keyClass != lastClass)
                {
                    lastClass = keyClass;
                    lastType = classIndex.get(keyClass);
                }
                out.putByte(at, (byte)domain);
                out.putInt(at + 1, lastType);
                out.putInt(at + 5, timer.keyGroup);
                out.putLong(at + 9, timer.time);
                final int length = codecs.get(lastType).getValue().encode(timer.key, out, at + TIMER_HEADER);
                out.putInt(at + 17, length);
                at += TIMER_HEADER + length;
            }
        }
        out.putInt(countAt, count);
        return out.toByteArray(0, at);
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
