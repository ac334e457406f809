package io.ringflow.samples.cli;

import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.CollectionSource;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PageViewCommandTest
{
    @Test
    void aFailedJobIsReportedWithItsOperatorSubtaskAndOriginalException() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        final MapFunction<Integer, Integer> failOnTwo = value ->
        {
            if (value == 2)
            {
                throw new IllegalStateException("view 2 is corrupt");
            }
            return value;
        };
        env.fromSource(CollectionSource.of(Integer.class, 1, 2, 3), "views")
            .map(failOnTwo).name("parse")
            .sinkTo(new DiscardSink<>());
        final StringWriter err = new StringWriter();

        try (JobHandle handle = env.execute("failing"))
        {
            assertThatThrownBy(() -> handle.awaitTermination(Duration.ofMinutes(1)))
                .isInstanceOf(JobExecutionException.class);
            PageViewCommand.printFailure(handle, new PrintWriter(err, true));
        }

        assertThat(err.toString())
            .startsWith("ringflow: job 'failing' failed: operator 'parse' (uid ")
            .contains("subtask 0 of 1) threw java.lang.IllegalStateException: view 2 is corrupt")
            .contains("cause:\njava.lang.IllegalStateException: view 2 is corrupt\n\tat ");
    }
}
