package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JvmAccessTest
{
    /** Started in a JVM without Ringflow's flags: submits a job and prints what execute() threw. */
    public static final class SubmitWithoutFlags
    {
        public static void main(final String[] args)
        {
            final JobEnvironment env = JobEnvironment.create();
            env.fromSource(GeneratorSource.bounded(10, Long.class, (i, t) -> i), "numbers").rebalance()
                .sinkTo(new DiscardSink<>());
            try
            {
                env.execute("no-flags").close();
                System.out.println("started");
            }
            catch (final RuntimeException ex)
            {
                System.out.println(ex.getClass().getName() + ": " + ex.getMessage());
            }
        }
    }

    @Test
    void aJvmWithoutTheRequiredFlagGetsAClearErrorInsteadOfAnIllegalAccessError() throws Exception
    {
        final Process process = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"),
            SubmitWithoutFlags.class.getName())
            .redirectErrorStream(true)
            .start();
        final String output = read(process);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(output)
            .contains(IllegalStateException.class.getName())
            .contains(JvmAccess.REQUIRED_FLAG)
            .doesNotContain("IllegalAccessError");
    }

    private static String read(final Process process) throws IOException
    {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
