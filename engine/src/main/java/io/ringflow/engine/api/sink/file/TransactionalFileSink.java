package io.ringflow.engine.api.sink.file;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.CommittableDataException;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * An exactly-once file sink: the seeds' two-phase-commit target. Each subtask writes <em>part files</em> into one
 * output directory:
 * <ol>
 *   <li>records go into a hidden in-progress file, {@code .part-<attempt>-<subtask>-<n>.inprogress};</li>
 *   <li>a part is rolled when it reaches the size limit, when it is older than the age limit (checked every 64
 *   records), and at every checkpoint barrier: flushed, fsync'ed and renamed to {@code .pending} (pre-commit);</li>
 *   <li>when its checkpoint completes it is renamed, atomically, to
 *   {@code part-<checkpoint>-<subtask>-<index>-<attempt><suffix>} (commit), and the directory is fsync'ed.</li>
 * </ol>
 * Committed names sort in commit order (checkpoint, then subtask, then roll order), so reading the committed parts
 * by name gives every key's records in the order the job emitted them; {@link CommittedOutput} does that. Hidden
 * files are never committed output. A commit is idempotent (an already committed part is recognised by name and
 * length); a part written by an earlier attempt (restored from a checkpoint) is checked against its CRC32C before it
 * is committed, and a missing or corrupt one fails the commit with a {@link CommittableDataException} rather than be
 * committed. Leftovers of failed attempts (in-progress parts, pending parts no completed checkpoint holds) are deleted
 * once the restarted job's first checkpoint completes.
 *
 * <p>The directory is locked while a job writes it (a lock file, held by the job's writers): a second job writing
 * the same directory, in this JVM or another, is refused when it starts.
 *
 * @param <T> the record type.
 */
public final class TransactionalFileSink<T> implements TwoPhaseCommitSink<T, FileCommittable>
{
    /** Where part file names start. */
    public static final String PART_PREFIX = "part-";
    static final String HIDDEN_PREFIX = "." + PART_PREFIX;
    static final String IN_PROGRESS = ".inprogress";
    static final String PENDING = ".pending";
    static final int AGE_CHECK_EVERY = 64;
    /** Bytes a part buffers before a write: fewer, larger writes. */
    static final int WRITE_BUFFER_BYTES = 256 << 10;

    private final Path directory;
    private final RecordEncoder<T> encoder;
    private final long maxPartBytes;
    private final long maxPartAgeNanos;
    private final String suffix;
    private final OutputDirectoryLock lock;

    private TransactionalFileSink(final Builder<T> b)
    {
        this.directory = b.directory;
        this.encoder = b.encoder;
        this.maxPartBytes = b.maxPartBytes;
        this.maxPartAgeNanos = b.maxPartAge.toNanos();
        this.suffix = b.suffix;
        this.lock = new OutputDirectoryLock(directory);
    }

    /**
     * @param directory the output directory; created when missing.
     * @param encoder   writes one record into a part file; shared by the subtasks (see {@link RecordEncoder}).
     * @param <T>       the record type.
     * @return a builder; {@link Builder#build} checks the directory.
     */
    public static <T> Builder<T> forRecords(final Path directory, final RecordEncoder<T> encoder)
    {
        return new Builder<>(directory, encoder);
    }

    /** @return the output directory, absolute. */
    public Path directory()
    {
        return directory;
    }

    @Override
    public TransactionalWriter<T, FileCommittable> createWriter(final SubtaskInfo subtask) throws IOException
    {
        return new PartWriter<>(this, subtask);
    }

    @Override
    public Committer<FileCommittable> createCommitter(final SubtaskInfo subtask)
    {
        return new PartCommitter(directory, subtask.attemptId());
    }

    @Override
    public Class<FileCommittable> committableType()
    {
        return FileCommittable.class;
    }

    @Override
    public String toString()
    {
        return "TransactionalFileSink[" + directory + "]";
    }

    /**
     * Options of a {@link TransactionalFileSink}.
     *
     * @param <T> the record type.
     */
    public static final class Builder<T>
    {
        private final Path directory;
        private final RecordEncoder<T> encoder;
        private long maxPartBytes = 128L << 20;
        private Duration maxPartAge = Duration.ofMinutes(1);
        private String suffix = "";

        private Builder(final Path directory, final RecordEncoder<T> encoder)
        {
            this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
            this.encoder = Objects.requireNonNull(encoder, "encoder");
        }

        /**
         * @param value a part is rolled once it holds this many bytes or more (default 128 MiB); at least 1.
         * @return this
         */
        public Builder<T> maxPartBytes(final long value)
        {
            if (value < 1)
            {
                throw new InvalidJobException("maxPartBytes must be at least 1, was " + value);
            }
            maxPartBytes = value;
            return this;
        }

        /**
         * @param value a part is rolled when it is older than this (default 1 minute), checked every 64 records as
         *              they arrive; checkpoints roll parts anyway. Positive.
         * @return this
         */
        public Builder<T> maxPartAge(final Duration value)
        {
            if (value == null || value.isNegative() || value.isZero())
            {
                throw new InvalidJobException("maxPartAge must be positive, was " + value);
            }
            maxPartAge = value;
            return this;
        }

        /**
         * @param value appended to committed part names, such as {@code ".txt"} (default none).
         * @return this
         */
        public Builder<T> suffix(final String value)
        {
            if (value == null || value.contains("/") || value.contains(java.io.File.separator))
            {
                throw new InvalidJobException("suffix must be a plain file-name suffix, was " + value);
            }
            suffix = value;
            return this;
        }

        /**
         * Creates the directory when missing and checks it can be written.
         *
         * @return the sink.
         * @throws InvalidJobException naming the directory when it is a file, cannot be created or is not writable.
         */
        public TransactionalFileSink<T> build()
        {
            if (Files.exists(directory) && !Files.isDirectory(directory))
            {
                throw new InvalidJobException("output directory " + directory + " is a file, not a directory");
            }
            try
            {
                Files.createDirectories(directory);
            }
            catch (final IOException ex)
            {
                throw new InvalidJobException("output directory " + directory + " cannot be created: " + ex, ex);
            }
            if (!Files.isWritable(directory))
            {
                throw new InvalidJobException("output directory " + directory + " is not writable");
            }
            return new TransactionalFileSink<>(this);
        }
    }

    /** One subtask's writer: at most one in-progress part open, and the parts rolled since the last pre-commit. */
    private static final class PartWriter<T> implements TransactionalWriter<T, FileCommittable>
    {
        private final TransactionalFileSink<T> sink;
        private final String subtask;
        private final String attemptId;
        private final OutputDirectoryLock.Hold hold;
        /** Parts rolled since the last pre-commit, in roll order. */
        private final List<RolledPart> rolled = new ArrayList<>();
        private PartOutput part;
        private long partCounter;
        /** The codec of a length-prefixed encoder, written straight into the part buffer; else null. */
        private final io.ringflow.state.codec.Codec<T> direct;
        /**
         * Shared by this writer's parts, one open at a time. Direct, so a write reaches the file without the JDK's
         * copy of a heap buffer into a native one.
         */
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(WRITE_BUFFER_BYTES);
        /** A codec window over the free part of {@link #buffer}. */
        private final io.ringflow.state.codec.CodecBuffer window =
            io.ringflow.state.codec.CodecBuffer.wrap(buffer, 0, WRITE_BUFFER_BYTES);
        /** Records until the part's age is checked again: a clock read every {@value #AGE_CHECK_EVERY} records. */
        private int untilAgeCheck = AGE_CHECK_EVERY;

        PartWriter(final TransactionalFileSink<T> sink, final SubtaskInfo info) throws IOException
        {
            this.sink = sink;
            this.subtask = String.format("%05d", info.subtaskIndex());
            this.attemptId = info.attemptId();
            this.hold = sink.lock.acquire(sink, info.jobName());
            this.direct = sink.encoder instanceof LengthPrefixedEncoder<T> prefixed ? prefixed.codec() : null;
        }

        @Override
        public void write(final T record) throws IOException
        {
            if (part == null)
            {
                part = new PartOutput(sink.directory, HIDDEN_PREFIX + attemptId + "-" + subtask + "-" +
                    partCounter++, buffer, window);
            }
            if (direct == null || !part.writeLengthPrefixed(direct, record))
            {
                sink.encoder.encode(record, part);
            }
            if (part.length() >= sink.maxPartBytes ||
                --untilAgeCheck <= 0 && (untilAgeCheck = AGE_CHECK_EVERY) > 0 &&
                System.nanoTime() - part.openedNanos >= sink.maxPartAgeNanos)
            {
                roll();
            }
        }

        /** Flushes, fsyncs and closes the open part, renaming it to pending. */
        private void roll() throws IOException
        {
            final PartOutput closing = part;
            part = null;
            rolled.add(new RolledPart(closing.closeAsPending(), closing.length(), closing.crc()));
        }

        @Override
        public List<FileCommittable> preCommit(final long checkpointId) throws IOException
        {
            if (part != null)
            {
                roll();
            }
            final List<FileCommittable> committables = new ArrayList<>(rolled.size());
            for (int i = 0; i < rolled.size(); i++)
            {
                final RolledPart closed = rolled.get(i);
                // the attempt's id makes the name unique even where checkpoint ids repeat (a new run with in-memory
                // checkpoints writing into the same directory)
                committables.add(new FileCommittable(closed.pendingFile(), String.format("%s%012d-%s-%04d-%s%s",
                    PART_PREFIX, checkpointId, subtask, i, attemptId, sink.suffix), closed.length(), closed.crc32c()));
            }
            rolled.clear();
            return committables;
        }

        @Override
        public void close() throws IOException
        {
            try
            {
                if (part != null)
                {
                    // an abandoned transaction: never committed, deleted now rather than left for the clean-up
                    part.abandon();
                    part = null;
                }
            }
            finally
            {
                hold.release();
            }
        }
    }

    /** A part closed as pending: its name, length and CRC32C, until the pre-commit names it. */
    private record RolledPart(String pendingFile, long length, int crc32c)
    {
    }

    /** A part file being written: buffered, with a running CRC32C of what reached the file. */
    private static final class PartOutput extends OutputStream
    {
        private final Path directory;
        private final String name;
        private final FileChannel channel;
        /** The writer's buffer, empty when the part opens. */
        private final ByteBuffer buffer;
        private final CRC32C crc = new CRC32C();
        /** A codec window over the free part of {@link #buffer}, moved for each record. */
        private final io.ringflow.state.codec.CodecBuffer window;
        final long openedNanos = System.nanoTime();
        private long length;

        PartOutput(final Path directory, final String name, final ByteBuffer buffer,
            final io.ringflow.state.codec.CodecBuffer window) throws IOException
        {
            this.buffer = buffer.clear();
            this.window = window;
            this.directory = directory;
            this.name = name;
            this.channel = FileChannel.open(directory.resolve(name + IN_PROGRESS), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        }

        /**
         * Encodes a record with a 4-byte length in front straight into the buffer, draining it first when the record
         * does not fit in what is left.
         *
         * @return false when the record does not fit even in an empty buffer: the caller takes the general path.
         */
        <T> boolean writeLengthPrefixed(final io.ringflow.state.codec.Codec<T> codec, final T record)
            throws IOException
        {
            for (int attempt = 0; attempt < 2; attempt++)
            {
                final int at = buffer.position();
                if (buffer.remaining() > 4)
                {
                    window.rewrap(buffer, at + 4, buffer.remaining() - 4);
                    final int encoded = codec.encode(record, window, 0);
                    if (!window.overflowed())
                    {
                        buffer.putInt(at, encoded);
                        buffer.position(at + 4 + encoded);
                        length += 4 + encoded;
                        return true;
                    }
                    window.clearOverflow();
                }
                if (at == 0)
                {
                    return false;
                }
                drain();
            }
            return false;
        }

        @Override
        public void write(final int b) throws IOException
        {
            if (!buffer.hasRemaining())
            {
                drain();
            }
            buffer.put((byte)b);
            length++;
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int count) throws IOException
        {
            int done = 0;
            while (done < count)
            {
                if (!buffer.hasRemaining())
                {
                    drain();
                }
                final int n = Math.min(buffer.remaining(), count - done);
                buffer.put(bytes, offset + done, n);
                done += n;
            }
            length += count;
        }

        private void drain() throws IOException
        {
            buffer.flip();
            crc.update(buffer);
            buffer.rewind();
            while (buffer.hasRemaining())
            {
                channel.write(buffer);
            }
            buffer.clear();
        }

        long length()
        {
            return length;
        }

        int crc()
        {
            return (int)crc.getValue();
        }

        /** @return the pending file's name, after flush, fsync and an atomic rename. */
        String closeAsPending() throws IOException
        {
            drain();
            channel.force(true);
            channel.close();
            final String pending = name + PENDING;
            move(directory.resolve(name + IN_PROGRESS), directory.resolve(pending));
            return pending;
        }

        void abandon() throws IOException
        {
            channel.close();
            Files.deleteIfExists(directory.resolve(name + IN_PROGRESS));
        }
    }

    /** Commits by renaming pending parts; idempotent; verifies parts of earlier attempts by CRC32C. */
    private static final class PartCommitter implements Committer<FileCommittable>
    {
        private final Path directory;
        /** Pending parts named with this prefix were written by this attempt, in this JVM: checked by length only. */
        private final String ownPrefix;

        PartCommitter(final Path directory, final String attemptId)
        {
            this.directory = directory;
            this.ownPrefix = HIDDEN_PREFIX + attemptId + "-";
        }

        @Override
        public void commit(final FileCommittable committable, final long checkpointId) throws IOException
        {
            final Path pending = directory.resolve(committable.pendingFile());
            final Path committed = directory.resolve(committable.committedFile());
            if (Files.exists(committed))
            {
                // committed before (a repeated notification, or again after a restore): the same part, or corrupt
                final long length = Files.size(committed);
                if (length != committable.length())
                {
                    throw new CommittableDataException("checkpoint " + checkpointId + ": committed part " + committed +
                        " has " + length + " bytes, its committable says " + committable.length());
                }
                Files.deleteIfExists(pending);
                return;
            }
            if (!Files.exists(pending))
            {
                throw new CommittableDataException("checkpoint " + checkpointId + ": pending part " + pending +
                    " is missing and was never committed as " + committed.getFileName() + "; its records are lost " +
                    "unless the file is put back");
            }
            verify(pending, committable, checkpointId, !committable.pendingFile().startsWith(ownPrefix));
            move(pending, committed);
            syncDirectory(directory);
        }

        /**
         * Checks a pending part against its committable: its length always; its CRC32C too when it was written by an
         * earlier attempt (a crash may have damaged it; this attempt's own parts were fsync'ed moments ago).
         */
        private static void verify(final Path pending, final FileCommittable committable, final long checkpointId,
            final boolean checksum) throws IOException
        {
            final long length = Files.size(pending);
            if (length != committable.length())
            {
                throw new CommittableDataException("checkpoint " + checkpointId + ": pending part " + pending + " has " +
                    length + " bytes, " + committable.length() + " were pre-committed");
            }
            if (!checksum)
            {
                return;
            }
            final CRC32C crc = new CRC32C();
            final byte[] chunk = new byte[64 << 10];
            try (InputStream in = Files.newInputStream(pending))
            {
                int n;
                while ((n = in.read(chunk)) > 0)
                {
                    crc.update(chunk, 0, n);
                }
            }
            if ((int)crc.getValue() != committable.crc32c())
            {
                throw new CommittableDataException("checkpoint " + checkpointId + ": pending part " + pending +
                    " fails its checksum (CRC32C " + Integer.toHexString((int)crc.getValue()) + ", pre-committed " +
                    Integer.toHexString(committable.crc32c()) + "): not committed");
            }
        }

        @Override
        public void abortLeftovers(final String currentAttemptId) throws IOException
        {
            final String current = HIDDEN_PREFIX + currentAttemptId + "-";
            try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, HIDDEN_PREFIX + "*"))
            {
                for (final Path file : files)
                {
                    final String name = file.getFileName().toString();
                    if (!name.startsWith(current) && (name.endsWith(IN_PROGRESS) || name.endsWith(PENDING)))
                    {
                        try
                        {
                            Files.delete(file);
                        }
                        catch (final NoSuchFileException alreadyGone)
                        {
                            // deleted by someone else meanwhile: what was wanted
                        }
                    }
                }
            }
        }
    }

    static void move(final Path from, final Path to) throws IOException
    {
        try
        {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            throw new IOException("the file system of " + from.getParent() + " cannot rename atomically, which the " +
                "transactional file sink needs", ex);
        }
    }

    /** Makes renames in {@code directory} durable; file systems that cannot open a directory skip it. */
    static void syncDirectory(final Path directory) throws IOException
    {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (final IOException ex)
        {
            if (!System.getProperty("os.name", "").startsWith("Windows"))
            {
                throw ex;
            }
        }
    }
}
