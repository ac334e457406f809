package io.ringflow.state.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The binary format of {@code _metadata}, written and read with explicit code (never Java serialization: reading a
 * checkpoint cannot run code).
 *
 * <pre>
 *   magic "RFCK" (4) | format version (int) | body length (int) | body ... | CRC32C of everything before (int)
 *   body: checkpoint id (long) | trigger ms (long) | savepoint (byte 0/1) | source count (int)
 *         per source, sorted by uid: uid (string) | subtasks (int) | position (long) per subtask
 *         operator count (int)
 *         per operator, sorted by uid: uid (string) | parallelism (int) | max parallelism (int)
 *           per subtask: keyed handle | increment count (int) | file per increment | operator handle
 *                        | channel handle
 *   handle: present (byte 0/1), then if present: file
 *   file:   name (string) | length (long) | CRC32C (int) | shared (byte 0/1)
 *   string: length (int) | UTF-8 bytes
 * </pre>
 *
 * The keyed handle is the base of the subtask's keyed chain and the increments are its delta files, oldest first;
 * increments are only allowed after a present keyed handle. A shared file lives in the storage's shared area, any
 * other in the checkpoint's folder.
 *
 * <p>Version 2, still read (never written): no increment count and no increments, and a file has no shared byte
 * (every file is private). All integers big-endian. A reader checks magic, version, lengths and checksum before
 * trusting a single field, bounds every count, and accepts only 0 or 1 in a flag byte.
 */
public final class MetadataFormat
{
    /** The four bytes every metadata file starts with. */
    public static final int MAGIC = 0x5246434B;
    /** The version this code writes (and reads). */
    public static final int VERSION = 3;
    /** The oldest version this code still reads: before keyed increments and shared files. */
    public static final int OLDEST_READABLE_VERSION = 2;
    private static final int MAX_UID_BYTES = 64 * 1024;
    private static final int MAX_SUBTASKS = 1 << 15;
    private static final int MAX_OPERATORS = 1 << 20;
    private static final int MAX_INCREMENTS = 1 << 16;

    private MetadataFormat()
    {
    }

    /**
     * @param metadata what to encode.
     * @return the file's bytes.
     * @throws IllegalArgumentException when a keyed chain has more increments than a reader accepts (65536).
     */
    public static byte[] encode(final CheckpointMetadata metadata)
    {
        return encode(metadata, null);
    }

