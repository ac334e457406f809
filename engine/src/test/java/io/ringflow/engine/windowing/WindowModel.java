package io.ringflow.engine.windowing;

import io.ringflow.engine.api.windowing.TimeWindow;
import io.ringflow.engine.api.windowing.WindowAssigner;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A plain model of event-time windows with the default trigger, for one ordered stream: each record, then the
 * watermark the punctuated generator emits after it ({@code max timestamp - delay - 1}), then at the end the final
 * watermark. Windows are lists; firing and cleanup are checked after every watermark. Written for clarity, not speed,
 * and independently of the operator.
 */
final class WindowModel
{
    /** One firing of a window. */
    record Firing(long key, long start, long end, long count, long sum)
    {
    }

    private final WindowAssigner assigner;
    private final long lateness;
    /** Per key, its open windows and their records. */
    private final Map<Long, Map<TimeWindow, List<WindowModelTest.Event>>> open = new TreeMap<>();
    private final List<Firing> firings = new ArrayList<>();
    private final List<WindowModelTest.Event> late = new ArrayList<>();
    private long watermark = Long.MIN_VALUE;

    private WindowModel(final WindowAssigner assigner, final long lateness)
    {
        this.assigner = assigner;
        this.lateness = lateness;
    }

    static WindowModel run(final List<WindowModelTest.Event> events, final WindowAssigner assigner,
        final long lateness, final long delay)
    {
        final WindowModel model = new WindowModel(assigner, lateness);
        long max = Long.MIN_VALUE;
        for (final WindowModelTest.Event event : events)
        {
            model.add(event);
            max = Math.max(max, event.time());
            model.advance(max - delay - 1);
        }
        model.advance(Long.MAX_VALUE);
        return model;
    }

    List<Firing> firings()
    {
        return firings;
    }

    List<WindowModelTest.Event> late()
    {
        return late;
    }

    private boolean pastCleanup(final TimeWindow window)
    {
        return window.maxTimestamp() + lateness <= watermark;
    }

    private void add(final WindowModelTest.Event event)
    {
        final Map<TimeWindow, List<WindowModelTest.Event>> windows = open.computeIfAbsent(event.key(),
            k -> new TreeMap<>((a, b) -> a.start() != b.start() ? Long.compare(a.start(), b.start()) :
                Long.compare(a.end(), b.end())));
        final List<TimeWindow> mine = new ArrayList<>();
        if (assigner.isMerging())
        {
            TimeWindow window = new TimeWindow(event.time(), event.time() + assigner.size());
            if (pastCleanup(window))
            {
                late.add(event);
                return;
            }
            final List<WindowModelTest.Event> merged = new ArrayList<>();
            for (final Iterator<Map.Entry<TimeWindow, List<WindowModelTest.Event>>> it =
                windows.entrySet().iterator(); it.hasNext(); )
            {
                final Map.Entry<TimeWindow, List<WindowModelTest.Event>> entry = it.next();
                if (entry.getKey().intersects(window))
                {
                    window = window.cover(entry.getKey());
                    merged.addAll(entry.getValue());
                    it.remove();
                }
            }
            // merging may have covered more windows that now intersect the grown one
            boolean grew = true;
            while (grew)
            {
                grew = false;
                for (final Iterator<Map.Entry<TimeWindow, List<WindowModelTest.Event>>> it =
                    windows.entrySet().iterator(); it.hasNext(); )
                {
                    final Map.Entry<TimeWindow, List<WindowModelTest.Event>> entry = it.next();
                    if (entry.getKey().intersects(window))
                    {
                        window = window.cover(entry.getKey());
                        merged.addAll(entry.getValue());
                        it.remove();
                        grew = true;
                    }
                }
            }
            windows.put(window, merged);
            mine.add(window);
        }
        else
        {
            final long[] starts = new long[assigner.windowsPerRecord()];
            final int n = assigner.assign(event.time(), starts);
            for (int i = 0; i < n; i++)
            {
                final TimeWindow window = new TimeWindow(starts[i], assigner.endOf(starts[i]));
                if (!pastCleanup(window))
                {
                    mine.add(window);
                }
            }
            if (mine.isEmpty())
            {
                late.add(event);
                return;
            }
        }
        for (final TimeWindow window : mine)
        {
            windows.computeIfAbsent(window, w -> new ArrayList<>()).add(event);
            if (window.maxTimestamp() <= watermark)
            {
                fire(event.key(), window, windows.get(window));
            }
        }
    }

    private void advance(final long newWatermark)
    {
        if (newWatermark <= watermark)
        {
            return;
        }
        final long before = watermark;
        watermark = newWatermark;
        for (final Map.Entry<Long, Map<TimeWindow, List<WindowModelTest.Event>>> key : open.entrySet())
        {
            for (final Iterator<Map.Entry<TimeWindow, List<WindowModelTest.Event>>> it =
                key.getValue().entrySet().iterator(); it.hasNext(); )
            {
                final Map.Entry<TimeWindow, List<WindowModelTest.Event>> window = it.next();
                final long end = window.getKey().maxTimestamp();
                if (end > before && end <= watermark)
                {
                    fire(key.getKey(), window.getKey(), window.getValue());
                }
                if (pastCleanup(window.getKey()))
                {
                    it.remove();
                }
            }
        }
    }

    private void fire(final long key, final TimeWindow window, final List<WindowModelTest.Event> events)
    {
        long sum = 0;
        for (final WindowModelTest.Event e : events)
        {
            sum += e.value();
        }
        firings.add(new Firing(key, window.start(), window.end(), events.size(), sum));
    }
}
