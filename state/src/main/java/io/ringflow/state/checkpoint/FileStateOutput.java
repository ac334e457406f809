package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A state file of {@link DirectoryCheckpointStorage}: written to a temporary file through a 64 KiB buffer, then, at
 * {@link #closeAndGetHandle()}, forced to disk and moved atomically to its name ({@link #moveIntoPlace}); abandoned,
 * it is closed and deleted.
 *
 * <p>The buffer is the writing thread's spare, taken when the file is opened and given back when it is finished or
 * abandoned (a second file open at once on the same thread gets a buffer of its own): a flusher writes every
 * checkpoint's files through one buffer instead of allocating 64 KiB per file.
 *
 * <p>Thread contract: one thread opens, writes and finishes or abandons it (a flusher).
 */
class FileStateOutput extends StateOutput
{
    private static final int BUFFER_BYTES = 64 * 1024;
    /** Per thread, the buffer of the last file finished on it, for the next one. */
    private static final ThreadLocal<ByteBuffer> SPARE = new ThreadLocal<>();

    private final FileChannel channel;
    private final Path temp;
    private final Path target;
    /** Writes collect here until it is full; null once finished or abandoned. */
    private ByteBuffer buffer;

    /**
     * Opens the temporary file, which must not exist.
     *
     * @param name   the file's name, as {@link StateOutput} records it.
     * @param shared whether it belongs to the shared area.
     * @param temp   where it is written.
     * @param target where it is moved once complete.
     * @throws IOException when the temporary file cannot be created.
     */
    FileStateOutput(final String name, final boolean shared, final Path temp, final Path target) throws IOException
    {
        super(name, shared);
        this.temp = temp;
        this.target = target;
        this.channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        final ByteBuffer spare = SPARE.get();
        SPARE.set(null);
        this.buffer = spare != null ? spare : ByteBuffer.allocate(BUFFER_BYTES);
    }

    @Override
    protected final void writeBytes(final byte[] bytes, final int offset, final int count) throws IOException
    {
        if (count > buffer.remaining())
        {
            drain();
            if (count >= buffer.capacity())
            {
                // a whole buffer's worth or more: straight to the file, as BufferedOutputStream does
                writeFully(ByteBuffer.wrap(bytes, offset, count));
                return;
            }
        }
        buffer.put(bytes, offset, count);
    }

    private void drain() throws IOException
    {
        buffer.flip();
        writeFully(buffer);
        buffer.clear();
    }

    private void writeFully(final ByteBuffer bytes) throws IOException
    {
        while (bytes.hasRemaining())
        {
            channel.write(bytes);
        }
    }

    @Override
    protected final void finish() throws IOException
    {
        try (channel)
        {
            drain();
            channel.force(true);
        }
        finally
        {
            giveBackBuffer();
        }
        moveIntoPlace(temp, target);
    }

    /**
     * Moves the complete, forced file to its name. Overridden to add what the caller's area needs.
     *
     * @param from the temporary file.
     * @param to   its name.
     * @throws IOException when it cannot be moved.
     */
    protected void moveIntoPlace(final Path from, final Path to) throws IOException
    {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    protected final void discard()
    {
        giveBackBuffer();
        try
        {
            channel.close();
            Files.deleteIfExists(temp);
        }
        catch (final IOException ignored)
        {
            // an abandoned temporary file: the checkpoint's folder is discarded as a whole, the shared area's next
            // collection removes it
        }
        discarded();
    }

    /** Called once the file was abandoned and deleted; what the caller's area must forget. */
    protected void discarded()
    {
    }

    private void giveBackBuffer()
    {
        if (buffer != null)
        {
            buffer.clear();
            if (SPARE.get() == null)
            {
                SPARE.set(buffer);
            }
            buffer = null;
        }
    }
}
