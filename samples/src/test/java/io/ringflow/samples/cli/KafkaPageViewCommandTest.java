package io.ringflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ringflow kafka-page-view}: a run with a failure, on its own in-JVM broker, and its usage errors. */
class KafkaPageViewCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine commandLine = new CommandLine(new RingflowCommand());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void aRunThatFailsOnceStillWritesEveryCountExactlyOnce()
    {
        assertThat(run("kafka-page-view", "--events", "30000", "--apps", "17", "--fail-at", "12000",
            "--checkpoint-interval", "10")).as("stdout: %s%nstderr: %s", out, err).isZero();
        assertThat(out.toString())
            .contains("started a Kafka broker in this JVM")
            .contains("after 1 restart(s)")
            .contains("30,000 count updates")
            .contains("exactly once: every app's counts 1..n, each once and in order");
    }

    @Test
    void usageErrorsExitWithTwo()
    {
        assertThat(run("kafka-page-view", "--resume")).isEqualTo(2);
        assertThat(err.toString()).contains("--resume needs --checkpoint-dir");
        assertThat(run("kafka-page-view", "--events", "0")).isEqualTo(2);
        assertThat(run("kafka-page-view", "--guarantee", "SOMETIMES")).isEqualTo(2);
    }
}
