package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import net.openhft.chronicle.map.ExternalMapQueryContext;

/**
 * A {@link ValueState} kept in a {@link StateMap}: one stored value per key, the value as its codec encodes it
 * (after the time-to-live timestamp, when there is one).
 *
 * <p>Without a time-to-live, and unless the front's capacity ({@link ChronicleStateConfig#hotKeyCapacity}) is 0, a
 * {@link HotKeyFront} sits in front of the map, holding up to that many keys with their decoded values:
 * <ul>
 *   <li>{@link #value()}: a key in the front is answered from it; any other key is read from the map, as without a
 *   front, and does not enter the front.</li>
 *   <li>{@link #update}: a key in the front gets its new value there; a key that is not gets it there too while the
 *   front has room, else in the map. The value is checked against the maximum entry size before it enters (for a
 *   codec with a bound, {@link Codec#maxEncodedLength()}, without encoding it), so a refused value changes
 *   nothing, as without a front.</li>
 *   <li>{@link #clear()} (and {@code update(null)}): removed from the front and from the map. When the key was in the
 *   front but not in the map, the map sees no change, so it is recorded as changed explicitly: a delta must carry
 *   its removal (it may have been in the front at the base's barrier).</li>
 * </ul>
 * Entering the front needs to know whether the key has a map entry (to keep {@link #frontOnlyEntries()} exact): known
 * without a lookup when {@link #value()} just read that key from the map, which is the usual read-then-write of an
 * update.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the value type.
 */
final class ChronicleValueState<T> extends ChronicleCellState<T> implements ValueState<T>
{
    /** The declaration's default; replaced by {@link #rebind}. */
    private T defaultValue;
    /** The hot-key front, or null when disabled or the state has a time-to-live. */
    private final HotKeyFront front;
    /** The most bytes the value codec writes, or -1 when that depends on the value. */
    private final int valueBound;
    /**
     * The key whose map entry {@link #value()} last looked up, because the key was not in the front; null when not
     * known. Its map entry cannot change until this state writes the map for a key that is not in the front or
     * clears a key, which forget it, or the key enters the front, which uses it up.
     */
    private Object probedKey;
    /**
     * Whether the probed key is {@link #probedLongKey}, a key set unboxed, rather than {@link #probedKey}: a front
     * miss of such a key makes no key object. Forgotten with it ({@link #forgetProbe}).
     */
    private boolean probedUnboxed;
    private long probedLongKey;
    /** Whether the probed key had a map entry. */
    private boolean probedPresent;
    /**
     * The lookup of the current key a read of the map left open (its segment's update lock held), so the write that
     * usually follows takes no second lookup; null when none. Without a time-to-live only. Closed by the write, a
     * clear, or the store ({@link #releaseHeld}) when the current key changes or anything else needs the map.
     */
    private ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> held;
    /** The unboxed view, for a {@code Long} state; null otherwise. */
    private final LongValueState longView;

    /**
     * @param store        the store, which holds the current key.
     * @param map          the state's map.
     * @param descriptor   the declaration.
     * @param codec        the value codec.
     * @param maxEntrySize the largest encoded key plus value accepted.
     * @param hotKeys      the capacity of the hot-key front when keys and values are both {@code Long}s; 0 for none.
     *                     Ignored with a time-to-live.
     * @param boxedHotKeys its capacity otherwise; 0 for none.
     */
    @SuppressWarnings("unchecked")
    ChronicleValueState(
        final ChronicleKeyedStateStore store, final StateMap map, final ValueStateDescriptor<T> descriptor,
        final Codec<T> codec, final int maxEntrySize, final int hotKeys, final int boxedHotKeys)
    {
        super(store, map, descriptor, codec, codec, maxEntrySize);
        this.defaultValue = descriptor.defaultValue();
        this.valueBound = codec.maxEncodedLength();
        this.front = hotKeys > 0 && boxedHotKeys > 0 && ttl == null ?
            new HotKeyFront(store, map, (Codec<Object>)codec, descriptor.name(), hotKeys, boxedHotKeys, maxEntrySize,
                descriptor.type() == Long.class) : null;
        this.longView = descriptor.type() == Long.class ? new LongView(
            LongValueState.defaultOf((ValueStateDescriptor<Long>)descriptor)) : null;
    }

