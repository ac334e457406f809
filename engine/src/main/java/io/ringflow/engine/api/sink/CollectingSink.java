package io.ringflow.engine.api.sink;

import io.ringflow.engine.api.functions.SubtaskInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Keeps every record in memory, for tests and small demos. Thread-safe: writers of all subtasks add to one queue;
 * {@link #results()} may be read from any thread.
 *
 * @param <T> the record type.
 */
public final class CollectingSink<T> implements Sink<T>
{
    private final ConcurrentLinkedQueue<T> records = new ConcurrentLinkedQueue<>();

    @Override
    public SinkWriter<T> createWriter(final SubtaskInfo subtask)
    {
        return records::add;
    }

    /** @return a copy of the records collected so far, in the order they were added. */
    public List<T> results()
    {
        return new ArrayList<>(records);
    }

    /** @return how many records were collected so far. */
    public int size()
    {
        return records.size();
    }
}
