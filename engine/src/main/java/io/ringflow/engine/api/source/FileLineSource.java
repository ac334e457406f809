package io.ringflow.engine.api.source;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;

/**
 * Reads a UTF-8 text file line by line ({@code \n} or {@code \r\n} endings, the terminators not included). Its
 * position is the byte offset after the last emitted line. Parallelism 1: a file is one split.
 */
public final class FileLineSource implements Source<String>
{
    private static final int READ_BUFFER_SIZE = 64 * 1024;

    private final Path path;

    /**
     * @param path the file; must exist and be readable when the job starts.
     */
    public FileLineSource(final Path path)
    {
        this.path = Objects.requireNonNull(path, "path");
    }

    @Override
    public Class<String> producedType()
    {
        return String.class;
    }

    @Override
    public boolean isBounded()
    {
        return true;
    }

    @Override
    public int maxParallelism()
    {
        return 1;
    }

    @Override
    public SourceReader<String> createReader(final SubtaskInfo subtask) throws IOException
    {
        if (!Files.isReadable(path))
        {
            throw new IOException("cannot read source file " + path.toAbsolutePath());
        }
        return new Reader(FileChannel.open(path, StandardOpenOption.READ));
    }

    private static final class Reader implements SourceReader<String>
    {
        private final FileChannel file;
        private final ByteBuffer buffer = ByteBuffer.allocate(READ_BUFFER_SIZE);
        private byte[] line = new byte[256];
        private int lineLength;
        private long position;
        private boolean eof;

        Reader(final FileChannel file)
        {
            this.file = file;
            buffer.flip();
        }

        @Override
        public int pollNext(final Collector<String> output, final int maxRecords) throws IOException
        {
            int emitted = 0;
            while (emitted < maxRecords)
            {
                if (!buffer.hasRemaining())
                {
                    if (eof || !fill())
                    {
                        if (lineLength > 0)
                        {
                            // last line without a terminator
                            position += lineLength;
                            output.collect(take(lineLength));
                            return emitted + 1;
                        }
                        return emitted == 0 ? END_OF_INPUT : emitted;
                    }
                }
                final byte b = buffer.get();
                if (b == '\n')
                {
                    final int consumed = lineLength + 1;
                    final int textLength = lineLength > 0 && line[lineLength - 1] == '\r' ? lineLength - 1 : lineLength;
                    position += consumed;
                    output.collect(take(textLength));
                    emitted++;
                }
                else
                {
                    if (lineLength == line.length)
                    {
                        line = Arrays.copyOf(line, line.length * 2);
                    }
                    line[lineLength++] = b;
                }
            }
            return emitted;
        }

        private String take(final int textLength)
        {
            final String text = new String(line, 0, textLength, StandardCharsets.UTF_8);
            lineLength = 0;
            return text;
        }

        private boolean fill() throws IOException
        {
            buffer.clear();
            final int read = file.read(buffer);
            buffer.flip();
            if (read <= 0)
            {
                eof = true;
                return false;
            }
            return true;
        }

        @Override
        public long position()
        {
            return position;
        }

        @Override
        public void seek(final long offset)
        {
            try
            {
                if (offset < 0 || offset > file.size())
                {
                    throw new IllegalArgumentException("offset " + offset + " is outside the file (size " +
                        file.size() + ")");
                }
                file.position(offset);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            position = offset;
            lineLength = 0;
            eof = false;
            buffer.clear().flip();
        }

        @Override
        public void close() throws IOException
        {
            file.close();
        }
    }
}
