package io.ringflow.state.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * In-memory checkpoints of a steady size reuse the arrays of the checkpoints retention dropped: after the first few,
 * storing more allocates no state-file array, every retained checkpoint still reads back exactly what was written and
 * holds little unused room, a read made before its arrays were reused keeps its bytes (reads copy), aborted
 * checkpoints and unreferenced shared files give their arrays back too, and a reader racing the commits never sees
 * another checkpoint's bytes.
 */
class InMemoryStateFileRecyclingTest
{
    private static final int CHECKPOINTS = 60;

    @ParameterizedTest(name = "seed {0}, retain {1}, {2} bytes a keyed file")
    @CsvSource({"1, 1, 34000", "2, 1, 200", "3, 3, 34000", "4, 2, 900000", "5, 1, 5000000", "6, 1, 4600000"})
    void checkpointsOfASteadySizeAllocateNoStateFileArraysOnceTheFirstAreDropped(final long seed, final int retained,
        final int typicalSize) throws IOException
    {
        final Random random = new Random(seed);
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final Map<Long, List<byte[]>> written = new HashMap<>();
        final Map<Long, List<StateHandle>> handles = new HashMap<>();
        long allocatedAfterWarmUp = -1;
        byte[] readBeforeReuse = null;
        byte[] expectedBeforeReuse = null;
        long readBeforeReuseId = -1;
        for (long id = 1; id <= CHECKPOINTS; id++)
        {
            // the shape of a page-view checkpoint: two keyed files (two subtasks), each within 3 % of its typical
            // size, the first written in one call, as the snapshot writer hands over a small snapshot, the second in
            // 64 KiB slices, as it hands over the chunks of a larger one; and two operator files of about 100 bytes
            final List<byte[]> contents = new ArrayList<>();
            final List<StateHandle> files = new ArrayList<>();
            for (int file = 0; file < 4; file++)
            {
                final int size = file < 2 ? (int)(typicalSize * (0.97 + 0.03 * random.nextDouble())) :
                    60 + random.nextInt(80);
                final byte[] bytes = new byte[size];
                random.nextBytes(bytes);
                final StateOutput output = storage.createStateOutput(id, "file-" + file);
                final boolean oneCall = file != 1;
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
            // a kept file's unused room is less than 4 KiB or than its bytes, and at most 4 MiB
            long allowed = 0;
            for (final byte[] bytes : contents)
            {
                allowed += bytes.length + Math.min(4L << 20, Math.max(4096, bytes.length));
            }
            assertThat(storage.heldBytes(id)).as("seed %d, room held by checkpoint %d", seed, id)
                .isLessThanOrEqualTo(allowed);

            if (id == 10)
            {
                allocatedAfterWarmUp = storage.chunkPool().allocated();
                readBeforeReuseId = storage.checkpointIds().get(0);
                readBeforeReuse = storage.readState(readBeforeReuseId, handles.get(readBeforeReuseId).get(0));
                expectedBeforeReuse = written.get(readBeforeReuseId).get(0).clone();
            }
            // only what is retained is kept here (and the handle read above): the test's memory stays small
            final long kept = readBeforeReuseId;
            written.keySet().removeIf(other -> !storage.checkpointIds().contains(other));
            handles.keySet().removeIf(other -> !storage.checkpointIds().contains(other) && other != kept);
            for (final long retainedId : storage.checkpointIds())
            {
                for (int file = 0; file < 4; file++)
                {
                    assertThat(storage.readState(retainedId, handles.get(retainedId).get(file)))
                        .as("seed %d, checkpoint %d read after storing %d", seed, retainedId, id)
                        .isEqualTo(written.get(retainedId).get(file));
                }
            }
        }

        assertThat(storage.checkpointIds()).hasSize(retained);
        // sizes vary by up to 3 % and no chunk's length straddles a power of two here (4.6 MB in one call: 4 MiB, then
        // 268-406 KB, always 512 KiB), so later files ask for the lengths earlier ones had; a size moving across a
        // power of two takes a new array now and then
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
    void thePoolHoldsAtMostWhatTheLastCommitDroppedSoAShrunkStateLetsItsLargeArraysGo(final int retained)
        throws IOException
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final int large = 5_000_000;
        final int small = 10_000;
        long id = 0;
        for (int round = 0; round < 12; round++)
        {
            final int size = round < 6 ? large : small;
            id++;
            final long droppedHeld = storage.checkpointIds().size() >= retained ?
                storage.heldBytes(storage.checkpointIds().get(0)) : 0;
            final StateOutput output = storage.createStateOutput(id, "keyed");
            output.write(new byte[size], 0, size);
            output.closeAndGetHandle();
            storage.store(metadata(id), retained);
            assertThat(storage.chunkPool().freeBytes()).as("free bytes after commit %d", id)
                .isLessThanOrEqualTo(Math.max(droppedHeld, 0));
            if (round == 5)
            {
                assertThat(storage.chunkPool().freeBytes()).as("a dropped large checkpoint's arrays are kept")
                    .isGreaterThan(large / 2);
            }
        }
        assertThat(storage.chunkPool().freeBytes())
            .as("free bytes after small checkpoints replaced large ones")
            .isPositive()
            .isLessThanOrEqualTo(ChunkPool.lengthFor(small));
    }

    @Test
    void anAbortedCheckpointsFilesAndAnAbandonedOutputGiveTheirArraysBack() throws IOException
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final int size = 40_000;
        for (long id = 1; id <= 3; id++)
        {
            write(storage, id, "keyed", size);
            storage.store(metadata(id), 1);
        }
        final long allocated = storage.chunkPool().allocated();
        // checkpoint 4 is written, then aborted; an output of checkpoint 5 is written, then abandoned; each takes
        // the arrays the one before gave back
        write(storage, 4, "keyed", size);
        storage.discardPending(4);
        final StateOutput abandoned = storage.createStateOutput(5, "keyed");
        abandoned.write(new byte[size], 0, size);
        abandoned.close();

        for (long id = 6; id <= 10; id++)
        {
            write(storage, id, "keyed", size);
            storage.store(metadata(id), 1);
        }
        assertThat(storage.chunkPool().allocated()).as("arrays allocated from the abort on").isEqualTo(allocated);
        assertThat(storage.chunkPool().freeBytes()).isPositive();

        storage.discardAll();
        assertThat(storage.chunkPool().freeBytes()).as("nothing kept once everything is discarded").isZero();
    }

