package io.ringflow.state.checkpoint;

import java.util.Objects;

/**
 * Points at one state file of a checkpoint (keyed state, operator state or channel state of one operator subtask),
 * with what a reader needs to trust it: its exact length and CRC32C. The name is relative to the checkpoint's folder,
 * so a checkpoint folder can be moved or copied as a whole.
 *
 * @param name   the file's name inside the checkpoint, e.g. {@code counter-3f2a-0.keyed}.
 * @param length its length in bytes.
 * @param crc32c the CRC32C of its bytes.
 */
public record StateHandle(String name, long length, int crc32c)
{
    /**
     * @param name   the file's name inside the checkpoint.
     * @param length its length in bytes, not negative.
     * @param crc32c the CRC32C of its bytes.
     */
    public StateHandle
    {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.startsWith("."))
        {
            throw new IllegalArgumentException("state file name must be a plain file name, was '" + name + "'");
        }
        if (length < 0)
        {
            throw new IllegalArgumentException("length must not be negative, was " + length);
        }
    }
}
