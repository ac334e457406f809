package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.functions.StateInitializationContext;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The operator state of one operator subtask: named lists, declared by a
 * {@link io.ringflow.engine.api.functions.CheckpointedFunction}, encoded on the task thread at each barrier.
 *
 * <pre>
 *   magic "RFOS" (int) | version (int) | state count (int)
 *   per state: name (string) | element type (string) | codec version (int) | element count (int)
 *              per element: length (int) | bytes
 *   string: length (int) | UTF-8 bytes
 * </pre>
 *
 * Thread contract: confined to the task thread; restored before the task starts.
 */
public final class OperatorStateStore implements StateInitializationContext
{
    static final int MAGIC = 0x52464F53;
    static final int VERSION = 1;

    private final CodecRegistry codecs;
    private final Map<String, ListStateImpl<?>> states = new LinkedHashMap<>();
    /** Restored elements by state name, still encoded; decoded when the state is declared. */
    private final Map<String, RestoredList> restored = new LinkedHashMap<>();
    private boolean isRestored;
    /** Union lists of byte[] encoded by the flusher, not at the barrier (see {@link DeferredState}). */
    private final Map<String, DeferredState> deferred = new LinkedHashMap<>();

    /**
     * An engine-owned state (timers) whose encoding is too large for the barrier: at the barrier it only captures what
     * it needs ({@link #capture}, on the task thread, cheap); the flusher encodes that later ({@link Encoding#encode}),
     * while the task goes on. What it captured must not change afterwards.
     */
    public interface DeferredState
    {
        /** @return what the flusher will encode; task thread, at the barrier. */
        Encoding capture();

        /** A captured state, encoded off the task thread. */
        interface Encoding
        {
            /** @return about how many bytes it will encode to. */
            long estimatedBytes();

            /** @return the union list's elements; any thread, once. */
            List<byte[]> encode();
        }
    }

    /**
     * Declares a union list of {@code byte[]} that {@code state} provides at each barrier (replacing a state of that
     * name declared before: read what was restored first, with {@link #getUnionListState}). Restores like any union
     * list.
     *
     * @param name  the state's name.
     * @param state captures and encodes it.
     */
    public void deferredUnionList(final String name, final DeferredState state)
    {
        states.remove(name);
        restored.remove(name);
        deferred.put(name, state);
    }

    public OperatorStateStore(final CodecRegistry codecs)
    {
        this.codecs = codecs;
    }

    /**
     * @param type a type.
     * @param <T>  the type.
     * @return the codec the job's registry has for it (what operator state elements of that type are written with).
     */
    public <T> Codec<T> codecFor(final Class<T> type)
    {
        return codecs.codecFor(type);
    }

    @Override
    public boolean isRestored()
    {
        return isRestored;
    }

    @Override
    public <T> OperatorListState<T> getListState(final String name, final Class<T> type)
    {
        return declare(name, type, false);
    }

    @Override
    public <T> OperatorListState<T> getUnionListState(final String name, final Class<T> type)
    {
        return declare(name, type, true);
    }

    private void refuseDeferred(final String name)
    {
        if (deferred.containsKey(name))
        {
            throw new IllegalStateException("operator state '" + name + "' is the engine's own (timers): pick " +
                "another name");
        }
    }

    @SuppressWarnings("unchecked")
    private <T> OperatorListState<T> declare(final String name, final Class<T> type, final boolean union)
    {
        refuseDeferred(name);
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        final ListStateImpl<?> existing = states.get(name);
        if (existing != null)
        {
            if (existing.type != type || existing.union != union)
            {
                throw new IllegalStateException("operator state '" + name + "' is already declared as " +
                    existing.describe() + "; cannot declare it again as " + (union ? "a union list" : "a list") +
                    " of " + type.getName());
            }
            return (OperatorListState<T>)existing;
        }
        final ListStateImpl<T> state = new ListStateImpl<>(type, codecs.codecFor(type), union);
        final RestoredList entries = restored.remove(name);
        if (entries != null)
        {
            entries.decodeInto(name, state);
        }
        states.put(name, state);
        return state;
    }

