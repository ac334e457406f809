package io.ringflow.state.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * In-memory checkpoints of a steady size reuse the arrays of the checkpoints retention dropped: after the first few,
 * storing more allocates no state-file array, every retained checkpoint still reads back exactly what was written,
 * and a read made before its arrays were reused keeps its bytes (reads copy).
 */
class InMemoryStateFileRecyclingTest
{
    private static final int CHECKPOINTS = 60;

    @ParameterizedTest(name = "seed {0}, retain {1}, {2} bytes a file")
    @CsvSource({"1, 1, 34000", "2, 1, 200", "3, 3, 34000", "4, 2, 900000", "5, 1, 5000000"})
    void checkpointsOfASteadySizeAllocateNoStateFileArraysOnceTheFirstAreDropped(final long seed, final int retained,
        final int typicalSize) throws IOException
    {
        final Random random = new Random(seed);
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final Map<Long, List<byte[]>> written = new HashMap<>();
        final Map<Long, List<StateHandle>> handles = new HashMap<>();
        long allocatedAfterWarmUp = -1;
        byte[] readBeforeReuse = null;
        long readBeforeReuseId = -1;
        byte[] expectedBeforeReuse = null;
        final long[] dropLater = {-1};
        for (long id = 1; id <= CHECKPOINTS; id++)
        {
            // two files a checkpoint (two subtasks), each within 3 % of its typical size; the first written in one
            // call, as the snapshot writer hands over a small snapshot, the second in 64 KiB slices, as it hands over
            // the chunks of a larger one
            final List<byte[]> contents = new ArrayList<>();
            final List<StateHandle> files = new ArrayList<>();
            for (int subtask = 0; subtask < 2; subtask++)
            {
                final int size = (int)(typicalSize * (0.97 + 0.03 * random.nextDouble()));
                final byte[] bytes = new byte[size];
                random.nextBytes(bytes);
                final StateOutput output = storage.createStateOutput(id, "keyed-" + subtask);
                final boolean oneCall = subtask == 0;
                for (int at = 0; at < size; )
                {
                    final int n = oneCall ? size : Math.min(size - at, 64 * 1024);
                    output.write(bytes, at, n);
                    at += n;
                }
                files.add(output.closeAndGetHandle());
                contents.add(bytes);
            }
            storage.store(metadata(id), retained);
            written.put(id, contents);
            handles.put(id, files);

            if (id == 10)
            {
                allocatedAfterWarmUp = storage.chunkPool().allocated();
                readBeforeReuseId = storage.checkpointIds().get(0);
                readBeforeReuse = storage.readState(readBeforeReuseId, handles.get(readBeforeReuseId).get(0));
                expectedBeforeReuse = written.get(readBeforeReuseId).get(0).clone();
                dropLater[0] = readBeforeReuseId;
            }
            // only what is retained is kept here: the test's own memory stays a few checkpoints
            written.keySet().removeIf(kept -> !storage.checkpointIds().contains(kept));
            handles.keySet().removeIf(kept -> !storage.checkpointIds().contains(kept) && kept != dropLater[0]);
            for (final long kept : storage.checkpointIds())
            {
                for (int subtask = 0; subtask < 2; subtask++)
                {
                    assertThat(storage.readState(kept, handles.get(kept).get(subtask)))
                        .as("seed %d, checkpoint %d read after storing %d", seed, kept, id)
                        .isEqualTo(written.get(kept).get(subtask));
                }
            }
        }

        assertThat(storage.checkpointIds()).hasSize(retained);
        // sizes vary by up to 3 % and new arrays have an eighth more room, so later files fit in earlier arrays
        assertThat(storage.chunkPool().allocated())
            .as("arrays allocated in checkpoints 11 to %d", CHECKPOINTS)
            .isEqualTo(allocatedAfterWarmUp);
        assertThat(readBeforeReuse).as("a read's copy, after its arrays were reused by 50 checkpoints")
            .isEqualTo(expectedBeforeReuse);
        final long dropped = readBeforeReuseId;
        assertThatThrownBy(() -> storage.readState(dropped, handles.get(dropped).get(0)))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("missing");
    }

    @ParameterizedTest(name = "retain {0}")
    @CsvSource({"1", "3"})
    void thePoolHoldsAtMostTheArraysOfTheCheckpointLastDropped(final int retained) throws IOException
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        // a large state that then shrinks: the pool must not keep the large arrays
        final int[] sizes = {5_000_000, 5_000_000, 5_000_000, 5_000_000, 10_000, 10_000, 10_000, 10_000, 10_000,
            10_000, 10_000};
        long id = 0;
        for (final int size : sizes)
        {
            id++;
            final StateOutput output = storage.createStateOutput(id, "keyed");
            output.write(new byte[size], 0, size);
            output.closeAndGetHandle();
            storage.store(metadata(id), retained);
        }
        assertThat(storage.chunkPool().freeBytes())
            .as("free bytes after small checkpoints replaced large ones")
            .isLessThanOrEqualTo(10_000 + 10_000 / 8);
    }

    private static CheckpointMetadata metadata(final long id)
    {
        return new CheckpointMetadata(id, 1_700_000_000_000L + id, Map.of("source", List.of(id)));
    }
}
