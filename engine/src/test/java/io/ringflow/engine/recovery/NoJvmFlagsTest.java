package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.heap.HeapStateBackend;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Ringflow on its heap backend runs in a JVM started with none of its flags ({@code ringflow.jvm.flags}: no
 * {@code --add-opens}, no {@code --add-exports}): rings, codecs, heap state, checkpoints and a restore. Run by the
 * engine's own surefire execution {@code no-jvm-flags}, whose JVM gets no flag; the default execution, whose JVM has
 * them all, leaves it out (tag {@value #TAG}).
 */
@Tag(NoJvmFlagsTest.TAG)
class NoJvmFlagsTest
{
    /** The tag of the tests that must run without Ringflow's JVM flags. */
    static final String TAG = "no-jvm-flags";

    private static final long KEYS = 7;

    @BeforeAll
    static void theJvmReallyHasNoneOfRingflowsFlags()
    {
        final Module unnamed = NoJvmFlagsTest.class.getModule();
        assertThat(Object.class.getModule().isExported("jdk.internal.misc", unnamed))
            .as("jdk.internal.misc exported to the class path: this JVM got --add-exports").isFalse();
        assertThat(Object.class.getModule().isOpen("java.lang", unnamed))
            .as("java.lang open to the class path: this JVM got --add-opens").isFalse();
        assertThat(Object.class.getModule().isOpen("java.nio", unnamed)).isFalse();
        assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments())
            .noneMatch(argument -> argument.startsWith("--add-") || argument.contains("chronicle"));
    }

    @Test
    void aKeyedJobOnTheHeapBackendCheckpointsAndRestoresWithoutFlags() throws Exception
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(new HeapStateBackend())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 2);
        try (JobHandle handle = env.execute("no-jvm-flags"))
        {
            job.source.openUpTo(10_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 10_000);
            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            assertThat(checkpoint.sourcePositions().get("numbers")).containsExactly(10_000L);
            assertThat(checkpoint.stateSizeBytes()).isPositive();

            // a failure: the next attempt restores the checkpoint (keyed counts, operator state, source position)
            job.armed.set(true);
            job.source.openUpTo(20_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            job.source.finishAt(30_000);
            TestJobs.awaitFinished(handle);

            assertThat(handle.restartCount()).isEqualTo(1);
            assertThat(job.sinkCountsAreExactFor(30_000)).as("counts per key %s", job.sinkCounts).isTrue();
            assertThat(job.processedAtClose.values().stream().mapToLong(Long::longValue).sum())
                .as("records processed, from operator state").isEqualTo(30_000);
        }
    }

    @Test
    void theChronicleBackendRefusesToStartNamingTheFlagsItNeeds()
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(new ChronicleStateBackend())
            .build());
        job.build(env, 1);
        final Throwable failure = catchThrowable(() -> env.execute("no-jvm-flags-chronicle").close());

        assertThat(failure).isNotNull()
            .hasStackTraceContaining("IllegalStateException")
            // the two flags Chronicle cannot run without, and nothing it can
            .hasStackTraceContaining("without: --add-opens=java.base/java.lang.reflect=ALL-UNNAMED " +
                "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED.")
            .hasStackTraceContaining("HeapStateBackend");
        for (Throwable cause = failure; cause != null; cause = cause.getCause())
        {
            // checked before Chronicle initialises anything: it never fails deep inside, and stays usable
            assertThat(cause).isNotInstanceOfAny(ExceptionInInitializerError.class, NoClassDefFoundError.class,
                IllegalAccessError.class);
        }
        assertThat(TestJobs.liveThreadsOf("no-jvm-flags-chronicle")).isEmpty();
    }
}