    /**
     * @param name a state name.
     * @return how many restored elements that state holds, still encoded (not declared yet); 0 when none.
     */
    public int restoredElements(final String name)
    {
        final RestoredList list = restored.get(name);
        return list == null ? 0 : list.elements.size();
    }

    /** @return whether a snapshot would hold anything. */
    boolean isEmpty()
    {
        return states.isEmpty() && restored.isEmpty() && deferred.isEmpty();
    }

    /**
     * Encodes every declared state (and restored states not declared again, unchanged). Task thread, at the barrier.
     *
     * @return the encoded snapshot.
     */
    public byte[] snapshot()
    {
        return capture().toBytes();
    }

    /**
     * The synchronous part of a snapshot: every declared state encoded, every deferred state captured. Task thread, at
     * the barrier; {@link Captured#toBytes} finishes it on any thread.
     *
     * @return the captured snapshot.
     */
    public Captured capture()
    {
        final List<Map.Entry<String, DeferredState.Encoding>> encodings = new ArrayList<>();
        for (final Map.Entry<String, DeferredState> entry : deferred.entrySet())
        {
            encodings.add(Map.entry(entry.getKey(), entry.getValue().capture()));
        }
        return new Captured(encodeDeclared(), states.size() + restored.size(), encodings,
            codecs.codecFor(byte[].class));
    }

    /** A snapshot taken at a barrier, its deferred parts not encoded yet. */
    public static final class Captured
    {
        private final byte[] declared;
        private final int declaredCount;
        private final List<Map.Entry<String, DeferredState.Encoding>> encodings;
        private final Codec<byte[]> bytesCodec;

        Captured(final byte[] declared, final int declaredCount,
            final List<Map.Entry<String, DeferredState.Encoding>> encodings, final Codec<byte[]> bytesCodec)
        {
            this.declared = declared;
            this.declaredCount = declaredCount;
            this.encodings = encodings;
            this.bytesCodec = bytesCodec;
        }

        /** @return whether a part is encoded only by {@link #toBytes} (then it is not written on the task thread). */
        public boolean hasDeferredParts()
        {
            for (final Map.Entry<String, DeferredState.Encoding> entry : encodings)
            {
                if (entry.getValue().estimatedBytes() > 0)
                {
                    return true;
                }
            }
            return false;
        }

        /** @return about how many bytes {@link #toBytes} returns. */
        public long estimatedBytes()
        {
            long bytes = declared.length + 12;
            for (final Map.Entry<String, DeferredState.Encoding> entry : encodings)
            {
                bytes += entry.getValue().estimatedBytes();
            }
            return bytes;
        }

        /** @return the encoded snapshot, in the format {@link #restore} reads; runs the deferred encodings. */
        public byte[] toBytes()
        {
            try
            {
                final ByteArrayOutputStream bytes = new ByteArrayOutputStream((int)Math.min(Integer.MAX_VALUE - 16,
                    estimatedBytes() + 64));
                final DataOutputStream out = new DataOutputStream(bytes);
                out.writeInt(MAGIC);
                out.writeInt(VERSION);
                out.writeInt(declaredCount + encodings.size());
                out.write(declared);
                final CodecBuffer buffer = CodecBuffer.growable(128);
                for (final Map.Entry<String, DeferredState.Encoding> entry : encodings)
                {
                    final ListStateImpl<byte[]> list = new ListStateImpl<>(byte[].class, bytesCodec, true);
                    list.elements.addAll(entry.getValue().encode());
                    list.writeTo(entry.getKey(), out, buffer);
                }
                out.flush();
                return bytes.toByteArray();
            }
            catch (final IOException impossible)
            {
                throw new IllegalStateException("writing to memory failed", impossible);
            }
        }
    }

