package io.ringflow.samples.cli;

import io.ringflow.engine.api.sink.file.CommittedOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code page-view --output/--fail-*\/--resume} and {@code verify-output}, in process. */
class ExactlyOnceOutputCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    private int run(final String... args)
    {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        final CommandLine commandLine = new CommandLine(new RingflowCommand());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private int runWithFailures(final Path output)
    {
        return run("page-view", "--events", "300000", "--apps", "41", "-p", "2", "--rate", "100000",
            "--checkpoint-interval", "5",
            "--checkpoint-dir", dir.resolve("checkpoints").toString(), "--output", output.toString(),
            "--fail-at", "1000", "--fail-every", "100000", "--fail-seed", "7", "--restarts", "50");
    }

    @Test
    void injectedFailuresLeaveExactlyOnceOutputAndVerifyOutputSaysSo() throws Exception
    {
        final Path output = dir.resolve("out");
        assertThat(runWithFailures(output)).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains("verified: totals equal generated events per app (restarts: ")
            .contains("300,000 updates; 300,000 views generated")
            .contains("exactly once: every app's counts 1..n in order, none missing, none twice");

        assertThat(run("verify-output", output.toString())).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains("exactly once");
    }

    @Test
    void verifyOutputFindsLostAndRepeatedUpdates() throws Exception
    {
        final Path output = dir.resolve("out");
        assertThat(run("page-view", "--events", "200000", "--apps", "13", "--checkpoint-interval", "5",
            "--output", output.toString())).as("stderr: %s", err).isZero();
        final List<Path> parts = CommittedOutput.parts(output);
        // at least the last transaction's part; how many checkpoints completed before it depends on speed
        assertThat(parts).isNotEmpty();

        // a part committed twice under a later name: its updates are written twice
        Files.copy(parts.get(0), output.resolve("part-999999999999-00000-0000-copy"));
        assertThat(run("verify-output", output.toString())).isEqualTo(1);
        assertThat(err.toString()).contains("0 updates lost").containsPattern("[1-9][0-9,]* written twice");
        assertThat(run("verify-output", "--allow-duplicates", output.toString())).isZero();
        assertThat(out.toString()).contains("at least once: none missing");

        // a part lost, with its copy (when the run committed one part only, the copy alone would still hold every
        // update once and in order)
        Files.delete(parts.get(0));
        Files.delete(output.resolve("part-999999999999-00000-0000-copy"));
        assertThat(run("verify-output", "--allow-duplicates", output.toString())).isEqualTo(1);
        assertThat(err.toString()).containsPattern("[1-9][0-9,]* updates lost").contains("app 0: generated");
    }

    @Test
    void badOutputAndFaultOptionsAreUsageErrors() throws Exception
    {
        assertThat(run("page-view", "--events", "1000", "--fail-every", "100")).isEqualTo(2);
        assertThat(err.toString()).contains("--fail-at and --fail-every need --restarts");
        assertThat(run("page-view", "--events", "1000", "--resume")).isEqualTo(2);
        assertThat(err.toString()).contains("--resume needs --checkpoint-dir");
        assertThat(run("page-view", "--events", "0", "--output", dir.resolve("o").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--output needs a bounded run");

        final Path output = dir.resolve("out");
        assertThat(run("page-view", "--events", "1000", "--apps", "5", "--output", output.toString())).isZero();
        assertThat(run("page-view", "--events", "2000", "--apps", "5", "--output", output.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("holds output of a run with --events 1000");

        assertThat(run("verify-output", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("not the output of page-view --output");
        assertThat(run("verify-output", dir.resolve("missing").toString())).isEqualTo(2);
    }
}