    /**
     * {@link #encode(CheckpointMetadata)} into {@code reuse} when the file is exactly as long (checkpoints of one job
     * usually encode to one length): storage that keeps metadata in memory passes the array of a checkpoint it
     * dropped.
     *
     * @param metadata what to encode.
     * @param reuse    an array no one reads any more, or null.
     * @return the file's bytes: {@code reuse}, overwritten, or a new array.
     * @throws IllegalArgumentException when a keyed chain has more increments than a reader accepts (65536).
     */
    public static byte[] encode(final CheckpointMetadata metadata, final byte[] reuse)
    {
        final Encoder encoder = ENCODER.get();
        try
        {
            final Encoder.Bytes body = encoder.bytes;
            body.reset();
            final DataOutputStream out = encoder.out;
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            // the body's length, filled in below
            out.writeInt(0);
            out.writeLong(metadata.checkpointId());
            out.writeLong(metadata.triggerMillis());
            out.writeBoolean(metadata.savepoint());
            // maps in the order of their keys, sorted in the encoder's scratch array (no sorted copy of each map)
            final Map<String, List<Long>> sources = metadata.sourcePositions();
            final String[] sourceUids = encoder.sortedKeys(Encoder.SOURCES, sources);
            final int sourceCount = sources.size();
            out.writeInt(sourceCount);
            for (int s = 0; s < sourceCount; s++)
            {
                final String uid = sourceUids[s];
                final List<Long> positions = sources.get(uid);
                writeString(out, uid, encoder);
                out.writeInt(positions.size());
                for (int p = 0; p < positions.size(); p++)
                {
                    out.writeLong(positions.get(p));
                }
            }
            final Map<String, OperatorState> operators = metadata.operators();
            final String[] operatorUids = encoder.sortedKeys(Encoder.OPERATORS, operators);
            final int operatorCount = operators.size();
            out.writeInt(operatorCount);
            for (int o = 0; o < operatorCount; o++)
            {
                final String uid = operatorUids[o];
                final OperatorState operator = operators.get(uid);
                writeString(out, uid, encoder);
                out.writeInt(operator.parallelism());
                out.writeInt(operator.maxParallelism());
                // indexed loops: no iterator a subtask or increment
                final List<SubtaskState> subtasks = operator.subtasks();
                for (int i = 0; i < subtasks.size(); i++)
                {
                    final SubtaskState subtask = subtasks.get(i);
                    writeHandle(out, subtask.keyed(), encoder);
                    final List<StateHandle> increments = subtask.keyedIncrements();
                    if (increments.size() > MAX_INCREMENTS)
                    {
                        throw new IllegalArgumentException("operator " + uid + " has a keyed chain of " +
                            increments.size() + " increments, more than a reader accepts (" +
                            MAX_INCREMENTS + "): compact it");
                    }
                    out.writeInt(increments.size());
                    for (int n = 0; n < increments.size(); n++)
                    {
                        writeFile(out, increments.get(n), encoder);
                    }
                    writeHandle(out, subtask.operator(), encoder);
                    writeHandle(out, subtask.channels(), encoder);
                }
            }
            out.flush();
            final int headerAndBody = body.size();
            final byte[] file;
            if (reuse != null && reuse.length == headerAndBody + 4)
            {
                System.arraycopy(body.array(), 0, reuse, 0, headerAndBody);
                file = reuse;
            }
            else
            {
                file = java.util.Arrays.copyOf(body.array(), headerAndBody + 4);
            }
            putIntAt(file, 8, headerAndBody - 12);
            final CRC32C crc = encoder.crc;
            crc.reset();
            crc.update(file, 0, headerAndBody);
            putIntAt(file, headerAndBody, (int)crc.getValue());
            return file;
        }
        catch (final IOException impossible)
        {
            throw new IllegalStateException("writing to memory failed", impossible);
        }
        finally
        {
            encoder.trim();
        }
    }

    /** Writes {@code value} big-endian at {@code offset}, as {@link DataOutputStream#writeInt} does. */
    private static void putIntAt(final byte[] bytes, final int offset, final int value)
    {
        bytes[offset] = (byte)(value >>> 24);
        bytes[offset + 1] = (byte)(value >>> 16);
        bytes[offset + 2] = (byte)(value >>> 8);
        bytes[offset + 3] = (byte)value;
    }

    /**
     * Per thread, what {@link #encode} writes through, reused from one checkpoint's metadata to the next (the commit's
     * thread encodes every checkpoint): only the file's own array is new each time, unless the caller hands one to
     * reuse. Not reentrant; encode calls no code of the caller's while it holds it (a map's {@code containsKey} and
     * {@code keySet} aside).
     */
    private static final ThreadLocal<Encoder> ENCODER = ThreadLocal.withInitial(Encoder::new);

    private static final class Encoder
    {
        /** A buffer above this after an encode is dropped: a thread keeps no more for the job's life. */
        private static final int KEPT_BYTES = 64 * 1024;

        /** A {@link ByteArrayOutputStream} whose array the encoder reads in place. */
        private static final class Bytes extends ByteArrayOutputStream
        {
            Bytes()
            {
                super(1024);
            }

            byte[] array()
            {
                return buf;
            }
        }

        /** Index into {@link #sorted} of a checkpoint's source positions. */
        static final int SOURCES = 0;
        /** Index into {@link #sorted} of a checkpoint's operator states. */
        static final int OPERATORS = 1;

