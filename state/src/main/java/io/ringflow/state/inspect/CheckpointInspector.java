package io.ringflow.state.inspect;

import io.ringflow.state.checkpoint.CheckpointCatalog;
import io.ringflow.state.checkpoint.ChannelStateFormat;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.checkpoint.MetadataFormat;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.SubtaskState;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.KeyedSnapshotChain;
import io.ringflow.state.snapshot.KeyedSnapshotFormat;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.ListCodec;
import io.ringflow.state.snapshot.StateMeta;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Opens a verified checkpoint and describes what it holds, read-only: per operator (by uid) its parallelism and max
 * parallelism, its sources' positions, and per subtask its keyed state per state name (kind, types, entries, bytes,
 * key groups; an incremental chain merged first, as a restore would), its operator state and channel state sizes,
 * and optionally the first entries of each keyed state, decoded.
 *
 * <p>Decoding: a key, user key or value is decoded by the codec a {@link CodecRegistry} with the built-ins gives for
 * the type the snapshot names, when that type is on the class path (built-in types always are; a record type when
 * the job's classes are) and the codec's version is the one the snapshot records; otherwise it is shown by its size,
 * with the reason. Stateless; any thread.
 */
public final class CheckpointInspector
{
    private CheckpointInspector()
    {
    }

    /**
     * One decoded entry of a keyed state. Each part is its decoded value as text, or, when it cannot be decoded, its
     * size and the reason in angle brackets.
     *
     * @param keyGroup the entry's key group.
     * @param key      the key.
     * @param userKey  a MAP state's user key, or null for other kinds.
     * @param value    the value (a LIST state's whole list).
     */
    public record Entry(int keyGroup, String key, String userKey, String value)
    {
        /** @return {@code key group G: key = value}, or {@code key / user key = value} for a MAP state. */
        @Override
        public String toString()
        {
            return "key group " + keyGroup + ": " + key + (userKey == null ? "" : " / " + userKey) + " = " + value;
        }
    }

    /**
     * Which entries of each keyed state to decode.
     *
     * @param limit    at most this many per state and subtask, in key group order; 0 for none.
     * @param key      only entries whose decoded key reads exactly so, or null for any key.
     * @param keyGroup only entries of this key group, or -1 for any.
     */
    public record EntryFilter(int limit, String key, int keyGroup)
    {
        /**
         * @param limit    at most this many, &gt;= 0.
         * @param key      the key as decoded, or null.
         * @param keyGroup the key group, or -1.
         */
        public EntryFilter
        {
            if (limit < 0)
            {
                throw new IllegalArgumentException("limit must be >= 0, was " + limit);
            }
            if (keyGroup < -1)
            {
                throw new IllegalArgumentException("key group must be >= 0 (or -1 for any), was " + keyGroup);
            }
        }

        /** @param limit how many. @return the first {@code limit} entries of any key. */
        public static EntryFilter first(final int limit)
        {
            return new EntryFilter(limit, null, -1);
        }

        boolean admitsGroup(final int group)
        {
            return limit > 0 && (keyGroup < 0 || keyGroup == group);
        }
    }

    /**
     * One keyed state of one subtask.
     *
     * @param meta      what the snapshot says of it: name, kind, types, codec versions, time-to-live.
     * @param entries   its entries (per key, or per key and user key for a MAP state).
     * @param keys      distinct keys with an entry.
     * @param bytes     encoded bytes of its keys, user keys and values.
     * @param keyGroups key groups holding at least one of its entries.
     * @param samples   the first entries, decoded, in key group order; as many as asked for.
     */
    public record KeyedStateView(StateMeta meta, long entries, long keys, long bytes, int keyGroups,
        List<Entry> samples)
    {
    }

    /**
     * One input channel in a subtask's channel state: what an unaligned checkpoint stored as in flight on it.
     *
     * @param channel    the channel's position in the file (the task's input channel order).
     * @param inputIndex the operator input it feeds: 0, or 1 for a two-input operator's second input.
     * @param records    in-flight records stored for it.
     * @param bytes      their encoded bytes.
     */
    public record ChannelView(int channel, int inputIndex, long records, long bytes)
    {
    }

    /**
     * One subtask of an operator with state.
     *
     * @param index          the subtask index.
     * @param keyedFiles     the files of its keyed chain, base first; empty without keyed state.
     * @param keyed          its keyed states, in the snapshot's order.
     * @param operatorBytes  the size of its operator state file, 0 without.
     * @param channelBytes   the size of its channel state file (in-flight records of an unaligned checkpoint), 0
     *                       without.
     * @param channels       its channel state per input channel; empty without.
     */
    public record SubtaskView(int index, List<String> keyedFiles, List<KeyedStateView> keyed, long operatorBytes,
        long channelBytes, List<ChannelView> channels)
    {
    }

    /**
     * One operator: with state, or a source with positions, or both.
     *
     * @param uid             its uid.
     * @param parallelism     its parallelism when the checkpoint was taken (the number of source positions for a
     *                        stateless source).
     * @param maxParallelism  its max parallelism (key groups), or 0 when it has no state.
     * @param sourcePositions its sources' positions per subtask, or empty when it is not a source.
     * @param subtasks        its subtasks' state; empty when it has none.
     */
    public record OperatorView(String uid, int parallelism, int maxParallelism, List<Long> sourcePositions,
        List<SubtaskView> subtasks)
    {
    }

    /**
     * Describes a checkpoint already found intact by {@link CheckpointCatalog#verify}.
     *
     * @param report       its verification report; must be intact.
     * @param operatorUid  only this operator, or null for all.
     * @param stateName    only keyed states of this name, or null for all.
     * @param samples      how many entries of each keyed state to decode, 0 for none.
     * @param classLoader  where user types named by the snapshot are looked up.
     * @return its operators, ordered by uid.
     * @throws IllegalArgumentException when the report is not intact, or {@code operatorUid} names no operator.
     * @throws IOException              when a file cannot be read.
     * @throws CorruptCheckpointException when a file is damaged after all.
     */
    public static List<OperatorView> inspect(final CheckpointCatalog.Report report, final String operatorUid,
        final String stateName, final int samples, final ClassLoader classLoader) throws IOException
    {
        return inspect(report, operatorUid, stateName, EntryFilter.first(samples), classLoader);
    }

    /**
     * {@link #inspect(CheckpointCatalog.Report, String, String, int, ClassLoader)}, decoding the entries
     * {@code entries} selects.
     *
     * @param report      its verification report; must be intact.
     * @param operatorUid only this operator, or null for all.
     * @param stateName   only keyed states of this name, or null for all.
     * @param entries     which entries to decode.
     * @param classLoader where user types named by the snapshot are looked up.
     * @return its operators, ordered by uid.
     * @throws IllegalArgumentException   when the report is not intact, or {@code operatorUid} names no operator.
     * @throws IOException                when a file cannot be read.
     * @throws CorruptCheckpointException when a file is damaged after all.
     */
    public static List<OperatorView> inspect(final CheckpointCatalog.Report report, final String operatorUid,
        final String stateName, final EntryFilter entries, final ClassLoader classLoader) throws IOException
    {
        final EntryFilter samples = entries;
        if (!report.intact())
        {
            throw new IllegalArgumentException("chk-" + report.checkpointId() + " is damaged: " +
                report.problems().get(0));
        }
        final CheckpointMetadata metadata = report.metadata();
        final TreeSet<String> uids = new TreeSet<>(metadata.operators().keySet());
        uids.addAll(metadata.sourcePositions().keySet());
        if (operatorUid != null && !uids.contains(operatorUid))
        {
            throw new IllegalArgumentException("no operator with uid '" + operatorUid + "' in chk-" +
                report.checkpointId() + "; its operators: " + String.join(", ", uids));
        }
        final Decoders decoders = new Decoders(classLoader);
        final List<OperatorView> views = new ArrayList<>();
        for (final String uid : uids)
        {
            if (operatorUid != null && !operatorUid.equals(uid))
            {
                continue;
            }
            final List<Long> positions = metadata.sourcePositions().getOrDefault(uid, List.of());
            final OperatorState state = metadata.operators().get(uid);
            if (state == null)
            {
                views.add(new OperatorView(uid, positions.size(), 0, positions, List.of()));
                continue;
            }
            final List<SubtaskView> subtasks = new ArrayList<>();
            for (int i = 0; i < state.subtasks().size(); i++)
            {
                subtasks.add(subtask(report.folder(), i, state.subtasks().get(i), stateName, samples, decoders));
            }
            views.add(new OperatorView(uid, state.parallelism(), state.maxParallelism(), positions, subtasks));
        }
        return views;
    }

    private static SubtaskView subtask(final Path folder, final int index, final SubtaskState state,
        final String stateName, final EntryFilter samples, final Decoders decoders) throws IOException
    {
        final List<String> files = new ArrayList<>();
        final List<KeyedStateView> keyed = new ArrayList<>();
        if (state.keyed() != null)
        {
            final List<KeyedSnapshotReader> chain = new ArrayList<>();
            for (final StateHandle handle : state.keyedChain())
            {
                final Path file = CheckpointCatalog.fileOf(folder, handle);
                files.add(file.toString());
                chain.add(KeyedSnapshotReader.open(
                    MetadataFormat.verifyState(Files.readAllBytes(file), handle, file.toString()), file.toString()));
            }
            final KeyedSnapshotReader merged = KeyedSnapshotChain.merge(chain, chain.get(0).range());
            keyed.addAll(keyedStates(merged, stateName, samples, decoders));
        }
        final List<ChannelView> channels = new ArrayList<>();
        if (state.channels() != null)
        {
            final Path file = CheckpointCatalog.fileOf(folder, state.channels());
            final List<int[]> structure = new ArrayList<>();
            final List<long[]> bytes = new ArrayList<>();
            ChannelStateFormat.read(MetadataFormat.verifyState(Files.readAllBytes(file), state.channels(),
                file.toString()), file.toString(), new ChannelStateFormat.Visitor()
                {
                    @Override
                    public void channel(final int channel, final int inputIndex, final int records)
                    {
                        structure.add(new int[] {inputIndex, records});
                        bytes.add(new long[1]);
                    }

                    @Override
                    public void record(final int channel, final long timestamp, final CodecBuffer buffer,
                        final int offset, final int length)
                    {
                        bytes.get(channel)[0] += length;
                    }
                });
            for (int c = 0; c < structure.size(); c++)
            {
                channels.add(new ChannelView(c, structure.get(c)[0], structure.get(c)[1], bytes.get(c)[0]));
            }
        }
        return new SubtaskView(index, files, keyed,
            state.operator() == null ? 0 : state.operator().length(),
            state.channels() == null ? 0 : state.channels().length(), List.copyOf(channels));
    }

    private static List<KeyedStateView> keyedStates(final KeyedSnapshotReader reader, final String stateName,
        final EntryFilter samples, final Decoders decoders)
    {
        final List<StateMeta> states = reader.states();
        final int n = states.size();
        final long[] entries = new long[n];
        final long[] keys = new long[n];
        final long[] bytes = new long[n];
        final int[] groups = new int[n];
        final int[] lastGroup = new int[n];
        final List<List<Entry>> sampled = new ArrayList<>(n);
        final CodecBuffer[] lastKey = new CodecBuffer[n];
        final int[][] lastKeyAt = new int[n][2];
        for (int s = 0; s < n; s++)
        {
            lastGroup[s] = -1;
            sampled.add(new ArrayList<>());
        }
        reader.read(reader.range(), (keyGroup, state, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) ->
        {
            entries[state]++;
            bytes[state] += keyLength + Math.max(0, subKeyLength) + Math.max(0, valueLength);
            if (lastGroup[state] != keyGroup)
            {
                lastGroup[state] = keyGroup;
                groups[state]++;
            }
            if (lastKey[state] == null || !buffer.equalBytes(keyOffset, keyLength, lastKey[state], lastKeyAt[state][0])
                || lastKeyAt[state][1] != keyLength)
            {
                keys[state]++;
                lastKey[state] = buffer;
                lastKeyAt[state][0] = keyOffset;
                lastKeyAt[state][1] = keyLength;
            }
            if (sampled.get(state).size() < samples.limit() && samples.admitsGroup(keyGroup))
            {
                final Entry entry = decoders.entry(states.get(state), keyGroup, buffer, keyOffset, keyLength,
                    subKeyOffset, subKeyLength, valueOffset, valueLength);
                if (samples.key() == null || samples.key().equals(entry.key()))
                {
                    sampled.get(state).add(entry);
                }
            }
        });
        final List<KeyedStateView> views = new ArrayList<>();
        for (int s = 0; s < n; s++)
        {
            if (stateName == null || stateName.equals(states.get(s).name()))
            {
                views.add(new KeyedStateView(states.get(s), entries[s], keys[s], bytes[s], groups[s],
                    List.copyOf(sampled.get(s))));
            }
        }
        return views;
    }

    /** Decodes keys and values by the type names a snapshot records; remembers why a type cannot be decoded. */
    private static final class Decoders
    {
        private final CodecRegistry registry = CodecRegistry.withBuiltIns();
        private final ClassLoader classLoader;
        private final Map<String, Object> byType = new HashMap<>();

        Decoders(final ClassLoader classLoader)
        {
            this.classLoader = classLoader;
        }

        Entry entry(final StateMeta meta, final int keyGroup, final CodecBuffer buffer, final int keyOffset,
            final int keyLength, final int subKeyOffset, final int subKeyLength, final int valueOffset,
            final int valueLength)
        {
            final String key = decode(meta.keyType(), meta.keyCodecVersion(), buffer, keyOffset, keyLength);
            final String userKey = subKeyLength < 0 ? null :
                decode(meta.userKeyType(), meta.userKeyCodecVersion(), buffer, subKeyOffset, subKeyLength);
            if (valueLength == KeyedSnapshotFormat.TOMBSTONE)
            {
                return new Entry(keyGroup, key, userKey, "(removed)");
            }
            final int skip = meta.timeToLive() ? Long.BYTES : 0;
            final String value;
            if (meta.kind() == StateKind.LIST)
            {
                final Object elements = codec(meta.valueType(), meta.valueCodecVersion());
                value = elements instanceof Codec<?> ?
                    safely(new ListCodec<>((Codec<?>)elements), buffer, valueOffset + skip, valueLength - skip) :
                    "<list of " + (valueLength - skip) + " bytes: " + elements + ">";
            }
            else
            {
                value = decode(meta.valueType(), meta.valueCodecVersion(), buffer, valueOffset + skip,
                    valueLength - skip);
            }
            return new Entry(keyGroup, key, userKey, value);
        }

        private String decode(final String type, final int version, final CodecBuffer buffer, final int offset,
            final int length)
        {
            final Object codec = codec(type, version);
            if (codec instanceof Codec<?>)
            {
                return safely((Codec<?>)codec, buffer, offset, length);
            }
            return "<" + length + " bytes: " + codec + ">";
        }

        private static String safely(final Codec<?> codec, final CodecBuffer buffer, final int offset,
            final int length)
        {
            try
            {
                return String.valueOf(codec.decode(buffer, offset, length));
            }
            catch (final RuntimeException ex)
            {
                return "<" + length + " bytes that " + codec + " cannot decode: " + ex.getMessage() + ">";
            }
        }

        /** @return the codec, or the reason there is none (a String). */
        private Object codec(final String type, final int version)
        {
            return byType.computeIfAbsent(type + "#" + version, ignored ->
            {
                if (type.isEmpty())
                {
                    return "no type recorded";
                }
                final Class<?> resolved;
                try
                {
                    resolved = primitiveOr(type);
                }
                catch (final ClassNotFoundException ex)
                {
                    return type + " is not on the class path (give the job's classes with --classpath)";
                }
                try
                {
                    final Codec<?> codec = registry.codecFor(resolved);
                    if (codec.version() != version)
                    {
                        return "the codec of " + type + " is version " + codec.version() + ", the snapshot's " +
                            version;
                    }
                    return codec;
                }
                catch (final RuntimeException ex)
                {
                    return "no codec for " + type + ": " + ex.getMessage();
                }
            });
        }

        private Class<?> primitiveOr(final String type) throws ClassNotFoundException
        {
            final Map<String, Class<?>> primitives = new TreeMap<>(Map.of("long", Long.class, "int", Integer.class,
                "double", Double.class, "float", Float.class, "short", Short.class, "byte", Byte.class,
                "char", Character.class, "boolean", Boolean.class));
            final Class<?> primitive = primitives.get(type);
            return primitive != null ? primitive : Class.forName(type, false, classLoader);
        }
    }
}
