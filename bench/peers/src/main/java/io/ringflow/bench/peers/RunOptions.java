package io.ringflow.bench.peers;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one run of the page-view job does, the same for every engine: the options of
 * {@code ringflow page-view --events N --apps K --rate R --parallelism P --checkpoint-interval MS}, plus the
 * peers' own settings ({@code --flink-state}, {@code --flink-buffer-timeout}).
 *
 * @param events               views to generate; at least 1 (the job is bounded, so that its totals can be checked).
 * @param apps                 the number of applications (keys); view {@code i} is of app {@code i % apps}.
 * @param rate                 views per second of all source subtasks together; 0 = as fast as possible.
 * @param parallelism          subtasks of the source, of the count and of the sink.
 * @param checkpointIntervalMs aligned exactly-once checkpoints every this many milliseconds; 0 = none.
 * @param flinkState           Flink's state backend.
 * @param flinkBufferTimeoutMs Flink's {@code execution.buffer-timeout.interval} in ms, or -1 for Flink's default
 *                             (100 ms), which is what a user gets.
 * @param timeoutSeconds       a run that has not finished after this long is cancelled and fails.
 * @param flinkCheckpointDir   where Flink writes its checkpoints (its file-system storage; a memory-backed file
 *                             system such as /dev/shm keeps it in memory like Ringflow's default); empty for the
 *                             JobManager's memory, which refuses a state above 5 MB (about 200,000 counters).
 */
public record RunOptions(
    long events,
    int apps,
    long rate,
    int parallelism,
    long checkpointIntervalMs,
    FlinkState flinkState,
    long flinkBufferTimeoutMs,
    long timeoutSeconds,
    String flinkCheckpointDir)
{
    /** The options with Flink's checkpoints in the JobManager's memory. */
    public RunOptions(final long events, final int apps, final long rate, final int parallelism,
        final long checkpointIntervalMs, final FlinkState flinkState, final long flinkBufferTimeoutMs,
        final long timeoutSeconds)
    {
        this(events, apps, rate, parallelism, checkpointIntervalMs, flinkState, flinkBufferTimeoutMs, timeoutSeconds,
            "");
    }

    /** Flink's keyed state backends offered here. */
    public enum FlinkState
    {
        /** HashMapStateBackend: objects on the heap (Flink's default). */
        HEAP,
        /** EmbeddedRocksDBStateBackend: serialized, off-heap, in RocksDB. */
        ROCKSDB
    }

    /** @throws IllegalArgumentException naming the first invalid option. */
    public RunOptions
    {
        require(events >= 1, "--events must be >= 1, was " + events);
        require(apps >= 1, "--apps must be >= 1, was " + apps);
        require(rate >= 0, "--rate must be >= 0 (0 = as fast as possible), was " + rate);
        require(parallelism >= 1, "--parallelism must be >= 1, was " + parallelism);
        require(checkpointIntervalMs >= 0, "--checkpoint-interval must be >= 0 (0 = off), was " + checkpointIntervalMs);
        require(flinkState != null, "--flink-state must be heap or rocksdb");
        require(flinkBufferTimeoutMs >= -1, "--flink-buffer-timeout must be >= 0, was " + flinkBufferTimeoutMs);
        require(timeoutSeconds >= 1, "--timeout must be >= 1 s, was " + timeoutSeconds);
        require(flinkCheckpointDir != null, "--flink-checkpoint-dir must name a directory");
    }

    /** @return 20M views over 1,000 apps, as fast as possible, parallelism 1, checkpoints every 100 ms. */
    public static RunOptions defaults()
    {
        return new RunOptions(20_000_000L, 1_000, 0, 1, 100, FlinkState.HEAP, -1, 600);
    }

    /** @param value see {@link #events()}. @return a copy with that value. */
    public RunOptions withEvents(final long value)
    {
        return new RunOptions(value, apps, rate, parallelism, checkpointIntervalMs, flinkState, flinkBufferTimeoutMs,
            timeoutSeconds, flinkCheckpointDir);
    }

    /**
     * Reads the job options named by {@link #toArgs()} from {@code options} (name without dashes to value); the
     * others keep the values of {@code base}.
     *
     * @param base    the values of options not given.
     * @param options parsed command-line options; those read are removed.
     * @return the options.
     */
    static RunOptions from(final RunOptions base, final Map<String, String> options)
    {
        final String events = options.remove("events");
        final String apps = options.remove("apps");
        final String rate = options.remove("rate");
        final String parallelism = options.remove("parallelism");
        final String interval = options.remove("checkpoint-interval");
        final String state = options.remove("flink-state");
        final String bufferTimeout = options.remove("flink-buffer-timeout");
        final String timeout = options.remove("timeout");
        final String flinkCheckpoints = options.remove("flink-checkpoint-dir");
        return new RunOptions(
            events == null ? base.events : parseCount("--events", events),
            apps == null ? base.apps : Math.toIntExact(parseCount("--apps", apps)),
            rate == null ? base.rate : parseCount("--rate", rate),
            parallelism == null ? base.parallelism : Math.toIntExact(parseCount("--parallelism", parallelism)),
            interval == null ? base.checkpointIntervalMs : parseCount("--checkpoint-interval", interval),
            state == null ? base.flinkState : parseState(state),
            bufferTimeout == null ? base.flinkBufferTimeoutMs : parseCount("--flink-buffer-timeout", bufferTimeout),
            timeout == null ? base.timeoutSeconds : parseCount("--timeout", timeout),
            flinkCheckpoints == null ? base.flinkCheckpointDir : flinkCheckpoints);
    }

    /** @return these options as command-line arguments that {@link #from} reads back. */
    List<String> toArgs()
    {
        final List<String> args = new ArrayList<>(List.of(
            "--events", Long.toString(events),
            "--apps", Integer.toString(apps),
            "--rate", Long.toString(rate),
            "--parallelism", Integer.toString(parallelism),
            "--checkpoint-interval", Long.toString(checkpointIntervalMs),
            "--flink-state", flinkState.name().toLowerCase(Locale.ROOT),
            "--timeout", Long.toString(timeoutSeconds)));
        if (flinkBufferTimeoutMs >= 0)
        {
            args.add("--flink-buffer-timeout");
            args.add(Long.toString(flinkBufferTimeoutMs));
        }
        if (!flinkCheckpointDir.isEmpty())
        {
            args.add("--flink-checkpoint-dir");
            args.add(flinkCheckpointDir);
        }
        return args;
    }

    /**
     * Parses a count as the {@code ringflow} command line does: {@code 2000000}, {@code 2_000_000}, {@code 2M},
     * {@code 500k}, {@code 1G}.
     *
     * @param option the option's name, for the message.
     * @param text   the value.
     * @return the count.
     * @throws IllegalArgumentException if it is not a count.
     */
    static long parseCount(final String option, final String text)
    {
        final String value = text.strip().replace("_", "").toLowerCase(Locale.ROOT);
        long unit = 1;
        String digits = value;
        if (value.endsWith("k") || value.endsWith("m") || value.endsWith("g"))
        {
            unit = switch (value.charAt(value.length() - 1))
            {
                case 'k' -> 1_000L;
                case 'm' -> 1_000_000L;
                default -> 1_000_000_000L;
            };
            digits = value.substring(0, value.length() - 1);
        }
        try
        {
            return Math.multiplyExact(Long.parseLong(digits), unit);
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new IllegalArgumentException(option + " must be a count such as 2000000, 2_000_000, 2M or 500k, was '" +
                text + "'");
        }
    }

    private static FlinkState parseState(final String text)
    {
        return switch (text.strip().toLowerCase(Locale.ROOT))
        {
            case "heap", "hashmap" -> FlinkState.HEAP;
            case "rocksdb" -> FlinkState.ROCKSDB;
            default -> throw new IllegalArgumentException("--flink-state must be heap or rocksdb, was '" + text + "'");
        };
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalArgumentException(message);
        }
    }
}
