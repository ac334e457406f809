package io.ringflow.engine.api.sink.file;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads what a {@link TransactionalFileSink} committed: only committed parts (never hidden in-progress or pending
 * ones), in commit order (checkpoint, subtask, roll order), so each key's records come back in the order the job
 * emitted them. Safe to call while the job runs: a part appears whole, by an atomic rename.
 */
public final class CommittedOutput
{
    private CommittedOutput()
    {
    }

    /**
     * @param directory the sink's output directory.
     * @return its committed part files, in commit order.
     * @throws IOException when the directory cannot be listed.
     */
    public static List<Path> parts(final Path directory) throws IOException
    {
        final List<Path> parts = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, TransactionalFileSink.PART_PREFIX + "*"))
        {
            files.forEach(parts::add);
        }
        parts.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return parts;
    }

    /**
     * @param directory the output directory of a sink written with {@link RecordEncoder#textLines()}.
     * @return every committed line, in commit order.
     * @throws IOException when a part cannot be read.
     */
    public static List<String> readLines(final Path directory) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        forEachLine(directory, lines::add);
        return lines;
    }

    /**
     * @param directory the output directory of a sink written with {@link RecordEncoder#textLines()}.
     * @param action    given every committed line, in commit order.
     * @throws IOException when a part cannot be read.
     */
    public static void forEachLine(final Path directory, final Consumer<String> action) throws IOException
    {
        for (final Path part : parts(directory))
        {
            try (BufferedReader reader = Files.newBufferedReader(part, StandardCharsets.UTF_8))
            {
                String line;
                while ((line = reader.readLine()) != null)
                {
                    action.accept(line);
                }
            }
        }
    }

    /**
     * @param directory the output directory of a sink written with {@link RecordEncoder#lengthPrefixed(Class)}.
     * @param type      the record type.
     * @param <T>       the record type.
     * @return every committed record, in commit order.
     * @throws IOException when a part cannot be read, or ends inside a record.
     */
    public static <T> List<T> readRecords(final Path directory, final Class<T> type) throws IOException
    {
        final List<T> records = new ArrayList<>();
        forEachRecord(directory, CodecRegistry.withBuiltIns().codecFor(type), records::add);
        return records;
    }

    /**
     * @param directory the output directory of a sink written with {@link RecordEncoder#lengthPrefixed(Codec)}.
     * @param codec     decodes one record.
     * @param action    given every committed record, in commit order.
     * @param <T>       the record type.
     * @throws IOException when a part cannot be read, or ends inside a record.
     */
    public static <T> void forEachRecord(final Path directory, final Codec<T> codec, final Consumer<T> action)
        throws IOException
    {
        for (final Path part : parts(directory))
        {
            forEachRecordOf(part, codec, action);
        }
    }

    /**
     * @param part   one committed part written with {@link RecordEncoder#lengthPrefixed(Codec)} (for a reader that
     *               follows the output as parts appear).
     * @param codec  decodes one record.
     * @param action given every record of the part, in order.
     * @param <T>    the record type.
     * @throws IOException when the part cannot be read, or ends inside a record.
     */
    public static <T> void forEachRecordOf(final Path part, final Codec<T> codec, final Consumer<T> action)
        throws IOException
    {
        byte[] bytes = new byte[256];
        try (InputStream file = Files.newInputStream(part);
            DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(file, 64 << 10)))
        {
            while (true)
            {
                final int length;
                try
                {
                    length = in.readInt();
                }
                catch (final EOFException end)
                {
                    break;
                }
                if (length < 0)
                {
                    throw new IOException(part + ": record length " + length + " out of range");
                }
                if (length > bytes.length)
                {
                    bytes = new byte[Math.max(length, bytes.length * 2)];
                }
                try
                {
                    in.readFully(bytes, 0, length);
                }
                catch (final EOFException truncated)
                {
                    throw new IOException(part + " ends inside a record of " + length + " bytes", truncated);
                }
                action.accept(codec.decode(CodecBuffer.wrap(bytes, 0, length), 0, length));
            }
        }
    }
}