        private Bytes bytes = new Bytes();
        private DataOutputStream out = new DataOutputStream(bytes);
        private final CRC32C crc = new CRC32C();
        /** Scratch for a name's ASCII bytes. */
        private byte[] ascii = new byte[128];
        /**
         * Per kind of map, the keys the last encode wrote, sorted, in {@code [0, sortedCount[kind])}: the next
         * checkpoint of the same job has the same keys, and reuses the order without iterating its map (iterating an
         * immutable map allocates its entry set and entries). Kept until the next encode of the thread: a few names.
         */
        private final String[][] sorted = {new String[8], new String[8]};
        private final int[] sortedCount = new int[2];

        /**
         * @param kind {@link #SOURCES} or {@link #OPERATORS}.
         * @param map  a map about to be written.
         * @return its keys in their natural order, in {@code [0, map.size())} of the array returned.
         */
        String[] sortedKeys(final int kind, final Map<String, ?> map)
        {
            final int count = map.size();
            String[] keys = sorted[kind];
            if (count == sortedCount[kind] && containsAll(map, keys, count))
            {
                // as many keys, each of them in the map: the same set, already in order
                return keys;
            }
            if (keys.length < count)
            {
                keys = new String[Math.max(count, keys.length * 2)];
                sorted[kind] = keys;
            }
            // forgotten first: a map whose iteration throws leaves no half-written order to be reused
            java.util.Arrays.fill(keys, 0, sortedCount[kind], null);
            sortedCount[kind] = 0;
            int at = 0;
            for (final String key : map.keySet())
            {
                keys[at++] = key;
            }
            // binary insertion sort up to 32 keys: no merge buffer
            java.util.Arrays.sort(keys, 0, count);
            sortedCount[kind] = count;
            return keys;
        }

        private static boolean containsAll(final Map<String, ?> map, final String[] keys, final int count)
        {
            for (int i = 0; i < count; i++)
            {
                if (!map.containsKey(keys[i]))
                {
                    return false;
                }
            }
            return true;
        }

        /** @return a scratch array of at least {@code length} bytes. */
        byte[] ascii(final int length)
        {
            if (ascii.length < length)
            {
                ascii = new byte[Math.max(length, ascii.length * 2)];
            }
            return ascii;
        }

        void trim()
        {
            if (bytes.array().length > KEPT_BYTES)
            {
                bytes = new Bytes();
                out = new DataOutputStream(bytes);
            }
            if (ascii.length > KEPT_BYTES)
            {
                ascii = new byte[128];
            }
        }
    }

