package io.ringflow.bench.peers;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one run of one engine measured, as the one machine-readable line a fork prints:
 * {@code PEER-RESULT engine=flink run=1 events=20000000 ... verified=true}, space-separated {@code key=value}, a
 * value of {@code -} when not measured (e.g. no steady part in a run shorter than start-up plus one second).
 *
 * <p>Times are measured in the fork with {@link System#nanoTime()} from {@code t0}, taken just before the engine is
 * started (environment, MiniCluster or member, then the job submitted):
 * <ul>
 *   <li>{@code startup_s}: t0 to the first record seen at the sink;</li>
 *   <li>{@code last_record_s}: t0 to the last record seen at the sink;</li>
 *   <li>{@code wall_s}: t0 to the job's termination as the engine reports it (what a user waits for);</li>
 *   <li>{@code steady_s}: the steady part, from one second after the first record to the last record.</li>
 * </ul>
 * Sink progress is polled every millisecond, so these carry about 1 ms of error.
 *
 * @param engine           ringflow, flink or jet.
 * @param run              the run number, from 1.
 * @param events           views the run was to generate.
 * @param apps             applications.
 * @param parallelism      subtasks per operator.
 * @param checkpointMs     checkpoint interval, 0 = none.
 * @param rate             offered rate, 0 = as fast as possible.
 * @param verified         whether the job finished and every total checked out.
 * @param wallS            see above.
 * @param startupS         see above.
 * @param lastRecordS      see above.
 * @param steadyS          see above.
 * @param steadyRps        records received in the steady part / its duration.
 * @param wholeRps         events / wall_s.
 * @param p50Us            latency of every record, µs, percentile 50.
 * @param p99Us            percentile 99.
 * @param p999Us           percentile 99.9.
 * @param maxUs            maximum.
 * @param steadyP50Us      latency of the records of the steady part, percentile 50.
 * @param steadyP99Us      percentile 99.
 * @param steadyP999Us     percentile 99.9.
 * @param steadyMaxUs      maximum.
 * @param latencySamples   latencies recorded (= records received).
 * @param checkpoints      checkpoints the engine confirmed complete.
 * @param generated        views generated.
 * @param received         updates received by the sink.
 * @param problems         verification problems (0 when verified).
 */
public record RunResult(
    String engine,
    int run,
    long events,
    int apps,
    int parallelism,
    long checkpointMs,
    long rate,
    boolean verified,
    double wallS,
    double startupS,
    double lastRecordS,
    double steadyS,
    double steadyRps,
    double wholeRps,
    double p50Us,
    double p99Us,
    double p999Us,
    double maxUs,
    double steadyP50Us,
    double steadyP99Us,
    double steadyP999Us,
    double steadyMaxUs,
    long latencySamples,
    long checkpoints,
    long generated,
    long received,
    int problems)
{
    /** The prefix of the result line. */
    public static final String PREFIX = "PEER-RESULT ";

    /** @return the result line: {@link #PREFIX} then {@code key=value} pairs. */
    public String toLine()
    {
        final StringBuilder line = new StringBuilder(PREFIX);
        for (final Map.Entry<String, String> entry : toMap().entrySet())
        {
            line.append(entry.getKey()).append('=').append(entry.getValue()).append(' ');
        }
        return line.toString().strip();
    }

    /** @return the fields by key, in the order of the line. */
    public Map<String, String> toMap()
    {
        final Map<String, String> map = new LinkedHashMap<>();
        map.put("engine", engine);
        map.put("run", Integer.toString(run));
        map.put("events", Long.toString(events));
        map.put("apps", Integer.toString(apps));
        map.put("parallelism", Integer.toString(parallelism));
        map.put("checkpoint_ms", Long.toString(checkpointMs));
        map.put("rate", Long.toString(rate));
        map.put("verified", Boolean.toString(verified));
        map.put("wall_s", number(wallS, 3));
        map.put("startup_s", number(startupS, 3));
        map.put("last_record_s", number(lastRecordS, 3));
        map.put("steady_s", number(steadyS, 3));
        map.put("steady_rps", number(steadyRps, 0));
        map.put("whole_rps", number(wholeRps, 0));
        map.put("p50_us", number(p50Us, 1));
        map.put("p99_us", number(p99Us, 1));
        map.put("p999_us", number(p999Us, 1));
        map.put("max_us", number(maxUs, 1));
        map.put("steady_p50_us", number(steadyP50Us, 1));
        map.put("steady_p99_us", number(steadyP99Us, 1));
        map.put("steady_p999_us", number(steadyP999Us, 1));
        map.put("steady_max_us", number(steadyMaxUs, 1));
        map.put("latency_samples", Long.toString(latencySamples));
        map.put("checkpoints", Long.toString(checkpoints));
        map.put("generated", Long.toString(generated));
        map.put("received", Long.toString(received));
        map.put("problems", Integer.toString(problems));
        return map;
    }

    /**
     * @param line a line printed by {@link #toLine()}.
     * @return the result.
     * @throws IllegalArgumentException if the line is not a result line or lacks a field.
     */
    public static RunResult parse(final String line)
    {
        if (!line.startsWith(PREFIX))
        {
            throw new IllegalArgumentException("not a result line: " + line);
        }
        final Map<String, String> map = new LinkedHashMap<>();
        for (final String pair : line.substring(PREFIX.length()).strip().split("\\s+"))
        {
            final int eq = pair.indexOf('=');
            if (eq <= 0)
            {
                throw new IllegalArgumentException("not key=value: '" + pair + "' in " + line);
            }
            map.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        try
        {
            return new RunResult(
                field(map, "engine"),
                Integer.parseInt(field(map, "run")),
                Long.parseLong(field(map, "events")),
                Integer.parseInt(field(map, "apps")),
                Integer.parseInt(field(map, "parallelism")),
                Long.parseLong(field(map, "checkpoint_ms")),
                Long.parseLong(field(map, "rate")),
                Boolean.parseBoolean(field(map, "verified")),
                decimal(map, "wall_s"),
                decimal(map, "startup_s"),
                decimal(map, "last_record_s"),
                decimal(map, "steady_s"),
                decimal(map, "steady_rps"),
                decimal(map, "whole_rps"),
                decimal(map, "p50_us"),
                decimal(map, "p99_us"),
                decimal(map, "p999_us"),
                decimal(map, "max_us"),
                decimal(map, "steady_p50_us"),
                decimal(map, "steady_p99_us"),
                decimal(map, "steady_p999_us"),
                decimal(map, "steady_max_us"),
                Long.parseLong(field(map, "latency_samples")),
                Long.parseLong(field(map, "checkpoints")),
                Long.parseLong(field(map, "generated")),
                Long.parseLong(field(map, "received")),
                Integer.parseInt(field(map, "problems")));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("bad number in " + line, ex);
        }
    }

    private static String field(final Map<String, String> map, final String key)
    {
        final String value = map.get(key);
        if (value == null)
        {
            throw new IllegalArgumentException("no " + key + "=");
        }
        return value;
    }

    private static double decimal(final Map<String, String> map, final String key)
    {
        final String value = field(map, key);
        return "-".equals(value) ? Double.NaN : Double.parseDouble(value);
    }

    private static String number(final double value, final int decimals)
    {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
