package io.ringflow.samples.pageview;

import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class PageViewCountTest
{
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @ParameterizedTest(name = "parallelism {0}")
    @CsvSource({"1", "2"})
    void totalsPerAppEqualTheViewsGeneratedPerApp(final int parallelism) throws Exception
    {
        final long events = 200_000;
        final int apps = 37;
        final PageViewCount.Options options = PageViewCount.Options.defaults()
            .withEvents(events).withApps(apps).withParallelism(parallelism);
        final JobEnvironment env = JobEnvironment.create(PageViewCount.jobConfig(options));
        final PageViewCount job = PageViewCount.build(env, options);

        try (JobHandle handle = env.execute(PageViewCount.JOB_NAME))
        {
            assertThat(handle.awaitTermination(TIMEOUT)).isEqualTo(JobStatus.FINISHED);
        }

        final PageViewCount.Result result = job.result();
        assertThat(result.mismatches()).isEmpty();
        assertThat(result.verified()).isTrue();
        assertThat(result.generated()).isEqualTo(events);
        assertThat(result.received()).isEqualTo(events);
        assertThat(job.recordsReceived()).isEqualTo(events);
        for (int app = 0; app < apps; app++)
        {
            final long generated = events / apps + (app < events % apps ? 1 : 0);
            assertThat(result.counts().get(app)).as("total of app %d", app).isEqualTo(generated);
            assertThat(result.expectedCounts().get(app)).as("expected count of app %d", app).isEqualTo(generated);
        }
        final Histogram latencies = new Histogram(3);
        job.takeIntervalLatencies(latencies);
        assertThat(latencies.getTotalCount()).isEqualTo(events);
    }

    @Test
    void anUnboundedJobStoppedOnRequestFinishesAndVerifies() throws Exception
    {
        final PageViewCount.Options options = PageViewCount.Options.defaults()
            .withEvents(PageViewCount.Options.UNBOUNDED).withApps(101).withParallelism(2);
        final JobEnvironment env = JobEnvironment.create(PageViewCount.jobConfig(options));
        final PageViewCount job = PageViewCount.build(env, options);

        try (JobHandle handle = env.execute(PageViewCount.JOB_NAME))
        {
            await().atMost(TIMEOUT).until(() -> job.recordsReceived() >= 50_000);
            job.requestStop();
            assertThat(handle.awaitTermination(TIMEOUT)).isEqualTo(JobStatus.FINISHED);
        }

        final PageViewCount.Result result = job.result();
        assertThat(result.mismatches()).isEmpty();
        assertThat(result.generated()).isGreaterThanOrEqualTo(50_000).isEqualTo(result.received());
        assertThat(result.counts().sum()).isEqualTo(result.generated());
    }

    @Test
    void resultIsRefusedWhileTheJobRuns() throws Exception
    {
        final PageViewCount.Options options = PageViewCount.Options.defaults()
            .withEvents(PageViewCount.Options.UNBOUNDED).withApps(3);
        final JobEnvironment env = JobEnvironment.create(PageViewCount.jobConfig(options));
        final PageViewCount job = PageViewCount.build(env, options);

        try (JobHandle handle = env.execute(PageViewCount.JOB_NAME))
        {
            assertThatThrownBy(job::result).isInstanceOf(IllegalStateException.class);
            job.requestStop();
            assertThat(handle.awaitTermination(TIMEOUT)).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(job.result().verified()).isTrue();
    }

    @ParameterizedTest(name = "apps {0}, emitted {1}")
    @CsvSource({
        "1, 5",
        "7, 0 0",
        "7, 3 2",
        "12, 100 99 99 98",
        "10, 23 1 0 57 12 8",
        "13, 1000 999 1000",
        "64, 200 200"
    })
    void expectedCountsEqualABruteForceCount(final int apps, final String emittedPerSubtask)
    {
        final long[] emitted = Arrays.stream(emittedPerSubtask.split(" ")).mapToLong(Long::parseLong).toArray();
        final long[] bruteForce = new long[apps];
        for (int subtask = 0; subtask < emitted.length; subtask++)
        {
            for (long k = 0; k < emitted[subtask]; k++)
            {
                bruteForce[(int)PageViewCount.appOf(subtask + k * emitted.length, apps)]++;
            }
        }
        assertThat(PageViewCount.expectedCounts(apps, emitted)).containsExactly(bruteForce);
    }

    @Test
    void optionsRefuseInvalidValues()
    {
        final PageViewCount.Options defaults = PageViewCount.Options.defaults();
        assertThatThrownBy(() -> defaults.withEvents(-1)).hasMessageContaining("events");
        assertThatThrownBy(() -> defaults.withApps(0)).hasMessageContaining("apps");
        assertThatThrownBy(() -> defaults.withRate(-5)).hasMessageContaining("rate");
        assertThatThrownBy(() -> defaults.withParallelism(0)).hasMessageContaining("parallelism");
        assertThatThrownBy(() -> defaults.withIdleStrategy(null)).hasMessageContaining("idleStrategy");
    }
}
