package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** An in-memory checkpoint's files by name: found by name, replaced under the same name, all of them listed once. */
class CheckpointFilesTest
{
    @Test
    void filesAreFoundByNameReplacedUnderTheSameNameAndListedOnceEach()
    {
        final ChunkPool pool = new ChunkPool();
        final CheckpointFiles files = new CheckpointFiles();
        final List<InMemoryFile> added = new ArrayList<>();
        // more than the arrays hold at first
        for (int i = 0; i < 9; i++)
        {
            final InMemoryFile file = new InMemoryFile(pool);
            files.put("task-" + i + ".keyed", file);
            added.add(file);
        }
        final InMemoryFile replacement = new InMemoryFile(pool);
        files.put("task-3.keyed", replacement);
        added.set(3, replacement);

        for (int i = 0; i < 9; i++)
        {
            assertThat(files.get("task-" + i + ".keyed")).isSameAs(added.get(i));
        }
        assertThat(files.get("task-9.keyed")).isNull();
        assertThat(files.get(new String("task-0.keyed"))).as("found by equal name, not by identity")
            .isSameAs(added.get(0));
        final List<InMemoryFile> listed = new ArrayList<>();
        files.addAllTo(listed);
        assertThat(listed).containsExactlyElementsOf(added);
    }
}
