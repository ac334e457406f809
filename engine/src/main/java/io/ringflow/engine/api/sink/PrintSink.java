package io.ringflow.engine.api.sink;

import io.ringflow.engine.api.functions.SubtaskInfo;

import java.io.PrintStream;
import java.util.Objects;

/**
 * Prints each record's {@code toString()} on its own line, prefixed with the subtask index when the parallelism is
 * above 1 ({@code "2> record"}, as Flink does). For demos and debugging: it allocates and locks per record.
 *
 * @param <T> the record type.
 */
public final class PrintSink<T> implements Sink<T>
{
    private final PrintStream out;

    /** Prints to standard output. */
    public PrintSink()
    {
        this(System.out);
    }

    /**
     * @param out where to print.
     */
    public PrintSink(final PrintStream out)
    {
        this.out = Objects.requireNonNull(out, "out");
    }

    @Override
    public SinkWriter<T> createWriter(final SubtaskInfo subtask)
    {
        final String prefix = subtask.parallelism() > 1 ? subtask.subtaskIndex() + "> " : "";
        return new SinkWriter<>()
        {
            @Override
            public void write(final T record)
            {
                out.println(prefix + record);
            }

            @Override
            public void flush()
            {
                out.flush();
            }
        };
    }
}
