package io.ringflow.state.keyed;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.ListCodec;
import io.ringflow.state.snapshot.StateKind;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The asynchronous part of a heap store snapshot: encodes the frozen copies by key group, with the time-to-live
 * prefix where the state has one, and carries restored states not declared yet unchanged.
 *
 * <p>Thread contract: created on the task thread; {@link #writeTo} runs on a flusher and touches nothing the task
 * thread changes (codec registries are thread-safe).
 */
final class HeapStateSnapshot implements KeyedStateSnapshot
{
    /** The encoded accumulators of a frozen aggregating state, written as they are. */
    private static final Codec<Object> PRE_ENCODED = new Codec<>()
    {
        @Override
        public Class<Object> type()
        {
            return Object.class;
        }

        @Override
        public int encode(final Object value, final MutableDirectBuffer buffer, final int offset)
        {
            final byte[] bytes = (byte[])value;
            buffer.putBytes(offset, bytes);
            return bytes.length;
        }

        @Override
        public Object decode(final DirectBuffer buffer, final int offset, final int length)
        {
            throw new UnsupportedOperationException("only encodes");
        }
    };

    /** One entry on its way into a snapshot file: decoded objects of a frozen state, or raw bytes of a carried one. */
    private record PendingEntry(int keyGroup, int stateIndex, Object key, Object userKey, Object value,
        long timestamp, byte[] rawKey, byte[] rawUserKey, byte[] rawValue)
    {
    }

    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    private List<HeapFrozenState> frozen;
    private List<HeapRestoredState> carried;

    HeapStateSnapshot(final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups,
        final List<HeapFrozenState> frozen, final List<HeapRestoredState> carried)
    {
        this.codecs = codecs;
        this.maxParallelism = maxParallelism;
        this.keyGroups = keyGroups;
        this.frozen = frozen;
        this.carried = carried;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void writeTo(final OutputStream out) throws IOException
    {
        final List<PendingEntry> entries = new ArrayList<>();
        final Class<?>[] keyClass = new Class<?>[1];
        for (int i = 0; i < frozen.size(); i++)
        {
            final int stateIndex = i;
            final String stateName = frozen.get(i).descriptor.name();
            frozen.get(i).forEach((key, userKey, value, timestamp) ->
            {
                if (keyClass[0] == null)
                {
                    keyClass[0] = key.getClass();
                }
                else if (keyClass[0] != key.getClass())
                {
                    throw new IllegalStateException("state '" + stateName + "' holds keys of types " +
                        keyClass[0].getName() + " and " + key.getClass().getName() +
                        ": a keyed operator's keys must all have one type to be snapshotted");
                }
                entries.add(new PendingEntry(KeyGroups.keyGroupOf(key, maxParallelism), stateIndex, key, userKey,
                    value, timestamp, null, null, null));
            });
        }
        final Codec<Object> keyCodec = keyClass[0] == null ? null : (Codec<Object>)codecs.codecFor(keyClass[0]);
        final List<StateMeta> metas = new ArrayList<>();
        final List<Codec<Object>> valueEncoders = new ArrayList<>();
        final List<Codec<Object>> userKeyEncoders = new ArrayList<>();
        for (final HeapFrozenState state : frozen)
        {
            final StateDescriptor descriptor = state.descriptor;
            final Codec<Object> valueCodec = (Codec<Object>)codecs.codecFor(descriptor.valueType());
            final Codec<Object> userKeyCodec = descriptor.kind() == StateKind.MAP ?
                (Codec<Object>)codecs.codecFor(descriptor.userKeyType()) : null;
            metas.add(StateCompatibility.meta(descriptor, state.ttl, keyClass[0], keyCodec, valueCodec,
                userKeyCodec));
            userKeyEncoders.add(userKeyCodec);
            switch (descriptor.kind())
            {
                case LIST -> valueEncoders.add((Codec<Object>)(Codec<?>)new ListCodec<>(valueCodec));
                case AGGREGATING -> valueEncoders.add(PRE_ENCODED);
                default -> valueEncoders.add(valueCodec);
            }
        }
        for (final HeapRestoredState state : carried)
        {
            final int stateIndex = metas.size();
            metas.add(state.meta);
            state.forEachRaw((keyGroup, key, userKey, value) -> entries.add(
                new PendingEntry(keyGroup, stateIndex, null, null, null, 0, key, userKey, value)));
        }
        entries.sort(Comparator.comparingInt(PendingEntry::keyGroup));
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, maxParallelism, keyGroups, metas);
        final ExpandableArrayBuffer keyBuffer = new ExpandableArrayBuffer(64);
        final ExpandableArrayBuffer userKeyBuffer = new ExpandableArrayBuffer(64);
        final ExpandableArrayBuffer valueBuffer = new ExpandableArrayBuffer(256);
        final UnsafeBuffer rawKey = new UnsafeBuffer(new byte[0]);
        final UnsafeBuffer rawUserKey = new UnsafeBuffer(new byte[0]);
        final UnsafeBuffer rawValue = new UnsafeBuffer(new byte[0]);
        int start = 0;
        while (start < entries.size())
        {
            final int keyGroup = entries.get(start).keyGroup();
            int end = start;
            while (end < entries.size() && entries.get(end).keyGroup() == keyGroup)
            {
                end++;
            }
            writer.startKeyGroup(keyGroup, end - start);
            for (int e = start; e < end; e++)
            {
                final PendingEntry entry = entries.get(e);
                if (entry.rawKey() != null)
                {
                    rawKey.wrap(entry.rawKey());
                    rawValue.wrap(entry.rawValue());
                    final byte[] userKey = entry.rawUserKey();
                    if (userKey != null)
                    {
                        rawUserKey.wrap(userKey);
                    }
                    writer.entry(entry.stateIndex(), rawKey, 0, entry.rawKey().length,
                        userKey == null ? null : rawUserKey, 0, userKey == null ? 0 : userKey.length,
                        rawValue, 0, entry.rawValue().length);
                    continue;
                }
                final int keyLength = HeapKeyedStateStore.encode(keyCodec, entry.key(), keyBuffer, 0);
                final Codec<Object> userKeyCodec = userKeyEncoders.get(entry.stateIndex());
                final int userKeyLength = userKeyCodec == null ? 0 :
                    HeapKeyedStateStore.encode(userKeyCodec, entry.userKey(), userKeyBuffer, 0);
                final boolean ttl = metas.get(entry.stateIndex()).timeToLive();
                final int prefix = ttl ? TtlValues.PREFIX_LENGTH : 0;
                final int valueLength = prefix + HeapKeyedStateStore.encode(valueEncoders.get(entry.stateIndex()),
                    entry.value(), valueBuffer, prefix);
                if (ttl)
                {
                    TtlValues.putTimestamp(valueBuffer, 0, entry.timestamp());
                }
                writer.entry(entry.stateIndex(), keyBuffer, 0, keyLength,
                    userKeyCodec == null ? null : userKeyBuffer, 0, userKeyLength, valueBuffer, 0, valueLength);
            }
            start = end;
        }
        writer.finish();
    }

    @Override
    public void release()
    {
        frozen = List.of();
        carried = List.of();
    }
}
