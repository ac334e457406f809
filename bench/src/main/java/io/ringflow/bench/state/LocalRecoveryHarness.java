package io.ringflow.bench.state;

import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Local recovery against a full restore, on the default (Chronicle) backend, outside any job: the time from a failed
 * attempt's store to a store that holds exactly the checkpoint's state, both starting from the checkpoint's snapshot
 * bytes already in memory (reading them from storage costs both the same).
 *
 * <p>A store tracking changes (as local recovery makes it) is filled with {@code keys} counters ({@code
 * ValueState<Long>} through the unboxed view, keys 0 .. keys-1, each key's value its number), and a full snapshot of
 * it is the checkpoint. Each round then changes a fraction of the keys, consecutive ones from a moving offset as the
 * page-view job does (the "failed attempt"), and brings the state back to the checkpoint two ways, alternated:
 * <ul>
 *   <li><b>revert</b>: {@code revertTo(checkpoint, snapshot)} on that store (what a restart with local recovery
 *   does);</li>
 *   <li><b>full restore</b>: close the failed store, create a new one and {@code restore} the snapshot into it, then
 *   declare the state (what a restart does without it; the close is on that path too, before the new attempt).</li>
 * </ul>
 * After each, every key's value is checked to be its number again; the store then takes a new full snapshot (the next
 * checkpoint, not timed) for the next round. Reported per fraction: median, min and max of each, and their ratio.
 *
 * <pre>
 *   java -Xms8g -Xmx8g -XX:+AlwaysPreTouch $RINGFLOW_FLAGS -cp bench/target/benchmarks.jar \
 *       io.ringflow.bench.state.LocalRecoveryHarness --keys 10000000 --changed 0.01,0.1 --rounds 5
 * </pre>
 */
public final class LocalRecoveryHarness
{
    private static final ValueStateDescriptor<Long> COUNTS = new ValueStateDescriptor<>("counts", Long.class, 0L);
    private static final int MAX_PARALLELISM = KeyGroups.DEFAULT_MAX_PARALLELISM;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    private LocalRecoveryHarness()
    {
    }

    /**
     * @param args {@code --keys N} (default 10,000,000), {@code --changed F,G} fractions of the keys changed after the
     *             checkpoint (default 0.01,0.1), {@code --rounds R} per fraction and way (default 5).
     * @throws Exception when a check fails.
     */
    public static void main(final String[] args) throws Exception
    {
        int keys = 10_000_000;
        double[] fractions = {0.01, 0.1};
        int rounds = 5;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--keys" -> keys = Integer.parseInt(args[++i].replace("_", ""));
                case "--changed" ->
                {
                    final String[] parts = args[++i].split(",");
                    fractions = new double[parts.length];
                    for (int p = 0; p < parts.length; p++)
                    {
                        fractions[p] = Double.parseDouble(parts[p]);
                    }
                }
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    "; use --keys N --changed F,G --rounds R");
            }
        }
        run(keys, fractions, rounds, System.out);
    }

    static void run(final int keys, final double[] fractions, final int rounds, final PrintStream out)
        throws IOException
    {
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withExpectedEntriesPerState(keys);
        ChronicleKeyedStateStore store = open(config);
        LongValueState counts = store.getLongValueState(COUNTS);
        for (long key = 0; key < keys; key++)
        {
            set(store, key);
            counts.update(key);
        }
        long checkpointId = 1;
        byte[] checkpoint = take(store, checkpointId);
        out.printf(Locale.ROOT, "%,d keys, checkpoint of %,d B; %d rounds per fraction%n", keys, checkpoint.length,
            rounds);
        long offset = 0;
        for (final double fraction : fractions)
        {
            final int changed = (int)Math.max(1, Math.round(keys * fraction));
            final List<Long> reverts = new ArrayList<>();
            final List<Long> restores = new ArrayList<>();
            long rewritten = 0;
            for (int round = 0; round < 2 * rounds; round++)
            {
                // the failed attempt: consecutive keys from a moving offset, as views of apps 0, 1, 2, ... arrive
                for (int c = 0; c < changed; c++)
                {
                    final long key = (offset + c) % keys;
                    set(store, key);
                    counts.update(counts.value() + 1_000_000_000L);
                }
                offset = (offset + changed) % keys;
                final KeyedSnapshotReader reader = KeyedSnapshotReader.open(checkpoint, "checkpoint " + checkpointId);
                final long start = System.nanoTime();
                if (round % 2 == 0)
                {
                    rewritten = store.revertTo(checkpointId, List.of(reader));
                    counts = store.getLongValueState(COUNTS);
                    reverts.add(System.nanoTime() - start);
                }
                else
                {
                    store.close();
                    store = open(config);
                    store.restore(List.of(reader));
                    counts = store.getLongValueState(COUNTS);
                    restores.add(System.nanoTime() - start);
                }
                check(store, counts, keys);
                checkpointId++;
                checkpoint = take(store, checkpointId);
            }
            reverts.sort(null);
            restores.sort(null);
            final long revert = reverts.get(reverts.size() / 2);
            final long restore = restores.get(restores.size() / 2);
            out.printf(Locale.ROOT, "%.1f %% of keys changed (%,d; %,d rewritten): revert median %.1f ms [%.1f-%.1f], " +
                    "full restore median %.1f ms [%.1f-%.1f]: %.1fx%n", fraction * 100, changed, rewritten,
                revert / 1e6, reverts.get(0) / 1e6, reverts.get(reverts.size() - 1) / 1e6, restore / 1e6,
                restores.get(0) / 1e6, restores.get(restores.size() - 1) / 1e6, (double)restore / revert);
        }
        store.close();
    }

    private static ChronicleKeyedStateStore open(final ChronicleStateConfig config)
    {
        final ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(config, CodecRegistry.withBuiltIns(),
            MAX_PARALLELISM, ALL);
        store.trackChanges();
        return store;
    }

    private static void set(final ChronicleKeyedStateStore store, final long key)
    {
        store.setCurrentKey(key, KeyGroups.keyGroupOfHash(Long.hashCode(key), MAX_PARALLELISM));
    }

    private static void check(final ChronicleKeyedStateStore store, final LongValueState counts, final int keys)
    {
        for (long key = 0; key < keys; key++)
        {
            set(store, key);
            if (counts.value() != key)
            {
                throw new IllegalStateException("key " + key + " holds " + counts.value() + ", not its checkpoint's " +
                    key);
            }
        }
        if (store.entryCount() != keys)
        {
            throw new IllegalStateException(store.entryCount() + " entries, not " + keys);
        }
        store.setCurrentKey(null);
    }

    private static byte[] take(final ChronicleKeyedStateStore store, final long checkpointId) throws IOException
    {
        final KeyedStateSnapshot snapshot = store.snapshot(checkpointId);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try
        {
            snapshot.writeTo(out);
        }
        finally
        {
            snapshot.release();
        }
        return out.toByteArray();
    }
}
