package io.ringflow.state.checkpoint;

import java.util.Objects;

/**
 * Points at one state file of a checkpoint (keyed state, a keyed increment, operator state or channel state of one
 * operator subtask), with what a reader needs to trust it: its exact length and CRC32C.
 *
 * <p>A private handle ({@code shared == false}) names a file in the checkpoint's own folder, so a checkpoint folder
 * can be moved or copied as a whole. A shared handle names a file in the storage's shared area (a directory storage's
 * {@code shared/} folder), written once for one checkpoint and referenced by later ones (the files of a keyed chain);
 * the storage deletes it once no stored checkpoint references it (see {@link CheckpointStorage#store}).
 *
 * @param name   the file's plain name (no separator, not starting with a dot), e.g. {@code counter-3f2a-0.keyed}:
 *               inside the checkpoint's folder, or inside the shared area when {@code shared}.
 * @param length its length in bytes.
 * @param crc32c the CRC32C of its bytes.
 * @param shared whether the file lives in the storage's shared area rather than in the checkpoint's folder.
 */
public record StateHandle(String name, long length, int crc32c, boolean shared)
{
    /**
     * @param name   the file's plain name.
     * @param length its length in bytes, not negative.
     * @param crc32c the CRC32C of its bytes.
     * @param shared whether it lives in the shared area.
     */
    public StateHandle
    {
        requirePlainName(name);
        if (length < 0)
        {
            throw new IllegalArgumentException("length must not be negative, was " + length);
        }
    }

    /**
     * A private handle: the file lives in the checkpoint's own folder.
     *
     * @param name   the file's plain name.
     * @param length its length in bytes, not negative.
     * @param crc32c the CRC32C of its bytes.
     */
    public StateHandle(final String name, final long length, final int crc32c)
    {
        this(name, length, crc32c, false);
    }

    /**
     * A shared handle: the file lives in the storage's shared area.
     *
     * @param name   the file's plain name, unique in the shared area.
     * @param length its length in bytes, not negative.
     * @param crc32c the CRC32C of its bytes.
     * @return the handle.
     */
    public static StateHandle shared(final String name, final long length, final int crc32c)
    {
        return new StateHandle(name, length, crc32c, true);
    }

    /**
     * Checks that a state file name is a plain file name: not empty, no path separator, not starting with a dot (so
     * it can never escape its folder nor be a hidden or special file).
     *
     * @param name the name.
     * @return {@code name}.
     * @throws IllegalArgumentException when it is not.
     */
    static String requirePlainName(final String name)
    {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.startsWith("."))
        {
            throw new IllegalArgumentException("state file name must be a plain file name, was '" + name + "'");
        }
        return name;
    }
}
