package io.ringflow.state.checkpoint;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * A state file of a stored checkpoint, opened by {@link CheckpointStorage#openState} once its length and checksum
 * matched its handle, and read by position: a reader loads the parts it needs (one key group at a time), so a file
 * larger than the heap can be restored.
 *
 * <p>Thread contract: one thread at a time reads and closes it.
 */
public interface StateFile extends Closeable
{
    /** @return the file, for messages. */
    String name();

    /** @return its length in bytes, as its handle says. */
    long length();

    /**
     * Reads {@code length} bytes from {@code position}.
     *
     * @param position where to start, in the file.
     * @param into     where to copy them.
     * @param offset   where in {@code into}.
     * @param length   how many.
     * @throws IOException                when the file cannot be read.
     * @throws CorruptCheckpointException when it ends before {@code position + length} (it changed after it was
     *                                    checked).
     */
    void readFully(long position, byte[] into, int offset, int length) throws IOException;

    /** @return the whole file when it is held as one array (nothing needs loading), else null. */
    default byte[] bytesIfInMemory()
    {
        return null;
    }

    /** Frees what the file holds (a file descriptor). Idempotent. */
    @Override
    void close() throws IOException;

    /**
     * @param bytes a file's bytes, already checked.
     * @param name  the file, for messages.
     * @return a state file over them; closing it frees nothing.
     */
    static StateFile of(final byte[] bytes, final String name)
    {
        return new InMemory(Objects.requireNonNull(bytes, "bytes"), Objects.requireNonNull(name, "name"));
    }

    /**
     * @param channel an open file, already checked; the state file owns it from now on.
     * @param length  its length.
     * @param name    the file, for messages.
     * @return a state file reading it by position; closing it closes the channel.
     */
    static StateFile of(final FileChannel channel, final long length, final String name)
    {
        return new OnDisk(Objects.requireNonNull(channel, "channel"), length, Objects.requireNonNull(name, "name"));
    }

    /** A file held as one array. */
    record InMemory(byte[] bytes, String name) implements StateFile
    {
        @Override
        public long length()
        {
            return bytes.length;
        }

        @Override
        public void readFully(final long position, final byte[] into, final int offset, final int length)
        {
            if (position < 0 || position + length > bytes.length)
            {
                throw new CorruptCheckpointException(name, "a read of " + length + " bytes at offset " + position +
                    " runs past its end (" + bytes.length + " bytes)");
            }
            System.arraycopy(bytes, (int)position, into, offset, length);
        }

        @Override
        public byte[] bytesIfInMemory()
        {
            return bytes;
        }

        @Override
        public void close()
        {
        }
    }

    /** A file read by position from an open channel. */
    record OnDisk(FileChannel channel, long length, String name) implements StateFile
    {
        @Override
        public void readFully(final long position, final byte[] into, final int offset, final int length)
            throws IOException
        {
            final ByteBuffer target = ByteBuffer.wrap(into, offset, length);
            long at = position;
            while (target.hasRemaining())
            {
                final int read = channel.read(target, at);
                if (read < 0)
                {
                    throw new CorruptCheckpointException(name, "ends at offset " + at + ", before the " + length +
                        " bytes read at " + position + " (changed after its checksum was checked)");
                }
                at += read;
            }
        }

        @Override
        public void close() throws IOException
        {
            channel.close();
        }
    }
}
