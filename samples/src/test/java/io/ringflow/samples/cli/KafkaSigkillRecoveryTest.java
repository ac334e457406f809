package io.ringflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.ringflow.connectors.kafka.CommittedRecords;
import io.ringflow.connectors.kafka.local.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka → Ringflow → Kafka exactly once across JVM crashes: {@code kafka-page-view --resume} runs in a child JVM
 * against a broker in this JVM and is killed with SIGKILL once the committed output has grown by a number of records
 * drawn from a seed, then started again with the same command, until a run finishes. The finishing run reads input
 * and output back with {@code read_committed} and exits 0 only when every app's counts are 1..n exactly once: the
 * transactions a killed JVM pre-committed were committed by the next one (resumed from their producer id and
 * epoch), and those it left open were aborted. The kill moment is a condition on the output, not a time.
 */
class KafkaSigkillRecoveryTest
{
    private static final int KILLS = Integer.getInteger("ringflow.sigkill.kills", 2);
    private static final long EVENTS = Long.getLong("ringflow.sigkill.events", 300_000);
    private static LocalKafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() throws Exception
    {
        broker = LocalKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker()
    {
        broker.close();
    }

    @Test
    void killedAndResumedRunsWriteEveryCountExactlyOnce() throws Exception
    {
        final SplittableRandom random = new SplittableRandom(21);
        final List<String> command = ChildJvm.command(List.of("kafka-page-view", "--bootstrap-servers",
            broker.bootstrapServers(), "--events", Long.toString(EVENTS), "--apps", "97", "--partitions", "3",
            "-p", "2", "--checkpoint-interval", "20", "--checkpoint-dir", dir.resolve("checkpoints").toString(),
            "--resume"));
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
                final long target = committedOutput() + 1 + random.nextInt((int)(EVENTS / 10));
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !child.isAlive() || committedOutput() >= target);
                if (child.isAlive())
                {
                    child.destroyForcibly();
                    child.waitFor(1, TimeUnit.MINUTES);
                    kills++;
                    continue;
                }
            }
            assertThat(child.waitFor(3, TimeUnit.MINUTES)).as("run %d ends", runs).isTrue();
            final String output = Files.readString(log);
            assertThat(child.exitValue()).as("run %d's exit code; its output:%n%s", runs, output).isZero();
            assertThat(output).contains("exactly once: every app's counts 1..n, each once and in order")
                .contains(String.format("%,d count updates", EVENTS));
            break;
        }
        // how many kills land depends on how fast the runs go, so it is reported, not asserted (as in
        // SigkillRecoveryTest): a run that finishes before its kill moment simply ends the loop
        System.out.printf("%d SIGKILLs in %d runs%n", kills, runs);
    }

    /** @return how far a read_committed consumer of the output topic can read now (records and markers). */
    private static long committedOutput()
    {
        return CommittedRecords.lastStableOffsets(broker.bootstrapServers(), "app-counts");
    }
}