    @Test
    void unreferencedSharedFilesGiveTheirArraysToLaterCheckpoints() throws IOException
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final int size = 60_000;
        long allocatedAfterWarmUp = -1;
        for (long id = 1; id <= 20; id++)
        {
            // each checkpoint starts a new chain of one shared file: the previous one's is then unreferenced
            final StateOutput shared = storage.createSharedStateOutput(id, "keyed-" + id + ".full");
            shared.write(new byte[size], 0, size);
            final StateHandle chain = shared.closeAndGetHandle();
            final StateOutput operator = storage.createStateOutput(id, "operator");
            operator.write(new byte[100], 0, 100);
            final StateHandle operatorHandle = operator.closeAndGetHandle();
            storage.store(new CheckpointMetadata(id, 1_700_000_000_000L + id, false, Map.of("source", List.of(id)),
                Map.of("count", new OperatorState(1, 128,
                    List.of(new SubtaskState(chain, List.of(), operatorHandle, null))))), 1);
            assertThat(storage.readState(id, chain)).hasSize(size);
            if (id == 5)
            {
                allocatedAfterWarmUp = storage.chunkPool().allocated();
            }
        }
        assertThat(storage.chunkPool().allocated()).as("arrays allocated in checkpoints 6 to 20")
            .isEqualTo(allocatedAfterWarmUp);
    }

    @Test
    void aReaderRacingTheCommitsReadsExactlyItsCheckpointsBytesOrFindsItMissing() throws Exception
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final Map<Long, StateHandle> handles = new ConcurrentHashMap<>();
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong exactReads = new AtomicLong();
        final AtomicLong missingReads = new AtomicLong();
        final int checkpoints = 400;
        final CompletableFuture<Void> reader = CompletableFuture.runAsync(() ->
        {
            final Random pick = new Random(11);
            while (!done.get())
            {
                final List<Long> ids = storage.checkpointIds();
                if (ids.isEmpty())
                {
                    Thread.onSpinWait();
                    continue;
                }
                final long id = ids.get(pick.nextInt(ids.size()));
                try
                {
                    final byte[] read = storage.readState(id, handles.get(id));
                    assertThat(read).as("checkpoint %d", id).isEqualTo(contents(id));
                    exactReads.incrementAndGet();
                }
                catch (final CorruptCheckpointException ex)
                {
                    assertThat(ex).hasMessageContaining("missing");
                    missingReads.incrementAndGet();
                }
            }
        }, runnable -> new Thread(runnable, "reader").start());
        for (long id = 1; id <= checkpoints && !reader.isDone(); id++)
        {
            final byte[] bytes = contents(id);
            final StateOutput output = storage.createStateOutput(id, "keyed");
            output.write(bytes, 0, bytes.length);
            handles.put(id, output.closeAndGetHandle());
            storage.store(metadata(id), 1);
        }
        // the last checkpoint stays: the reader reads it at least once more before it stops
        final long before = exactReads.get() + missingReads.get();
        while (exactReads.get() + missingReads.get() < before + 2 && !reader.isDone())
        {
            Thread.onSpinWait();
        }
        done.set(true);
        reader.get();
        assertThat(exactReads.get()).isPositive();
    }

    /** Seeded by the checkpoint id, of a size that varies around 20 KB, so a reused array holds others' bytes. */
    private static byte[] contents(final long id)
    {
        final Random random = new Random(id);
        final byte[] bytes = new byte[19_000 + random.nextInt(2_000)];
        random.nextBytes(bytes);
        return bytes;
    }

    @Test
    void aDroppedCheckpointsFileTableServesALaterCheckpointWithNoneOfItsFiles() throws IOException
    {
        // checkpoint 1 writes a and b; checkpoint 2 only a, and its commit drops 1 (retain 1), whose emptied table
        // the first file of checkpoint 3 takes: 3 holds c alone, 2 still its a, and 1 nothing
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final StateHandle a1 = writeHandle(storage, 1, "a", 300);
        final StateHandle b1 = writeHandle(storage, 1, "b", 500);
        storage.store(metadata(1), 1);
        final StateHandle a2 = writeHandle(storage, 2, "a", 700);
        storage.store(metadata(2), 1);
        final StateHandle c3 = writeHandle(storage, 3, "c", 900);
        // checkpoint 4, pending beside 3, gets a table of its own
        final StateHandle d4 = writeHandle(storage, 4, "d", 1_100);

        assertThat(storage.readState(3, c3)).hasSize(900);
        assertThat(storage.readState(4, d4)).hasSize(1_100);
        assertThat(storage.fileCount(3)).as("checkpoint 3's table, checkpoint 1's emptied").isOne();
        assertThat(storage.fileCount(4)).isOne();
        assertThatThrownBy(() -> storage.readState(4, c3)).isInstanceOf(CorruptCheckpointException.class);
        assertThatThrownBy(() -> storage.readState(3, d4)).isInstanceOf(CorruptCheckpointException.class);
        assertThat(storage.readState(2, a2)).hasSize(700);
        for (final StateHandle earlier : List.of(a1, b1))
        {
            assertThatThrownBy(() -> storage.readState(3, earlier)).as("checkpoint 1's %s read as 3's", earlier)
                .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("missing");
            assertThatThrownBy(() -> storage.readState(1, earlier)).as("dropped checkpoint 1's %s", earlier)
                .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("missing");
        }
        storage.store(metadata(3), 1);
        assertThat(storage.checkpointIds()).containsExactly(3L);
        assertThat(storage.readState(3, c3)).hasSize(900);
        assertThat(storage.readState(4, d4)).hasSize(1_100);
    }

    private static StateHandle writeHandle(final InMemoryCheckpointStorage storage, final long id, final String name,
        final int size) throws IOException
    {
        final StateOutput output = storage.createStateOutput(id, name);
        output.write(new byte[size], 0, size);
        return output.closeAndGetHandle();
    }

    private static void write(final InMemoryCheckpointStorage storage, final long id, final String name,
        final int size) throws IOException
    {
        final StateOutput output = storage.createStateOutput(id, name);
        output.write(new byte[size], 0, size);
        output.closeAndGetHandle();
    }

    private static CheckpointMetadata metadata(final long id)
    {
        return new CheckpointMetadata(id, 1_700_000_000_000L + id, Map.of("source", List.of(id)));
    }
}
