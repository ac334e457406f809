package io.ringflow.state.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The binary format of {@code _metadata}, written and read with explicit code (never Java serialization: reading a
 * checkpoint cannot run code).
 *
 * <pre>
 *   magic "RFCK" (4) | format version (int) | body length (int) | body ... | CRC32C of everything before (int)
 *   body: checkpoint id (long) | trigger ms (long) | source count (int)
 *         per source, sorted by uid: uid length (int) | uid UTF-8 | subtasks (int) | position (long) per subtask
 * </pre>
 *
 * All integers big-endian. A reader checks magic, version, lengths and checksum before trusting a single field.
 */
public final class MetadataFormat
{
    /** The four bytes every metadata file starts with. */
    public static final int MAGIC = 0x5246434B;
    /** The version this code writes and reads. */
    public static final int VERSION = 1;
    private static final int MAX_UID_BYTES = 64 * 1024;
    private static final int MAX_SUBTASKS = 1 << 15;

    private MetadataFormat()
    {
    }

    /**
     * @param metadata what to encode.
     * @return the file's bytes.
     */
    public static byte[] encode(final CheckpointMetadata metadata)
    {
        try
        {
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(body);
            out.writeLong(metadata.checkpointId());
            out.writeLong(metadata.triggerMillis());
            final Map<String, List<Long>> sorted = new TreeMap<>(metadata.sourcePositions());
            out.writeInt(sorted.size());
            for (final Map.Entry<String, List<Long>> source : sorted.entrySet())
            {
                final byte[] uid = source.getKey().getBytes(StandardCharsets.UTF_8);
                out.writeInt(uid.length);
                out.write(uid);
                out.writeInt(source.getValue().size());
                for (final long position : source.getValue())
                {
                    out.writeLong(position);
                }
            }
            out.flush();
            final byte[] bodyBytes = body.toByteArray();
            final ByteBuffer file = ByteBuffer.allocate(12 + bodyBytes.length + 4);
            file.putInt(MAGIC).putInt(VERSION).putInt(bodyBytes.length).put(bodyBytes);
            final CRC32C crc = new CRC32C();
            crc.update(file.array(), 0, file.position());
            file.putInt((int)crc.getValue());
            return file.array();
        }
        catch (final IOException impossible)
        {
            throw new IllegalStateException("writing to memory failed", impossible);
        }
    }

    /**
     * @param bytes a file's bytes.
     * @param name  the file, for error messages.
     * @return the decoded metadata.
     * @throws CorruptCheckpointException when the bytes are not a complete, intact metadata file of this version.
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
        if (version != VERSION)
        {
            throw new CorruptCheckpointException(name, "format version " + version + ", this build reads " + VERSION);
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
            final int sources = in.readInt();
            if (sources < 0)
            {
                throw new CorruptCheckpointException(name, "negative source count " + sources);
            }
            final Map<String, List<Long>> positions = new LinkedHashMap<>();
            for (int s = 0; s < sources; s++)
            {
                final int uidLength = in.readInt();
                if (uidLength < 0 || uidLength > MAX_UID_BYTES)
                {
                    throw new CorruptCheckpointException(name, "uid length " + uidLength + " out of range");
                }
                final byte[] uid = in.readNBytes(uidLength);
                final int subtasks = in.readInt();
                if (subtasks < 0 || subtasks > MAX_SUBTASKS)
                {
                    throw new CorruptCheckpointException(name, "subtask count " + subtasks + " out of range");
                }
                final List<Long> list = new ArrayList<>(subtasks);
                for (int i = 0; i < subtasks; i++)
                {
                    list.add(in.readLong());
                }
                positions.put(new String(uid, StandardCharsets.UTF_8), list);
            }
            if (in.available() != 0)
            {
                throw new CorruptCheckpointException(name, in.available() + " unexpected bytes after the body");
            }
            return new CheckpointMetadata(id, trigger, positions);
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
}