    /** @return the unboxed view of this state; it must be a {@code Long} state. */
    LongValueState longView()
    {
        return longView;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T value()
    {
        final HotKeyFront front = this.front;
        if (front == null)
        {
            final T value = readCell(true);
            return value != null ? value : defaultValue;
        }
        if (front.holdsLongs() && store.hasLongKey())
        {
            // the key set unboxed: no key object, on a hit or a miss (a large state misses on most keys)
            final long longKey = store.currentLongKey();
            final long held = front.getLong(longKey);
            if (held != HotKeyFront.NO_LONG)
            {
                front.access(true);
                return (T)Long.valueOf(held);
            }
            final T value = readCell(true);
            probedKey = null;
            probedUnboxed = true;
            probedLongKey = longKey;
            probedPresent = value != null;
            front.access(false);
            return value != null ? value : defaultValue;
        }
        final Object key = store.currentKey();
        if (front.holdsLongs() && key instanceof Long)
        {
            // unboxed: the only allocation is the Long returned, which the caller's inlining usually removes
            final long held = front.getLong((Long)key);
            if (held != HotKeyFront.NO_LONG)
            {
                front.access(true);
                return (T)Long.valueOf(held);
            }
        }
        else
        {
            final Object held = front.get(key);
            if (held != null)
            {
                front.access(true);
                return (T)held;
            }
        }
        final T value = readCell(true);
        probedKey = key;
        probedUnboxed = false;
        probedPresent = value != null;
        front.access(false);
        return value != null ? value : defaultValue;
    }

    @Override
    public void update(final T value)
    {
        if (value == null)
        {
            clear();
            return;
        }
        final HotKeyFront front = this.front;
        if (front == null)
        {
            writeCell(value);
            return;
        }
        // the key set unboxed: no key object on a hit (a change stamp goes into the front's table); a miss here is a
        // miss for the boxed lookups below too
        final boolean triedUnboxed = front.holdsLongs() && store.hasLongKey();
        if (triedUnboxed)
        {
            final long longValue = ((Long)value).longValue();
            if (longValue != HotKeyFront.NO_LONG && fitsWithEveryFrontKey(value))
            {
                if (front.replaceLong(store.currentLongKey(), longValue))
                {
                    front.access(true);
                    return;
                }
                if (!front.hasRoom())
                {
                    // not in the front, and no room to enter it: into the map, as updateOutsideFront does, with no
                    // key object
                    forgetProbe();
                    writeCell(value);
                    front.access(false);
                    return;
                }
            }
        }
        final Object key = store.currentKey();
        if (!triedUnboxed && front.holdsLongs() && key instanceof Long)
        {
            final long longValue = ((Long)value).longValue();
            if (longValue != HotKeyFront.NO_LONG && fitsWithEveryFrontKey(value) &&
                front.replaceLong(((Long)key).longValue(), longValue))
            {
                front.access(true);
                return;
            }
        }
        if (!front.accepts(value))
        {
            updateBypassingFront(front, key, value);
            return;
        }
        // a front of Longs was asked above, unboxed
        if (!front.holdsLongs() && fitsWithEveryFrontKey(value) && front.replace(key, value))
        {
            front.access(true);
            return;
        }
        updateOutsideFront(front, key, value);
    }

    /**
     * A value the front cannot hold ({@link HotKeyFront#accepts}): the key leaves the front, if it is there, and the
     * value goes to the map, which then holds the key's newest value.
     */
    private void updateBypassingFront(final HotKeyFront front, final Object key, final T value)
    {
        forgetProbe();
        final EncodedBytes storedKey = currentKey();
        final boolean wasShadowed = front.get(key) != null && containsStored(storedKey);
        writeCell(value);
        if (front.remove(key) && wasShadowed)
        {
            front.unshadow();
        }
        front.access(false);
    }

    /**
     * The rest of an update: the key is not in the front, or the value is too long to be cleared by the front's
     * longest key. Checks the key (through its encoding) and the value exactly before anything changes.
     */
    private void updateOutsideFront(final HotKeyFront front, final Object key, final T value)
    {
        final EncodedBytes storedKey = currentKey();
        final boolean held = front.get(key) != null;
        if (!held && !front.hasRoom())
        {
            forgetProbe();
            writeCell(value);
            front.access(false);
            return;
        }
        final int keyLength = storedKey.length() - StoredKeyLayout.KEY_OFFSET;
        checkFits(value, keyLength);
        if (held)
        {
            front.replace(key, value);
        }
        else
        {
            final boolean inChronicle = probed(key) ? probedPresent : containsStored(storedKey);
            forgetProbe();
            front.insert(key, value, keyLength, inChronicle);
        }
        front.access(held);
    }

    /** @return whether {@code key} is the key whose map entry {@link #value()} last looked up. */
    private boolean probed(final Object key)
    {
        return probedUnboxed ? key instanceof Long && (Long)key == probedLongKey : key.equals(probedKey);
    }

    /** Forgets the key {@link #value()} last looked up in the map. */
    private void forgetProbe()
    {
        probedKey = null;
        probedUnboxed = false;
    }

    /**
     * @return whether {@code value} fits the maximum entry size with any key that entered the front, so with the
     *     current key if it is there. Without a time-to-live there is no prefix.
     */
    private boolean fitsWithEveryFrontKey(final T value)
    {
        final int room = maxEntrySize - front.longestKey();
        if (valueBound >= 0)
        {
            return valueBound <= room;
        }
        final int length = write.encode(cellCodec, value, 0, maxEntrySize);
        return length >= 0 && length <= room;
    }

    /** @throws IllegalArgumentException when the key and the value exceed the maximum entry size. */
    private void checkFits(final T value, final int keyLength)
    {
        if (valueBound >= 0 && keyLength + valueBound <= maxEntrySize)
        {
            return;
        }
        final int length = write.encode(cellCodec, value, 0, maxEntrySize);
        if (length < 0 || keyLength + length > maxEntrySize)
        {
            throw tooLarge("the value", length, keyLength);
        }
    }

    @Override
    public void clear()
    {
        final HotKeyFront front = this.front;
        if (front == null)
        {
            removeStored(currentKey());
            return;
        }
        forgetProbe();
        final EncodedBytes storedKey = currentKey();
        if (!front.remove(store.currentKey()))
        {
            removeStored(storedKey);
            return;
        }
        if (removeStored(storedKey))
        {
            front.unshadow();
        }
        else
        {
            map.recordChange(storedKey);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Without a time-to-live, and when the store allows it ({@link ChronicleKeyedStateStore#holdLookups}), leaves
     * the lookup open ({@link #held}) for the write that usually follows.
     */
    @Override
    EncodedBytes fetchStored(final EncodedBytes key, final EncodedBytes into)
    {
        if (ttl != null || !store.holdsLookups())
        {
            return map.get(key, into);
        }
        if (held == null)
        {
            if (!map.exists())
            {
                // nothing was ever written to the map: the key has no entry, and the map need not be created
                return null;
            }
            store.holdOpen(this);
            held = map.openHeld(key);
        }
        return StateMap.readHeld(held, into);
    }

    @Override
    void putStored(final EncodedBytes key, final EncodedBytes value)
    {
        final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = held;
        if (context == null)
        {
            map.put(key, value);
            return;
        }
        held = null;
        store.heldReleased(this);
        map.putHeld(context, key, value);
    }

    /** Removes the current key's map entry, through the open lookup if there is one; whether it had one. */
    private boolean removeStored(final EncodedBytes key)
    {
        final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = held;
        if (context == null)
        {
            return map.remove(key);
        }
        held = null;
        store.heldReleased(this);
        return map.removeHeld(context, key);
    }

    /** Whether the current key has a map entry, through the open lookup if there is one. */
    private boolean containsStored(final EncodedBytes key)
    {
        return held != null ? held.entry() != null : map.contains(key);
    }

    @Override
    void releaseHeld()
    {
        final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = held;
        if (context != null)
        {
            held = null;
            context.close();
        }
    }

    @Override
    FrontOverlay frontOverlay(final Codec<Object> keyCodec, final int maxParallelism, final long changedSinceBase)
    {
        return front == null ? null : front.freeze(keyCodec, maxParallelism, changedSinceBase);
    }

    @Override
    boolean frontCanRewriteSlice(final Codec<Object> keyCodec)
    {
        return front == null || front.canRewriteSlice(keyCodec);
    }

    @Override
    void sealFront(final long checkpointId)
    {
        if (front != null)
        {
            front.seal(checkpointId);
        }
    }

    @Override
    long frontShadowedEntries()
    {
        return front == null ? 0 : front.shadowed();
    }

    @Override
    long frontOnlyEntries()
    {
        return front == null ? 0 : front.size() - front.shadowed();
    }

    @Override
    void writeBackFront()
    {
        if (front != null)
        {
            forgetProbe();
            front.writeBack();
        }
    }

    /**
     * @param restored restored {@code Long} counters, none of which has a map entry.
     * @return whether {@link #adoptRestoredLongs} would take them: the front holds counters ({@code Long} values with
     *     the built-in codec), is empty, and they fit its capacity.
     */
    boolean canAdoptRestoredLongs(final CopyOnWriteLongTable restored)
    {
        return front != null && valueCodec == (Codec<?>)io.ringflow.state.codec.LongCodec.INSTANCE &&
            front.canAdopt(restored);
    }

    /**
     * At declaration, before the first access: the front takes restored {@code Long} counters whole.
     *
     * @param restored restored entries, none of which has a map entry; {@link #canAdoptRestoredLongs} said yes.
     */
    void adoptRestoredLongs(final CopyOnWriteLongTable restored)
    {
        if (!canAdoptRestoredLongs(restored))
        {
            throw new IllegalStateException("the front of state '" + descriptor().name() + "' cannot take " +
                restored.size() + " restored counters");
        }
        front.adoptRestored(restored);
    }

    @Override
    void discardFront()
    {
        if (front != null)
        {
            forgetProbe();
            front.discard();
        }
    }

    @Override
    void forEachFrontKeyChangedSince(final long checkpointId, final java.util.function.Consumer<Object> keys)
    {
        if (front != null)
        {
            front.forEachKeyChangedSince(checkpointId, keys);
        }
    }

    /**
     * @param key a key of this store's type.
     * @return whether this state's hot-key front holds it. Task thread.
     */
    boolean frontHolds(final Object key)
    {
        return front != null && front.get(key) != null;
    }

    /**
     * Local recovery: whether the hot-key front holds {@code key} as an unboxed counter of the built-in codec, so that
     * {@link #revertInFront} can overwrite it.
     *
     * @param key a key, as the built-in codec reads its 8 bytes.
     */
    boolean frontHoldsLong(final long key)
    {
        return holdsUnboxedCounters() && front.getLong(key) != HotKeyFront.NO_LONG;
    }

    /**
     * @return whether the hot-key front holds {@code Long} counters unboxed, encoded by the built-in codec: the one
     *     test of local recovery's overwrite in place ({@link #frontHoldsLong}, {@link #revertInFront}).
     */
    boolean holdsUnboxedCounters()
    {
        return front != null && front.holdsLongs() &&
            valueCodec == (Codec<?>)io.ringflow.state.codec.LongCodec.INSTANCE;
    }

    /**
     * Local recovery: overwrites, in place, a counter the hot-key front holds with its value at the checkpoint. With
     * changes paused (a revert), its change stamp stays as it was; the value now equals the checkpoint's, so a later
     * delta against that checkpoint that holds the key because of the stamp holds the right value, and one that does
     * not needs none. The key's stale map entry, if any, stays shadowed.
     *
     * @param key   a key {@link #frontHoldsLong} said the front holds.
     * @param value its value at the checkpoint, as the built-in codec reads its 8 bytes.
     * @return false, changing nothing, when the front cannot hold the value unboxed ({@link HotKeyFront#NO_LONG}) or
     *     no longer holds the key.
     */
    boolean revertInFront(final long key, final long value)
    {
        return holdsUnboxedCounters() && value != HotKeyFront.NO_LONG && front.replaceLong(key, value);
    }

    /**
     * Local recovery: takes a counter whose value at the checkpoint {@link #revertInFront} refused out of the hot-key
     * front, so that the caller writes that value to the map, where it is no longer shadowed.
     *
     * @param key       the counter's key.
     * @param storedKey the same key, stored.
     */
    void takeOutOfFront(final long key, final EncodedBytes storedKey)
    {
        if (front != null && front.remove(key) && map.contains(storedKey))
        {
            front.unshadow();
        }
    }

    @Override
    void forgetRememberedEntries()
    {
        forgetProbe();
    }

    @Override
    @SuppressWarnings("unchecked")
    void rebind(final io.ringflow.state.keyed.StateDescriptor redeclared)
    {
        super.rebind(redeclared);
        final ValueStateDescriptor<T> value = (ValueStateDescriptor<T>)redeclared;
        defaultValue = value.defaultValue();
        if (longView != null)
        {
            ((LongView)longView).defaultLong = LongValueState.defaultOf((ValueStateDescriptor<Long>)redeclared);
        }
    }

    /** @return the hot-key front, or null: for the store's key hints, and for tests. */
    HotKeyFront front()
    {
        return front;
    }

    /**
     * The unboxed view: a {@code Long} key set unboxed and held by the hot-key front is read and written there with
     * no object; anything else (a miss, a front that tracks changes for incremental checkpoints, no front) takes the
     * boxed path of the state itself, which keeps every rule of the front.
     */
    private final class LongView implements LongValueState
    {
        private long defaultLong;

        LongView(final long defaultLong)
        {
            this.defaultLong = defaultLong;
        }

        @Override
        public long value()
        {
            final HotKeyFront front = ChronicleValueState.this.front;
            if (front != null && front.holdsLongs() && store.hasLongKey())
            {
                final long held = front.getLong(store.currentLongKey());
                if (held != HotKeyFront.NO_LONG)
                {
                    front.access(true);
                    return held;
                }
            }
            final Object value = ChronicleValueState.this.value();
            return value != null ? (Long)value : defaultLong;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void update(final long value)
        {
            final HotKeyFront front = ChronicleValueState.this.front;
            if (front != null && front.holdsLongs() && store.hasLongKey() &&
                value != HotKeyFront.NO_LONG &&
                valueBound >= 0 && valueBound <= maxEntrySize - front.longestKey() &&
                front.replaceLong(store.currentLongKey(), value))
            {
                front.access(true);
                return;
            }
            ChronicleValueState.this.update((T)Long.valueOf(value));
        }

        @Override
        public void clear()
        {
            ChronicleValueState.this.clear();
        }
    }
}
