package io.ringflow.samples.cli;

import io.ringflow.samples.windowed.BruteForceWindows;
import io.ringflow.samples.windowed.TimedView;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class WindowedPageViewCommandTest
{
    private static int run(final StringWriter out, final StringWriter err, final String... args)
    {
        return new CommandLine(new RingflowCommand()).setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true)).execute(args);
    }

    @Test
    void everyWindowMatchesTheBruteForceCountEvenAfterAFailure()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exit = run(out, err, "windowed-page-view", "--events", "200k", "--apps", "50", "--rate", "500",
            "--checkpoint-interval", "10", "--fail-at", "100");
        assertThat(exit).as(out + "\n" + err).isZero();
        assertThat(out.toString())
            .contains("after 1 restart(s)")
            .contains("views per app per 1 min: ")
            .contains("average duration per app, 5 min every 1 min: ")
            .doesNotContain("WRONG");
        assertThat(out.toString().split("every window matches the brute-force count", -1)).hasSize(3);
    }

    @Test
    void theBruteForceCountSeesEveryViewOncePerWindow()
    {
        // tumbling: each view in one window; sliding 5 over 1: in five
        final long views = 10_000;
        final long tumbling = BruteForceWindows.compute(views, 7, 100, 3_000, 60_000, 60_000).values().stream()
            .mapToLong(c -> c.views()).sum();
        final long sliding = BruteForceWindows.compute(views, 7, 100, 3_000, 300_000, 60_000).values().stream()
            .mapToLong(c -> c.views()).sum();
        assertThat(tumbling).isEqualTo(views);
        assertThat(sliding).isEqualTo(5 * views);
        assertThat(TimedView.generate(42, 7, 100, 3_000)).isEqualTo(TimedView.generate(42, 7, 100, 3_000));
    }

    @Test
    void invalidOptionsAreRefusedWithExitCode2()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        assertThat(run(out, err, "windowed-page-view", "--window", "0s")).isEqualTo(2);
        assertThat(err.toString()).contains("window size must be at least 1 ms");
        assertThat(run(out, err, "windowed-page-view", "--slide", "10m")).isEqualTo(2);
        assertThat(err.toString()).contains("must not exceed its size");
        assertThat(run(out, err, "windowed-page-view", "--out-of-orderness", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("is not a duration");
    }
}