    /**
     * @param bytes a file's bytes.
     * @param name  the file, for error messages.
     * @return the decoded metadata.
     * @throws CorruptCheckpointException when the bytes are not a complete, intact metadata file of a version this code
     *                                    reads ({@link #OLDEST_READABLE_VERSION} to {@link #VERSION}).
     */
    public static CheckpointMetadata decode(final byte[] bytes, final String name)
    {
        if (bytes.length < 16)
        {
            throw new CorruptCheckpointException(name, "truncated: " + bytes.length + " bytes, not even a header");
        }
        final ByteBuffer file = ByteBuffer.wrap(bytes);
        final int magic = file.getInt();
        if (magic != MAGIC)
        {
            throw new CorruptCheckpointException(name, "not a Ringflow checkpoint metadata file (magic " +
                Integer.toHexString(magic) + ")");
        }
        final int version = file.getInt();
        if (version < OLDEST_READABLE_VERSION || version > VERSION)
        {
            throw new CorruptCheckpointException(name, "format version " + version + ", this build reads " +
                OLDEST_READABLE_VERSION + " to " + VERSION);
        }
        final int bodyLength = file.getInt();
        if (bodyLength < 0 || 12L + bodyLength + 4 != bytes.length)
        {
            throw new CorruptCheckpointException(name, "torn: header announces " + bodyLength + " body bytes, the " +
                "file has " + (bytes.length - 16));
        }
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, 12 + bodyLength);
        final int expected = ByteBuffer.wrap(bytes, 12 + bodyLength, 4).getInt();
        if ((int)crc.getValue() != expected)
        {
            throw new CorruptCheckpointException(name, "checksum mismatch (CRC32C " +
                Integer.toHexString((int)crc.getValue()) + ", file says " + Integer.toHexString(expected) + ")");
        }
        try
        {
            final DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes, 12, bodyLength));
            final long id = in.readLong();
            final long trigger = in.readLong();
            final boolean savepoint = readFlag(in, name, "savepoint");
            final int sources = readCount(in, name, "source", MAX_OPERATORS);
            final Map<String, List<Long>> positions = new LinkedHashMap<>();
            for (int s = 0; s < sources; s++)
            {
                final String uid = readString(in, name);
                final int subtasks = readCount(in, name, "subtask", MAX_SUBTASKS);
                final List<Long> list = new ArrayList<>(subtasks);
                for (int i = 0; i < subtasks; i++)
                {
                    list.add(in.readLong());
                }
                positions.put(uid, list);
            }
            final int operatorCount = readCount(in, name, "operator", MAX_OPERATORS);
            final Map<String, OperatorState> operators = new LinkedHashMap<>();
            for (int o = 0; o < operatorCount; o++)
            {
                final String uid = readString(in, name);
                final int parallelism = readCount(in, name, "parallelism", MAX_SUBTASKS);
                final int maxParallelism = readCount(in, name, "max parallelism", MAX_SUBTASKS);
                final List<SubtaskState> subtasks = new ArrayList<>(parallelism);
                for (int i = 0; i < parallelism; i++)
                {
                    subtasks.add(readSubtask(in, name, version, uid, i));
                }
                operators.put(uid, new OperatorState(parallelism, maxParallelism, subtasks));
            }
            if (in.available() != 0)
            {
                throw new CorruptCheckpointException(name, in.available() + " unexpected bytes after the body");
            }
            return new CheckpointMetadata(id, trigger, savepoint, positions, operators);
        }
        catch (final EOFException ex)
        {
            throw new CorruptCheckpointException(name, "body ends early");
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new CorruptCheckpointException(name, ex.toString());
        }
    }

    /** As UTF-8, length first; an ASCII string (every name the engine makes) through the encoder's scratch array. */
    private static void writeString(final DataOutputStream out, final String value, final Encoder encoder)
        throws IOException
    {
        final int length = value.length();
        final byte[] ascii = encoder.ascii(length);
        for (int i = 0; i < length; i++)
        {
            final char c = value.charAt(i);
            if (c >= 0x80)
            {
                final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                out.writeInt(bytes.length);
                out.write(bytes);
                return;
            }
            ascii[i] = (byte)c;
        }
        out.writeInt(length);
        out.write(ascii, 0, length);
    }

    private static void writeHandle(final DataOutputStream out, final StateHandle handle, final Encoder encoder)
        throws IOException
    {
        out.writeBoolean(handle != null);
        if (handle != null)
        {
            writeFile(out, handle, encoder);
        }
    }

    private static void writeFile(final DataOutputStream out, final StateHandle handle, final Encoder encoder)
        throws IOException
    {
        writeString(out, handle.name(), encoder);
        out.writeLong(handle.length());
        out.writeInt(handle.crc32c());
        out.writeBoolean(handle.shared());
    }

    private static SubtaskState readSubtask(final DataInputStream in, final String file, final int version,
        final String uid, final int subtask) throws IOException
    {
        final StateHandle keyed = readHandle(in, file, version);
        final List<StateHandle> increments = new ArrayList<>();
        if (version >= 3)
        {
            final int count = readCount(in, file, "keyed increment", MAX_INCREMENTS);
            if (count > 0 && keyed == null)
            {
                throw new CorruptCheckpointException(file, "subtask " + subtask + " of operator " + uid + " has " +
                    count + " keyed increments but no keyed base");
            }
            for (int i = 0; i < count; i++)
            {
                increments.add(readFile(in, file, version));
            }
        }
        final StateHandle operator = readHandle(in, file, version);
        final StateHandle channels = readHandle(in, file, version);
        return new SubtaskState(keyed, increments, operator, channels);
    }

    private static String readString(final DataInputStream in, final String file) throws IOException
    {
        final int length = in.readInt();
        if (length < 0 || length > MAX_UID_BYTES)
        {
            throw new CorruptCheckpointException(file, "string length " + length + " out of range");
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    private static int readCount(final DataInputStream in, final String file, final String what, final int max)
        throws IOException
    {
        final int count = in.readInt();
        if (count < 0 || count > max)
        {
            throw new CorruptCheckpointException(file, what + " count " + count + " out of range");
        }
        return count;
    }

    private static StateHandle readHandle(final DataInputStream in, final String file, final int version)
        throws IOException
    {
        if (!readFlag(in, file, "handle presence"))
        {
            return null;
        }
        return readFile(in, file, version);
    }

    private static StateHandle readFile(final DataInputStream in, final String file, final int version)
        throws IOException
    {
        final String name = readString(in, file);
        final long length = in.readLong();
        final int crc = in.readInt();
        final boolean shared = version >= 3 && readFlag(in, file, "shared");
        return new StateHandle(name, length, crc, shared);
    }

    private static boolean readFlag(final DataInputStream in, final String file, final String what) throws IOException
    {
        final byte flag = in.readByte();
        if (flag != 0 && flag != 1)
        {
            throw new CorruptCheckpointException(file, what + " flag " + flag + " is neither 0 nor 1");
        }
        return flag == 1;
    }

    /**
     * Checks a state file's bytes against its handle.
     *
     * @param bytes  what was read.
     * @param handle what the metadata says.
     * @param file   the file, for the message.
     * @return {@code bytes}.
     * @throws CorruptCheckpointException when length or checksum differ.
     */
    public static byte[] verifyState(final byte[] bytes, final StateHandle handle, final String file)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length);
        final String problem = mismatch(bytes.length, crc, handle);
        if (problem != null)
        {
            throw new CorruptCheckpointException(file, problem);
        }
        return bytes;
    }

    /**
     * Streams a state file through CRC32C, from its start, to check it against its handle without holding it.
     *
     * @param channel the open file; its position is not used.
     * @param handle  the handle from its metadata.
     * @return what is wrong with it, or null when its length and CRC32C match the handle.
     * @throws IOException when it cannot be read.
     */
    static String problemOf(final FileChannel channel, final StateHandle handle) throws IOException
    {
        final CRC32C crc = new CRC32C();
        final ByteBuffer chunk = ByteBuffer.allocateDirect(STREAM_CHUNK);
        long length = 0;
        for (int read = channel.read(chunk, 0); read >= 0; read = channel.read(chunk, length))
        {
            length += read;
            chunk.flip();
            crc.update(chunk);
            chunk.clear();
        }
        return mismatch(length, crc, handle);
    }

    /** @return how a file of {@code length} bytes and checksum {@code crc} differs from its handle, or null. */
    private static String mismatch(final long length, final CRC32C crc, final StateHandle handle)
    {
        final String lengthProblem = lengthProblemOf(length, handle);
        if (lengthProblem != null)
        {
            return lengthProblem;
        }
        if ((int)crc.getValue() != handle.crc32c())
        {
            return "checksum mismatch (CRC32C " + Integer.toHexString((int)crc.getValue()) + ", the metadata says " +
                Integer.toHexString(handle.crc32c()) + ")";
        }
        return null;
    }

    /** @return how a file of {@code length} bytes differs in length from its handle, or null. */
    static String lengthProblemOf(final long length, final StateHandle handle)
    {
        return length == handle.length() ? null : (length < handle.length() ? "truncated: " : "torn: ") + length +
            " bytes, the checkpoint's metadata says " + handle.length();
    }

    /** What {@link #problemOf} reads at a time. */
    private static final int STREAM_CHUNK = 1 << 20;
}
