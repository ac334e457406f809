package io.ringflow.samples.cli;

import io.ringflow.engine.api.sink.file.CommittedOutput;
import io.ringflow.samples.pageview.OutputManifest;
import io.ringflow.samples.pageview.OutputVerifier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly-once across JVM crashes: the page-view job with exactly-once output runs in a child JVM, which is killed
 * with SIGKILL at a moment drawn from a seed (once the output has grown by a random number of committed parts), then
 * started again with the same command ({@code --resume} from its checkpoint directory), until a run finishes. The
 * committed output must then be exactly the failure-free output.
 *
 * <p>The kill moment is a condition on the output, not a time; a run that finishes before reaching it simply ends the
 * loop. {@code -Dringflow.sigkill.kills=N} raises the number of kills per case, {@code -Dringflow.sigkill.events=N}
 * the views per case so the run outlasts them (the soak: see docs/exactly-once.md).
 */
class SigkillRecoveryTest
{
    private static final int KILLS = Integer.getInteger("ringflow.sigkill.kills", 3);
    /** Views per case: enough that the run outlasts the kills (a soak with many kills needs more). */
    private static final long EVENTS = Long.getLong("ringflow.sigkill.events", 200_000);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}: {1}, {2}, parallelism {3}")
    @CsvSource({
        "11, aligned,   chronicle, 1",
        "12, unaligned, heap,      2",
    })
    void killedAndResumedRunsCommitExactlyOnce(final long seed, final String mode, final String backend,
        final int parallelism) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Path output = dir.resolve("out");
        final Path checkpoints = dir.resolve("checkpoints");
        final List<String> command = ChildJvm.command(List.of("page-view", "--events", Long.toString(EVENTS), "--apps", "97",
            "--rate", "50000", "-p", Integer.toString(parallelism), "--checkpoint-interval", "20",
            "--checkpoint-mode", mode, "--checkpoint-dir", checkpoints.toString(), "--resume",
            "--state-backend", backend, "--output", output.toString(), "--quiet-totals"));
        int kills = 0;
        int runs = 0;
        while (true)
        {
            runs++;
            final Path log = dir.resolve("run-" + runs + ".log");
            final Process child = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
            if (kills < KILLS)
            {
                final int target = parts(output) + 1 + random.nextInt(6);
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(5))
                    .until(() -> !child.isAlive() || parts(output) >= target);
                if (child.isAlive())
                {
                    child.destroyForcibly();
                    child.waitFor(1, TimeUnit.MINUTES);
                    kills++;
                    continue;
                }
            }
            assertThat(child.waitFor(2, TimeUnit.MINUTES)).as("run %d ends", runs).isTrue();
            assertThat(child.exitValue()).as("run %d's exit code; its output:%n%s", runs, Files.readString(log))
                .isZero();
            break;
        }
        System.out.printf("seed %d: %d SIGKILLs in %d runs%n", seed, kills, runs);
        final OutputVerifier.Report report = OutputVerifier.verify(output, OutputManifest.read(output));
        assertThat(report.exactlyOnce()).as("after %d kills in %d runs: %s", kills, runs, report).isTrue();
        assertThat(report.updates()).isEqualTo(EVENTS);
    }

    private static int parts(final Path output) throws IOException
    {
        return Files.isDirectory(output) ? CommittedOutput.parts(output).size() : 0;
    }
}
