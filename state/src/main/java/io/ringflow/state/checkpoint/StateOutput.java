package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/**
 * Where one state file of a checkpoint is written, by the asynchronous part of a snapshot. Counts and checksums what
 * passes through it; {@link #closeAndGetHandle()} makes the bytes durable (for durable storage) and returns the
 * handle the checkpoint's metadata will point to.
 *
 * <p>Thread contract: used by one thread at a time: usually a snapshot flusher; a task thread for a small snapshot
 * to in-memory storage, which it writes itself.
 */
public abstract class StateOutput extends OutputStream
{
    private final String name;
    private final boolean shared;
    private final CRC32C crc = new CRC32C();
    private long length;
    private boolean closed;

    /**
     * A file in the checkpoint's own folder.
     *
     * @param name the file's name inside the checkpoint.
     */
    protected StateOutput(final String name)
    {
        this(name, false);
    }

    /**
     * @param name   the file's name inside the checkpoint's folder, or inside the shared area when {@code shared}.
     * @param shared whether the file is in the storage's shared area; its handle is then a shared one.
     */
    protected StateOutput(final String name, final boolean shared)
    {
        this.name = name;
        this.shared = shared;
    }

    /** @return the file's name inside the checkpoint's folder, or inside the shared area when {@link #shared()}. */
    public final String name()
    {
        return name;
    }

    /** @return whether the file is in the storage's shared area (its handle will be {@link StateHandle#shared()}). */
    public final boolean shared()
    {
        return shared;
    }

    @Override
    public final void write(final int b) throws IOException
    {
        ensureOpen();
        crc.update(b);
        length++;
        writeBytes(new byte[] {(byte)b}, 0, 1);
    }

    @Override
    public final void write(final byte[] bytes, final int offset, final int count) throws IOException
    {
        ensureOpen();
        crc.update(bytes, offset, count);
        length += count;
        writeBytes(bytes, offset, count);
    }

    /**
     * Finishes the file: flushes it, makes it durable where the storage is durable, and closes it.
     *
     * @return the handle of the complete file, shared when this output writes to the shared area.
     * @throws IOException when it cannot be made durable; the checkpoint must then not complete.
     */
    public final StateHandle closeAndGetHandle() throws IOException
    {
        ensureOpen();
        closed = true;
        finish();
        return new StateHandle(name, length, (int)crc.getValue(), shared);
    }

    /** Abandons the file (the snapshot was aborted): closes it and deletes what was written. Idempotent. */
    @Override
    public final void close()
    {
        if (!closed)
        {
            closed = true;
            discard();
        }
    }

    private void ensureOpen() throws IOException
    {
        if (closed)
        {
            throw new IOException("state file " + name + " is already closed");
        }
    }

    /**
     * Writes bytes to the underlying file or buffer. The bytes are copied or written before it returns: the caller
     * may reuse {@code bytes} afterwards (the snapshot writer reuses its chunk for the next snapshot).
     *
     * @param bytes  the bytes.
     * @param offset where they start.
     * @param count  how many.
     * @throws IOException when they cannot be written.
     */
    protected abstract void writeBytes(byte[] bytes, int offset, int count) throws IOException;

    /**
     * Flushes, forces to durable storage where that applies, and closes.
     *
     * @throws IOException when that fails.
     */
    protected abstract void finish() throws IOException;

    /** Closes and deletes, quietly. */
    protected abstract void discard();
}
