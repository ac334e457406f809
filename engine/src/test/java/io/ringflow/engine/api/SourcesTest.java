package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.api.source.FileLineSource;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SourcesTest
{
    private static SubtaskInfo subtask(final int index, final int parallelism)
    {
        return new SubtaskInfo()
        {
            @Override
            public String jobName()
            {
                return "test";
            }

            @Override
            public String operatorName()
            {
                return "source";
            }

            @Override
            public int subtaskIndex()
            {
                return index;
            }

            @Override
            public int parallelism()
            {
                return parallelism;
            }
        };
    }

    private static <T> List<T> drain(final SourceReader<T> reader, final int batch) throws Exception
    {
        final List<T> out = new ArrayList<>();
        while (reader.pollNext(out::add, batch) != SourceReader.END_OF_INPUT)
        {
            // keep polling
        }
        return out;
    }

    @Test
    void generatorSubtasksSplitTheIndicesAndTogetherProduceEachExactlyOnce() throws Exception
    {
        final GeneratorSource<Long> source = GeneratorSource.bounded(1001, Long.class, (i, t) -> i);
        final List<Long> all = new ArrayList<>();
        for (int s = 0; s < 3; s++)
        {
            final List<Long> part = drain(source.createReader(subtask(s, 3)), 17);
            final int subtask = s;
            assertThat(part).allMatch(i -> i % 3 == subtask);
            all.addAll(part);
        }
        all.sort(null);
        assertThat(all).hasSize(1001).first().isEqualTo(0L);
        assertThat(all.get(1000)).isEqualTo(1000L);
    }

    @Test
    void generatorResumesExactlyFromAReportedPosition() throws Exception
    {
        final Source<Long> source = GeneratorSource.bounded(100, Long.class, (i, t) -> i * 10);
        final SourceReader<Long> first = source.createReader(subtask(1, 2));
        final List<Long> before = new ArrayList<>();
        first.pollNext(before::add, 7);
        final long position = first.position();
        final List<Long> rest = drain(first, 5);

        final SourceReader<Long> resumed = source.createReader(subtask(1, 2));
        resumed.seek(position);
        assertThat(position).isEqualTo(7);
        assertThat(drain(resumed, 100)).isEqualTo(rest);
        assertThatThrownBy(() -> resumed.seek(51)).hasMessageContaining("outside");
    }

    @Test
    void fixedRateGeneratorStampsRecordsWithTheirScheduledTime() throws Exception
    {
        final List<long[]> stamped = new ArrayList<>();
        final SourceReader<long[]> reader = GeneratorSource.bounded(50, long[].class, (i, t) -> new long[] {i, t})
            .withRate(1_000_000).createReader(subtask(0, 1));
        while (stamped.size() < 50)
        {
            reader.pollNext(stamped::add, 100);
        }
        for (int i = 1; i < stamped.size(); i++)
        {
            // 1 µs apart exactly: the scheduled times, not the times the records happened to be made
            assertThat(stamped.get(i)[1] - stamped.get(i - 1)[1]).isEqualTo(1_000);
        }
    }

    @Test
    void collectionSourceSplitsElementsAcrossSubtasks() throws Exception
    {
        final CollectionSource<String> source = CollectionSource.of(String.class, "a", "b", "c", "d", "e");
        assertThat(drain(source.createReader(subtask(0, 2)), 10)).containsExactly("a", "c", "e");
        assertThat(drain(source.createReader(subtask(1, 2)), 10)).containsExactly("b", "d");
    }

    @Test
    void fileSourceReadsLinesAndItsByteOffsetPositionResumesExactly(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("lines.txt");
        Files.write(file, "first\r\nsecond line\n\nünïcødé ✓\nlast without newline".getBytes(StandardCharsets.UTF_8));
        final FileLineSource source = new FileLineSource(file);
        assertThat(source.maxParallelism()).isEqualTo(1);
        assertThat(drain(source.createReader(subtask(0, 1)), 2))
            .containsExactly("first", "second line", "", "ünïcødé ✓", "last without newline");

        final SourceReader<String> reader = source.createReader(subtask(0, 1));
        final List<String> head = new ArrayList<>();
        reader.pollNext(head::add, 2);
        assertThat(head).containsExactly("first", "second line");
        assertThat(reader.position()).isEqualTo("first\r\nsecond line\n".getBytes(StandardCharsets.UTF_8).length);

        final SourceReader<String> resumed = source.createReader(subtask(0, 1));
        resumed.seek(reader.position());
        assertThat(drain(resumed, 100)).containsExactly("", "ünïcødé ✓", "last without newline");
        reader.close();
        resumed.close();
    }

    @Test
    void fileSourceNamesAMissingFile(@TempDir final Path dir)
    {
        final Path missing = dir.resolve("missing.txt");
        assertThatThrownBy(() -> new FileLineSource(missing).createReader(subtask(0, 1)))
            .hasMessageContaining(missing.toString());
    }
}
