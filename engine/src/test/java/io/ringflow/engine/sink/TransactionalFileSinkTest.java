package io.ringflow.engine.sink;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.CommittableDataException;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.file.CommittedOutput;
import io.ringflow.engine.api.sink.file.FileCommittable;
import io.ringflow.engine.api.sink.file.RecordEncoder;
import io.ringflow.engine.api.sink.file.TransactionalFileSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The file sink's transaction protocol, driven by hand as the sink operator drives it. */
class TransactionalFileSinkTest
{
    @TempDir
    Path dir;

    record Subtask(int subtaskIndex, int parallelism, String attemptId) implements SubtaskInfo
    {
        @Override
        public String jobName()
        {
            return "test-job";
        }

        @Override
        public String operatorName()
        {
            return "sink";
        }
    }

    record Reading(long sensor, double value, String unit)
    {
    }

    private TransactionalFileSink<String> lines()
    {
        return TransactionalFileSink.forRecords(dir, RecordEncoder.<String>textLines()).suffix(".txt").build();
    }

    @Test
    void preCommittedOutputIsInvisibleUntilCommitted() throws Exception
    {
        final TransactionalFileSink<String> sink = lines();
        final TransactionalWriter<String, FileCommittable> writer = sink.createWriter(new Subtask(0, 1, "a1"));
        writer.write("one");
        writer.write("two");
        assertThat(CommittedOutput.readLines(dir)).isEmpty();
        final List<FileCommittable> committables = writer.preCommit(7);
        assertThat(committables).hasSize(1);
        assertThat(CommittedOutput.readLines(dir)).as("pre-committed, not committed").isEmpty();
        assertThat(Files.exists(dir.resolve(committables.get(0).pendingFile()))).isTrue();

        sink.createCommitter(new Subtask(0, 1, "a1")).commit(committables.get(0), 7);
        assertThat(CommittedOutput.readLines(dir)).containsExactly("one", "two");
        assertThat(CommittedOutput.parts(dir)).extracting(p -> p.getFileName().toString())
            .containsExactly("part-000000000007-00000-0000-a1.txt");
        assertThat(writer.preCommit(8)).as("nothing written since: no transaction").isEmpty();
        writer.close();
    }

    @Test
    void commitIsIdempotent() throws Exception
    {
        final TransactionalFileSink<String> sink = lines();
        final TransactionalWriter<String, FileCommittable> writer = sink.createWriter(new Subtask(0, 1, "a1"));
        writer.write("x");
        final FileCommittable committable = writer.preCommit(1).get(0);
        final Committer<FileCommittable> committer = sink.createCommitter(new Subtask(0, 1, "a1"));
        committer.commit(committable, 1);
        committer.commit(committable, 1);
        // again from another attempt, as after a restore
        sink.createCommitter(new Subtask(0, 1, "a2")).commit(committable, 1);
        assertThat(CommittedOutput.readLines(dir)).containsExactly("x");
        writer.close();
    }

    @Test
    void aCorruptOrMissingPendingPartIsNeverCommitted() throws Exception
    {
        final TransactionalFileSink<String> sink = lines();
        final TransactionalWriter<String, FileCommittable> writer = sink.createWriter(new Subtask(0, 1, "a1"));
        writer.write("first");
        final FileCommittable corrupt = writer.preCommit(1).get(0);
        writer.write("second");
        final FileCommittable missing = writer.preCommit(2).get(0);
        writer.close();

        // same length, one byte changed: only the checksum can tell
        final Path pending = dir.resolve(corrupt.pendingFile());
        final byte[] bytes = Files.readAllBytes(pending);
        bytes[0] ^= 1;
        Files.write(pending, bytes);
        Files.delete(dir.resolve(missing.pendingFile()));

        final Committer<FileCommittable> restarted = sink.createCommitter(new Subtask(0, 1, "a2"));
        assertThatThrownBy(() -> restarted.commit(corrupt, 1)).isInstanceOf(CommittableDataException.class)
            .hasMessageContaining("checkpoint 1").hasMessageContaining(corrupt.pendingFile())
            .hasMessageContaining("checksum");
        assertThatThrownBy(() -> restarted.commit(missing, 2)).isInstanceOf(CommittableDataException.class)
            .hasMessageContaining("checkpoint 2").hasMessageContaining("missing");
        assertThat(CommittedOutput.parts(dir)).isEmpty();
    }

