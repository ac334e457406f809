package io.ringflow.state.checkpoint;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One in-memory checkpoint's private state files by name: a handful (an operator chain's keyed, operator and channel
 * parts per task), so two short arrays searched in turn, instead of a concurrent map whose table, nodes and iterators
 * were garbage at every checkpoint.
 *
 * <p>Thread contract: files are added by the threads writing them, as each finishes, and read by any thread; every
 * method holds this object's monitor (a few calls a checkpoint, uncontended). A dropped checkpoint's table is
 * {@link #clear cleared} and reused for a later checkpoint by {@link InMemoryCheckpointStorage}, which uses tables
 * only under its own lock.
 */
final class CheckpointFiles
{
    private String[] names = new String[4];
    private InMemoryFile[] files = new InMemoryFile[4];
    private int count;

    /**
     * @param name its name; a file already there under it is replaced, as a map would.
     * @param file the finished file.
     */
    synchronized void put(final String name, final InMemoryFile file)
    {
        Objects.requireNonNull(name, "name");
        final int at = indexOf(name);
        if (at >= 0)
        {
            files[at] = file;
            return;
        }
        if (count == names.length)
        {
            names = Arrays.copyOf(names, count * 2);
            files = Arrays.copyOf(files, count * 2);
        }
        names[count] = name;
        files[count] = file;
        count++;
    }

    /** @return the file of that name, or null. */
    synchronized InMemoryFile get(final String name)
    {
        final int at = indexOf(name);
        return at < 0 ? null : files[at];
    }

    /** @param to where every file is added. */
    synchronized void addAllTo(final List<InMemoryFile> to)
    {
        for (int i = 0; i < count; i++)
        {
            to.add(files[i]);
        }
    }

    /** Forgets every file: the table is empty, as new, for another checkpoint. */
    synchronized void clear()
    {
        Arrays.fill(names, 0, count, null);
        Arrays.fill(files, 0, count, null);
        count = 0;
    }

    /** @return how many files it holds. */
    synchronized int size()
    {
        return count;
    }

    /** @return the bytes of the arrays the files hold, used or not. */
    synchronized long heldBytes()
    {
        long held = 0;
        for (int i = 0; i < count; i++)
        {
            held += files[i].heldBytes();
        }
        return held;
    }

    private int indexOf(final String name)
    {
        for (int i = 0; i < count; i++)
        {
            if (names[i].equals(name))
            {
                return i;
            }
        }
        return -1;
    }
}
