package io.ringflow.samples.windowed;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps every window's latest result (a replay after a failure writes the same results again) and counts the
 * results received, for the check against the brute-force count.
 */
public final class WindowResults implements Sink<WindowCount>
{
    private final Map<String, WindowCount> latest = new ConcurrentHashMap<>();
    private final AtomicLong received = new AtomicLong();

    @Override
    public SinkWriter<WindowCount> createWriter(final SubtaskInfo subtask)
    {
        return value ->
        {
            received.incrementAndGet();
            latest.put(keyOf(value.app(), value.windowStart(), value.windowEnd()), value);
        };
    }

    /** @return each window's latest result, by {@link #keyOf}. */
    public Map<String, WindowCount> latest()
    {
        return latest;
    }

    /** @return how many results arrived, replays included. */
    public long received()
    {
        return received.get();
    }

    /**
     * @param app   an app.
     * @param start a window's start.
     * @param end   its end.
     * @return the window's key in {@link #latest()}.
     */
    public static String keyOf(final long app, final long start, final long end)
    {
        return app + "@" + start + "-" + end;
    }
}