    @Test
    void partsRollBySizeAndCommitInOrder() throws Exception
    {
        final TransactionalFileSink<String> sink = TransactionalFileSink.forRecords(dir,
            RecordEncoder.<String>textLines()).maxPartBytes(7).build();
        final TransactionalWriter<String, FileCommittable> writer = sink.createWriter(new Subtask(2, 3, "a1"));
        final List<String> written = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            written.add("line-" + i);
            writer.write("line-" + i);
        }
        final List<FileCommittable> committables = writer.preCommit(3);
        // every line is 7 bytes or more: each fills a part
        assertThat(committables).hasSize(20);
        final Committer<FileCommittable> committer = sink.createCommitter(new Subtask(2, 3, "a1"));
        for (final FileCommittable committable : committables)
        {
            committer.commit(committable, 3);
        }
        assertThat(CommittedOutput.readLines(dir)).containsExactlyElementsOf(written);
        writer.close();
    }

    @Test
    void partsRollByAge() throws Exception
    {
        final TransactionalFileSink<String> sink = TransactionalFileSink.forRecords(dir,
            RecordEncoder.<String>textLines()).maxPartAge(Duration.ofNanos(1)).build();
        final TransactionalWriter<String, FileCommittable> writer = sink.createWriter(new Subtask(0, 1, "a1"));
        for (int i = 0; i < 200; i++)
        {
            writer.write("r" + i);
        }
        // the age is checked every 64 records (a clock read per record would cost more than the write): every part
        // is older than a nanosecond by then, so a part is rolled every 64 records, and the rest at the pre-commit
        assertThat(writer.preCommit(1)).hasSize(4);
        writer.close();
    }

    @Test
    void leftoversOfEarlierAttemptsAreAbortedAndTheCurrentAttemptsKept() throws Exception
    {
        final TransactionalFileSink<String> sink = lines();
        final TransactionalWriter<String, FileCommittable> old = sink.createWriter(new Subtask(0, 1, "old"));
        old.write("pre-committed but never in a completed checkpoint");
        old.preCommit(5);
        old.write("in progress when the attempt died");
        // the old attempt's writer is abandoned without close, as when its JVM dies
        final TransactionalWriter<String, FileCommittable> current = sink.createWriter(new Subtask(0, 1, "new"));
        current.write("the current attempt's");
        final FileCommittable kept = current.preCommit(6).get(0);

        sink.createCommitter(new Subtask(0, 1, "new")).abortLeftovers("new");
        try (Stream<Path> files = Files.list(dir))
        {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".part-")))
                .containsExactly(kept.pendingFile());
        }
        current.close();
    }

    @Test
    void lengthPrefixedRecordsReadBack() throws Exception
    {
        final TransactionalFileSink<Reading> sink = TransactionalFileSink.forRecords(dir,
            RecordEncoder.lengthPrefixed(Reading.class)).build();
        final TransactionalWriter<Reading, FileCommittable> writer = sink.createWriter(new Subtask(0, 1, "a1"));
        final List<Reading> readings = new ArrayList<>(List.of(new Reading(1, 20.5, "C"),
            new Reading(2, -3.25, "ÅngströmΩ"), new Reading(Long.MAX_VALUE, Double.NaN, "")));
        // enough records to fill the part's buffer several times, one larger than the buffer, and more after it
        for (int i = 0; i < 10_000; i++)
        {
            readings.add(new Reading(i, i / 7.0, "unit-" + i));
        }
        readings.add(new Reading(-1, 0, "x".repeat(200_000)));
        readings.add(new Reading(-2, 1, "after the large one"));
        for (final Reading reading : readings)
        {
            writer.write(reading);
        }
        sink.createCommitter(new Subtask(0, 1, "a1")).commit(writer.preCommit(1).get(0), 1);
        assertThat(CommittedOutput.readRecords(dir, Reading.class)).containsExactlyElementsOf(readings);
        writer.close();
    }

    @Test
    void aDirectoryIsWrittenByOneJobAtATime() throws Exception
    {
        final TransactionalFileSink<String> first = lines();
        final TransactionalFileSink<String> second = lines();
        final TransactionalWriter<String, FileCommittable> writer = first.createWriter(new Subtask(0, 2, "a1"));
        // the same sink's other subtask shares the lock
        final TransactionalWriter<String, FileCommittable> sibling = first.createWriter(new Subtask(1, 2, "a1"));
        assertThatThrownBy(() -> second.createWriter(new Subtask(0, 1, "b1"))).isInstanceOf(IOException.class)
            .hasMessageContaining(dir.toString()).hasMessageContaining("in use by another job")
            .hasMessageContaining("test-job");
        writer.close();
        sibling.close();
        // released once the first sink's writers closed
        second.createWriter(new Subtask(0, 1, "b1")).close();
    }

    @Test
    void badDirectoriesAreRefusedWhenTheSinkIsBuilt() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertThatThrownBy(() -> TransactionalFileSink.forRecords(file, RecordEncoder.textLines()).build())
            .isInstanceOf(InvalidJobException.class).hasMessageContaining(file.toString())
            .hasMessageContaining("is a file");
        assertThatThrownBy(() -> TransactionalFileSink.forRecords(file.resolve("below"), RecordEncoder.textLines())
            .build()).isInstanceOf(InvalidJobException.class).hasMessageContaining("cannot be created");
        assertThatThrownBy(() -> TransactionalFileSink.forRecords(dir, RecordEncoder.textLines()).maxPartBytes(0))
            .isInstanceOf(InvalidJobException.class).hasMessageContaining("maxPartBytes");
    }
}
