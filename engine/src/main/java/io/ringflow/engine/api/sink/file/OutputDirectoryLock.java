package io.ringflow.engine.api.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Keeps one job at a time writing an output directory: the first writer of a sink takes an OS lock on
 * {@value #LOCK_FILE} (refused when another process holds it) and registers the sink in this JVM (refused when
 * another sink, i.e. another job, holds the directory); the sink's last writer to close releases both.
 *
 * <p>Thread contract: any thread; a static monitor guards the registry (taken when a writer opens or closes).
 */
final class OutputDirectoryLock
{
    static final String LOCK_FILE = ".ringflow-sink.lock";
    private static final Map<Path, Owner> OWNERS = new HashMap<>();

    private final Path directory;

    OutputDirectoryLock(final Path directory)
    {
        this.directory = directory;
    }

    /** One writer's share of the lock; released once. */
    interface Hold
    {
        void release() throws IOException;
    }

    Hold acquire(final Object sink, final String jobName) throws IOException
    {
        final Path key = directory.toRealPath();
        synchronized (OWNERS)
        {
            Owner owner = OWNERS.get(key);
            if (owner != null && owner.sink != sink)
            {
                throw new IOException("output directory " + directory + " is in use by another job in this JVM ('" +
                    owner.jobName + "'): two jobs must not write the same directory");
            }
            if (owner == null)
            {
                owner = Owner.lock(key, sink, jobName);
                OWNERS.put(key, owner);
            }
            owner.holds++;
            final Owner held = owner;
            return new Hold()
            {
                private boolean released;

                @Override
                public void release() throws IOException
                {
                    synchronized (OWNERS)
                    {
                        if (released)
                        {
                            return;
                        }
                        released = true;
                        if (--held.holds == 0)
                        {
                            OWNERS.remove(key);
                            held.unlock();
                        }
                    }
                }
            };
        }
    }

    private static final class Owner
    {
        final Object sink;
        final String jobName;
        final FileChannel channel;
        final FileLock lock;
        int holds;

        private Owner(final Object sink, final String jobName, final FileChannel channel, final FileLock lock)
        {
            this.sink = sink;
            this.jobName = jobName;
            this.channel = channel;
            this.lock = lock;
        }

        static Owner lock(final Path directory, final Object sink, final String jobName) throws IOException
        {
            final Path file = directory.resolve(LOCK_FILE);
            final FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
            final FileLock lock;
            try
            {
                lock = channel.tryLock();
            }
            catch (final IOException | RuntimeException ex)
            {
                channel.close();
                throw ex;
            }
            if (lock == null)
            {
                final String holder = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
                channel.close();
                throw new IOException("output directory " + directory + " is in use by another process (" +
                    (holder.isEmpty() ? "no owner recorded" : holder) + "): two jobs must not write the same directory");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("job '" + jobName + "', pid " + ProcessHandle.current().pid())
                .getBytes(StandardCharsets.UTF_8)), 0);
            return new Owner(sink, jobName, channel, lock);
        }

        void unlock() throws IOException
        {
            try
            {
                lock.release();
            }
            finally
            {
                channel.close();
            }
        }
    }
}