    /** @return the declared and restored states, encoded one after the other (no header). */
    private byte[] encodeDeclared()
    {
        try
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(bytes);
            final CodecBuffer buffer = CodecBuffer.growable(128);
            for (final Map.Entry<String, ListStateImpl<?>> entry : states.entrySet())
            {
                entry.getValue().writeTo(entry.getKey(), out, buffer);
            }
            for (final Map.Entry<String, RestoredList> entry : restored.entrySet())
            {
                entry.getValue().writeTo(entry.getKey(), out);
            }
            out.flush();
            return bytes.toByteArray();
        }
        catch (final IOException impossible)
        {
            throw new IllegalStateException("writing to memory failed", impossible);
        }
    }

    /**
     * Restores from the snapshots of former subtasks. Same parallelism: {@code snapshots} is this subtask's own.
     * Otherwise all of them, and this subtask keeps every element whose index in the concatenation modulo
     * {@code parallelism} is {@code subtask}.
     *
     * @param snapshots   encoded snapshots, each with its file name for errors.
     * @param subtask     this subtask.
     * @param parallelism the new parallelism, or -1 to keep every element.
     */
    public void restore(final List<Map.Entry<String, byte[]>> snapshots, final int subtask, final int parallelism)
    {
        restore(snapshots, subtask, parallelism, parallelism < 0 ? ALL_OWN : DEAL);
    }

    /** {@link #restore(List, int, int, int)}: every given snapshot is this subtask's own. */
    public static final int ALL_OWN = -1;
    /** {@link #restore(List, int, int, int)}: the parallelism changed; list elements are dealt out round-robin. */
    public static final int DEAL = -2;

    /**
     * Restores from the snapshots of every former subtask. Union list states get every element of every snapshot;
     * list states get this subtask's share: the elements of snapshot {@code own}, or, when {@code own} is
     * {@link #DEAL}, every element whose index in the concatenation modulo {@code parallelism} is {@code subtask}.
     *
     * @param snapshots   encoded snapshots, each with its file name for errors, in former-subtask order.
     * @param subtask     this subtask.
     * @param parallelism the new parallelism.
     * @param own         the index in {@code snapshots} of this subtask's own snapshot, {@link #ALL_OWN} or
     *                    {@link #DEAL}.
     */
    public void restore(final List<Map.Entry<String, byte[]>> snapshots, final int subtask, final int parallelism,
        final int own)
    {
        isRestored = true;
        final Map<String, Integer> dealt = new LinkedHashMap<>();
        for (int index = 0; index < snapshots.size(); index++)
        {
            final Map.Entry<String, byte[]> snapshot = snapshots.get(index);
            final ByteBuffer in = ByteBuffer.wrap(snapshot.getValue());
            final String file = snapshot.getKey();
            try
            {
                if (in.getInt() != MAGIC)
                {
                    throw new CorruptCheckpointException(file, "not a Ringflow operator state file");
                }
                final int version = in.getInt();
                if (version != VERSION)
                {
                    throw new CorruptCheckpointException(file, "operator state format version " + version +
                        ", this build reads " + VERSION);
                }
                final int count = count(in, file);
                for (int s = 0; s < count; s++)
                {
                    final String name = string(in, file);
                    final String type = string(in, file);
                    final int codecVersion = in.getInt();
                    final int elements = count(in, file);
                    final RestoredList list = restored.computeIfAbsent(name, n -> new RestoredList(type, codecVersion));
                    if (!list.type.equals(type) || list.codecVersion != codecVersion)
                    {
                        throw new CorruptCheckpointException(file, "operator state '" + name + "' has type " + type +
                            " v" + codecVersion + " here and " + list.type + " v" + list.codecVersion + " elsewhere");
                    }
                    for (int e = 0; e < elements; e++)
                    {
                        final int length = count(in, file);
                        final byte[] element = new byte[length];
                        in.get(element);
                        final boolean mine;
                        if (own == DEAL)
                        {
                            mine = (dealt.merge(name, 1, Integer::sum) - 1) % parallelism == subtask;
                        }
                        else
                        {
                            mine = own == ALL_OWN || own == index;
                        }
                        if (mine)
                        {
                            list.elements.add(element);
                        }
                        list.union.add(element);
                    }
                }
            }
            catch (final java.nio.BufferUnderflowException ex)
            {
                throw new CorruptCheckpointException(file, "operator state ends early");
            }
        }
    }

    private static int count(final ByteBuffer in, final String file)
    {
        final int count = in.getInt();
        if (count < 0 || count > in.remaining() + 1)
        {
            throw new CorruptCheckpointException(file, "count or length " + count + " out of range");
        }
        return count;
    }

    private static String string(final ByteBuffer in, final String file)
    {
        final int length = count(in, file);
        final byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void writeString(final DataOutputStream out, final String value) throws IOException
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static final class ListStateImpl<T> implements OperatorListState<T>
    {
        final Class<T> type;
        final Codec<T> codec;
        final boolean union;
        final List<T> elements = new ArrayList<>();

        ListStateImpl(final Class<T> type, final Codec<T> codec, final boolean union)
        {
            this.type = type;
            this.codec = codec;
            this.union = union;
        }

        String describe()
        {
            return (union ? "a union list of " : "a list of ") + type.getName();
        }

        @Override
        public List<T> get()
        {
            return elements;
        }

        @Override
        public void add(final T value)
        {
            elements.add(Objects.requireNonNull(value, "operator state elements must not be null"));
        }

        @Override
        public void update(final List<T> values)
        {
            for (final T value : values)
            {
                Objects.requireNonNull(value, "operator state elements must not be null");
            }
            elements.clear();
            elements.addAll(values);
        }

        @Override
        public void clear()
        {
            elements.clear();
        }

        void writeTo(final String name, final DataOutputStream out, final CodecBuffer buffer)
            throws IOException
        {
            writeString(out, name);
            writeString(out, type.getName());
            out.writeInt(codec.version());
            out.writeInt(elements.size());
            for (final T element : elements)
            {
                // a growable buffer: it overflows only past what any buffer can hold
                final int length = codec.encode(element, buffer, 0);
                if (buffer.overflowed())
                {
                    throw new IllegalStateException("an element of operator state '" + name + "' encodes to more " +
                        "than a buffer can hold");
                }
                out.writeInt(length);
                buffer.writeTo(0, length, out);
            }
        }
    }

    private static final class RestoredList
    {
        final String type;
        final int codecVersion;
        /** This subtask's share. */
        final List<byte[]> elements = new ArrayList<>();
        /** Every former subtask's elements, for a union list state. */
        final List<byte[]> union = new ArrayList<>();

        RestoredList(final String type, final int codecVersion)
        {
            this.type = type;
            this.codecVersion = codecVersion;
        }

        <T> void decodeInto(final String name, final ListStateImpl<T> state)
        {
            if (!type.equals(state.type.getName()))
            {
                throw new IllegalStateException("operator state '" + name + "' was saved with elements of type " +
                    type + " and is now declared with type " + state.type.getName());
            }
            if (codecVersion != state.codec.version())
            {
                throw new IllegalStateException("operator state '" + name + "' was saved by codec version " +
                    codecVersion + " of " + type + ", and the codec now registered is version " +
                    state.codec.version());
            }
            for (final byte[] element : state.union ? union : elements)
            {
                state.elements.add(state.codec.decode(CodecBuffer.wrap(element), 0, element.length));
            }
        }

        void writeTo(final String name, final DataOutputStream out) throws IOException
        {
            writeString(out, name);
            writeString(out, type);
            out.writeInt(codecVersion);
            out.writeInt(elements.size());
            for (final byte[] element : elements)
            {
                out.writeInt(element.length);
                out.write(element);
            }
        }
    }
}
