package io.ringflow.samples.cli;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.samples.pageview.PageViewCount;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RingflowCommandTest
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
    void pageViewRunsAndVerifiesTheTotals()
    {
        final int exitCode = run("page-view", "--events", "100000", "--apps", "50");

        assertThat(exitCode).as("exit code; stderr: %s", err).isZero();
        assertThat(out.toString())
            .contains("100,000 views over 50 apps")
            .contains("events:     100,000 generated, 100,000 counts received by the sink")
            .contains("per-app totals (50 apps):")
            .contains("app 49: 2,000")
            .containsPattern("app +0: 2,000 ")
            .contains("verified: totals equal generated events per app");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void aWarmUpLongerThanTheRunLeavesNothingForTheSteadyStateAndSaysSo()
    {
        assertThat(run("page-view", "--events", "100000", "--apps", "50", "--warmup", "3600")).isZero();
        assertThat(out.toString()).contains("after the 3600 s warm-up: no records (the run ended within it)")
            .contains("verified: totals equal generated events per app");
        out.getBuffer().setLength(0);
        assertThat(run("page-view", "--events", "100000", "--apps", "50")).isZero();
        assertThat(out.toString()).doesNotContain("warm-up");
    }

    @Test
    void pageViewWithCheckpointsStillVerifiesTheTotals()
    {
        final int exitCode = run("page-view", "--events", "200000", "--apps", "10", "--checkpoint-interval", "1");

        assertThat(exitCode).as("exit code; stderr: %s", err).isZero();
        assertThat(out.toString()).contains("verified: totals equal generated events per app")
            .containsPattern("checkpoints: [0-9,]+ completed; (µs|us) p50 / p99 / max: end to end \\S+ / \\S+ / " +
                "\\S+, sync \\(slowest task\\) \\S+ / \\S+ / \\S+, async \\S+ / \\S+ / \\S+")
            .containsPattern("checkpoint phases, (µs|us) after the trigger, p50: 'page-views \\(1/1\\)' barrier " +
                "[0-9.]+, acknowledged [0-9.]+; '[^']+' barrier [0-9.]+, acknowledged [0-9.]+; completed [0-9.]+");
    }

    @Test
    void aRunRestoredFromAnUnalignedCheckpointInADirectoryEndsWithExactTotals(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final CompletedCheckpoint checkpoint = checkpointedRun(dir, 10,
            CheckpointConfig.every(Duration.ofDays(1)).unaligned(true), 2);

        final long events = checkpoint.sourcePositions().values().iterator().next().get(0) + 100_000;
        final int restored = run("page-view", "--events", Long.toString(events), "--apps", "10", "-s",
            dir.resolve("chk-" + checkpoint.checkpointId()).toString());
        assertThat(restored).as("exit code; stderr: %s", err).isZero();
        assertThat(out.toString()).contains("verified: totals equal generated events per app");
    }

    @Test
    void aRunRestoredFromTheNewestIncrementalCheckpointEndsWithExactTotals(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final CompletedCheckpoint newest = checkpointedRun(dir, 1000,
            CheckpointConfig.every(Duration.ofDays(1)).incremental(true), 3);
        try (java.util.stream.Stream<java.nio.file.Path> shared = java.nio.file.Files.list(dir.resolve("shared")))
        {
            assertThat(shared.map(path -> path.getFileName().toString()))
                .as("keyed state chains live in shared/").anyMatch(name -> name.contains(".keyed-chk"));
        }

        final long events = newest.sourcePositions().values().iterator().next().get(0) + 100_000;
        final int restored = run("page-view", "--events", Long.toString(events), "--apps", "1000", "-s",
            dir.resolve("chk-" + newest.checkpointId()).resolve("_metadata").toString());
        assertThat(restored).as("exit code; stderr: %s", err).isZero();
        assertThat(out.toString()).contains("verified: totals equal generated events per app");
    }

    @Test
    void checkpointsAndVerifyReportARealJobsCheckpointsAndNameADamagedFile(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final CompletedCheckpoint newest = checkpointedRun(dir, 1000,
            CheckpointConfig.every(Duration.ofDays(1)).incremental(true), 3);
        final String newestFolder = "chk-" + newest.checkpointId();

        assertThat(run("checkpoints", dir.toString())).as("stderr: %s", err).isZero();
        // full or a chain, depending on how many keys changed between the checkpoints (never on timing in assertions)
        assertThat(out.toString()).contains(newestFolder).containsAnyOf("incremental (", "  full  ").contains("intact")
            .doesNotContain("DAMAGED").contains("newest intact: " + dir.resolve(newestFolder).toAbsolutePath());
        assertThat(run("verify", dir.resolve(newestFolder).toString())).as("stderr: %s", err).isZero();
        assertThat(out.toString()).endsWith("intact" + System.lineSeparator());

        final java.nio.file.Path chainFile;
        try (java.util.stream.Stream<java.nio.file.Path> shared = java.nio.file.Files.list(dir.resolve("shared")))
        {
            chainFile = shared.filter(path -> path.getFileName().toString().contains(".keyed-chk")).findFirst()
                .orElseThrow();
        }
        final byte[] bytes = java.nio.file.Files.readAllBytes(chainFile);
        bytes[bytes.length - 1] ^= 0x10;
        java.nio.file.Files.write(chainFile, bytes);
        out.getBuffer().setLength(0);

        assertThat(run("verify", dir.resolve(newestFolder).resolve("_metadata").toString())).isEqualTo(1);
        assertThat(out.toString()).contains("problem: " + chainFile).contains("checksum mismatch")
            .contains("DAMAGED");
        out.getBuffer().setLength(0);
        assertThat(run("checkpoints", dir.toString())).isIn(0, 1);
        assertThat(out.toString()).contains("DAMAGED: " + chainFile);
    }

    @Test
    void inspectShowsTheSeedsConservationLawOnARealCheckpoint(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final CompletedCheckpoint checkpoint = checkpointedRun(dir, 300, CheckpointConfig.every(Duration.ofDays(1)), 1);
        final long position = checkpoint.sourcePositions().get("page-views").get(0);

        assertThat(run("inspect", dir.resolve("chk-" + checkpoint.checkpointId()).toString(), "--entries", "300"))
            .as("stderr: %s", err).isZero();
        final String shown = out.toString();
        assertThat(shown).contains("operator count-per-app: parallelism 1, max parallelism 128")
            .contains(String.format("subtask 0: source position %,d", position))
            .contains("state 'count' VALUE, key java.lang.Long, value java.lang.Long: 300 entries, 300 keys");
        // every view the source had emitted before the barrier is counted once in the keyed state (aligned, one input)
        final java.util.regex.Matcher counts = java.util.regex.Pattern.compile("key group \\d+: \\d+ = (\\d+)")
            .matcher(shown);
        long sum = 0;
        int entries = 0;
        while (counts.find())
        {
            sum += Long.parseLong(counts.group(1));
            entries++;
        }
        assertThat(entries).isEqualTo(300);
        assertThat(sum).isEqualTo(position);

        out.getBuffer().setLength(0);
        assertThat(run("inspect", dir.resolve("chk-" + checkpoint.checkpointId()).toString(), "--key", "7"))
            .isZero();
        // view i is of app i mod 300: app 7 was seen once per full round, and once more if the cut fell past it
        assertThat(out.toString()).containsPattern(": 7 = " + (position / 300 + (position % 300 > 7 ? 1 : 0)) + "\\R")
            .doesNotContain(": 8 = ");

        out.getBuffer().setLength(0);
        assertThat(run("inspect", dir.resolve("chk-" + checkpoint.checkpointId()).toString(), "--operator", "x"))
            .isEqualTo(2);
        assertThat(err.toString()).contains("no operator with uid 'x'").contains("count-per-app, page-views");
        java.nio.file.Files.delete(dir.resolve("chk-" + checkpoint.checkpointId()).resolve("_metadata"));
        assertThat(run("inspect", dir.resolve("chk-" + checkpoint.checkpointId()).toString())).isEqualTo(1);
        assertThat(out.toString()).contains("never committed").contains("cannot be inspected");
    }

    @Test
    void inspectJsonHoldsTheSameFactsInTheDocumentedSchema(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final CompletedCheckpoint checkpoint = checkpointedRun(dir, 50,
            CheckpointConfig.every(Duration.ofDays(1)).incremental(true), 2);
        final long position = checkpoint.sourcePositions().get("page-views").get(0);

        assertThat(run("inspect", dir.resolve("chk-" + checkpoint.checkpointId()).toString(), "--json",
            "--entries", "50")).as("stderr: %s", err).isZero();
        final com.fasterxml.jackson.databind.JsonNode root =
            new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());

        assertThat(root.path("schema").asText()).isEqualTo("ringflow-inspect/1");
        assertThat(root.path("checkpoint").path("id").asLong()).isEqualTo(checkpoint.checkpointId());
        assertThat(root.path("checkpoint").path("kind").asText()).isEqualTo("checkpoint");
        final com.fasterxml.jackson.databind.JsonNode operators = root.path("operators");
        assertThat(operators).hasSize(2);
        assertThat(operators.get(0).path("uid").asText()).isEqualTo("count-per-app");
        assertThat(operators.get(1).path("uid").asText()).isEqualTo("page-views");
        assertThat(operators.get(1).path("sourcePositions").get(0).asLong()).isEqualTo(position);
        final com.fasterxml.jackson.databind.JsonNode count =
            operators.get(0).path("subtasks").get(0).path("keyedStates").get(0);
        assertThat(count.path("name").asText()).isEqualTo("count");
        assertThat(count.path("kind").asText()).isEqualTo("VALUE");
        assertThat(count.path("entries").asLong()).isEqualTo(50);
        // a full snapshot, and a delta only if few enough keys changed between the two checkpoints
        assertThat(operators.get(0).path("subtasks").get(0).path("keyedFiles").size()).isBetween(1, 2);
        long sum = 0;
        for (final com.fasterxml.jackson.databind.JsonNode entry : count.path("entrySamples"))
        {
            sum += Long.parseLong(entry.path("value").asText());
        }
        assertThat(sum).as("the counts of an aligned checkpoint add up to the source position").isEqualTo(position);
    }

    @Test
    void conservationHoldsOnUnalignedCheckpointsWithTheirInFlightRecords(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        checkpointedRun(dir, 10, CheckpointConfig.every(Duration.ofDays(1)).unaligned(true), 4);
        final java.util.List<io.ringflow.state.checkpoint.CheckpointCatalog.Report> reports =
            io.ringflow.state.checkpoint.CheckpointCatalog.list(dir);
        assertThat(reports).isNotEmpty();
        for (final io.ringflow.state.checkpoint.CheckpointCatalog.Report report : reports)
        {
            out.getBuffer().setLength(0);
            assertThat(run("verify", report.folder().toString(), "--conservation"))
                .as("chk-%d: %s %s", report.checkpointId(), out, err).isZero();
            assertThat(out.toString()).contains("conservation: ").contains(": holds");
        }
    }

    @Test
    void conservationFailsWhenCountsAndInFlightRecordsDoNotAddUpToTheSourcePositions(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final io.ringflow.state.checkpoint.StateOutput output = storage.createStateOutput(1, "keyed-0");
        final io.ringflow.state.snapshot.KeyedSnapshotWriter writer = new io.ringflow.state.snapshot.KeyedSnapshotWriter(
            output, 128, new io.ringflow.state.keyed.KeyGroupRange(0, 127), java.util.List.of(
                new io.ringflow.state.snapshot.StateMeta(PageViewCount.COUNT_STATE, io.ringflow.state.keyed.StateKind.VALUE,
                    "java.lang.Long", 1, "java.lang.Long", 1)));
        final io.ringflow.state.codec.CodecBuffer key = io.ringflow.state.codec.CodecBuffer.growable(8);
        final io.ringflow.state.codec.CodecBuffer value = io.ringflow.state.codec.CodecBuffer.growable(8);
        writer.startKeyGroup(5, 1);
        io.ringflow.state.codec.LongCodec.INSTANCE.encode(7L, key, 0);
        io.ringflow.state.codec.LongCodec.INSTANCE.encode(90L, value, 0);
        writer.entry(0, key, 0, 8, null, 0, -1, value, 0, 8);
        writer.finish();
        final io.ringflow.state.checkpoint.StateHandle keyed = output.closeAndGetHandle();
        storage.store(new io.ringflow.state.checkpoint.CheckpointMetadata(1, 1_700_000_000_000L, false,
            java.util.Map.of(PageViewCount.SOURCE_UID, java.util.List.of(100L)),
            java.util.Map.of(PageViewCount.COUNT_UID, new io.ringflow.state.checkpoint.OperatorState(1, 128,
                java.util.List.of(new io.ringflow.state.checkpoint.SubtaskState(keyed, null, null))))), 5);

        assertThat(run("verify", dir.resolve("chk-1").toString(), "--conservation")).isEqualTo(3);
        assertThat(out.toString()).contains("100 views emitted by the sources = 90 counted + 0 in flight: BROKEN (-10)");
    }

    @Test
    void jobsSavepointAndStopReachAJobInAnotherJvm(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
        throws Exception
    {
        final String javaCommand = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process other = new ProcessBuilder(javaCommand, "-cp", System.getProperty("java.class.path"),
            RingflowCommand.class.getName(), "page-view", "--events", "0", "--seconds", "300", "--rate", "10k",
            "--state-backend", "heap", "--checkpoint-interval", "600000", "--checkpoint-dir", dir.toString(),
            "--quiet-totals")
            .redirectErrorStream(true).redirectOutput(dir.resolve("job.log").toFile()).start();
        final String pid = Long.toString(other.pid());
        try
        {
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() ->
            {
                out.getBuffer().setLength(0);
                return run("jobs") == 0 && out.toString().lines()
                    .anyMatch(line -> line.startsWith(pid + " ") && line.contains("page-view-count") &&
                        line.contains("RUNNING"));
            });

            out.getBuffer().setLength(0);
            assertThat(run("savepoint", "page-view-count", "--pid", pid)).as("stderr: %s", err).isZero();
            assertThat(out.toString()).startsWith("savepoint ");
            out.getBuffer().setLength(0);
            assertThat(run("stop", "page-view-count", "--pid", pid)).as("stderr: %s", err).isZero();
            assertThat(out.toString()).startsWith("savepoint ");
            assertThat(other.waitFor(2, TimeUnit.MINUTES)).as("the stopped job's JVM exits").isTrue();

            final java.util.List<io.ringflow.state.checkpoint.CheckpointCatalog.Report> reports =
                io.ringflow.state.checkpoint.CheckpointCatalog.list(dir);
            assertThat(reports).hasSize(2).allMatch(report -> report.savepoint() && report.intact());
            assertThat(run("savepoint", "page-view-count", "--pid", pid)).isEqualTo(2);
            assertThat(err.toString()).contains("no running job named 'page-view-count' in JVM " + pid);
        }
        finally
        {
            other.destroyForcibly();
        }
    }

    @Test
    void everyCommandRefusesACheckpointWithAnyOfItsFilesDamaged(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final CompletedCheckpoint checkpoint = checkpointedRun(dir, 20,
            CheckpointConfig.every(Duration.ofDays(1)).unaligned(true).incremental(true), 2);
        final java.nio.file.Path folder = dir.resolve("chk-" + checkpoint.checkpointId());
        final io.ringflow.state.checkpoint.CheckpointCatalog.Report intact =
            io.ringflow.state.checkpoint.CheckpointCatalog.verify(folder);
        assertThat(intact.intact()).isTrue();
        final java.util.List<java.nio.file.Path> files = new java.util.ArrayList<>();
        files.add(folder.resolve("_metadata"));
        for (final io.ringflow.state.checkpoint.StateHandle handle : intact.metadata().stateHandles())
        {
            files.add(io.ringflow.state.checkpoint.CheckpointCatalog.fileOf(folder, handle));
        }
        final java.util.Random random = new java.util.Random(13);
        for (final java.nio.file.Path file : files)
        {
            final byte[] original = java.nio.file.Files.readAllBytes(file);
            final byte[] damaged = original.clone();
            damaged[random.nextInt(damaged.length)] ^= (byte)(1 + random.nextInt(255));
            java.nio.file.Files.write(file, damaged);
            try
            {
                for (final String[] command : java.util.List.of(new String[] {"verify", folder.toString()},
                    new String[] {"inspect", folder.toString(), "--entries", "5"},
                    new String[] {"inspect", folder.toString(), "--json"},
                    new String[] {"verify", folder.toString(), "--conservation"}))
                {
                    out.getBuffer().setLength(0);
                    assertThat(run(command)).as("%s with %s damaged", command[0], file).isEqualTo(1);
                    assertThat(out.toString()).as("%s with %s damaged", command[0], file)
                        .contains("DAMAGED").doesNotContain("conservation:").doesNotContain("\"schema\"");
                }
                out.getBuffer().setLength(0);
                run("checkpoints", dir.toString());
                assertThat(out.toString()).contains("chk-" + checkpoint.checkpointId()).contains("DAMAGED");
            }
            finally
            {
                java.nio.file.Files.write(file, original);
            }
        }
        assertThat(run("verify", folder.toString())).isZero();
    }

    @Test
    void checkpointsAndVerifyRefuseWhatIsNotACheckpoint(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
    {
        assertThat(run("verify", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("not a checkpoint").contains("chk-<n>");
        assertThat(run("verify", dir.resolve("chk-3").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("no such checkpoint");
        assertThat(run("checkpoints", dir.resolve("absent").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("no such directory");
        assertThat(run("checkpoints", dir.toString())).isEqualTo(1);
        assertThat(out.toString()).contains("no checkpoints in");
    }

    /**
     * The page-view job of the command, run unbounded on the Chronicle backend with checkpoints into {@code dir} taken
     * by hand once the sink has received at least as many counts as there are apps (so every app is in every
     * checkpoint's state, and how many complete never depends on how fast the machine is), then stopped as Ctrl-C
     * stops it.
     *
     * @return the newest of the {@code count} checkpoints taken.
     */
    private static CompletedCheckpoint checkpointedRun(final java.nio.file.Path dir, final int apps,
        final CheckpointConfig.Builder checkpoints, final int count) throws Exception
    {
        final PageViewCount.Options options = PageViewCount.Options.defaults()
            .withEvents(PageViewCount.Options.UNBOUNDED).withApps(apps);
        final JobEnvironment env = JobEnvironment.create(PageViewCount.jobConfig(options).toBuilder()
            .stateBackend(new io.ringflow.state.chronicle.ChronicleStateBackend())
            .checkpointing(checkpoints.storage(new DirectoryCheckpointStorage(dir)).retainOnCancel(true).build())
            .build());
        final PageViewCount job = PageViewCount.build(env, options);
        CompletedCheckpoint newest = null;
        try (JobHandle handle = env.execute("checkpointed-page-view"))
        {
            // every app counted at least once before the first barrier, however the threads are scheduled
            Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> job.recordsReceived() >= apps);
            for (int i = 0; i < count; i++)
            {
                newest = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            }
            job.requestStop();
            assertThat(handle.awaitTermination(Duration.ofMinutes(2))).isEqualTo(JobStatus.FINISHED);
        }
        return newest;
    }

    @Test
    void inconsistentFaultToleranceOptionsAreUsageErrors()
    {
        assertThat(run("page-view", "--checkpoint-mode", "unaligned")).isEqualTo(2);
        assertThat(err.toString()).contains("need --checkpoint-interval");
        assertThat(run("page-view", "--checkpoint-interval", "10", "--checkpoint-mode", "sideways")).isEqualTo(2);
        assertThat(err.toString()).contains("--checkpoint-mode must be aligned, unaligned or at-least-once");
        assertThat(run("page-view", "--allow-non-restored-state")).isEqualTo(2);
        assertThat(err.toString()).contains("only goes with -s/--from-checkpoint");
        assertThat(run("page-view", "--incremental")).isEqualTo(2);
        assertThat(err.toString()).contains("--incremental need --checkpoint-interval");
        assertThat(run("page-view", "--state-backend", "rocksdb")).isEqualTo(2);
        assertThat(err.toString()).contains("--state-backend must be heap or chronicle");
    }

    @Test
    void moreAppsThanTheHeapTablesHoldRunOnMappedTablesAndStateFilesThatAreRemovedAfterwards(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final int apps = io.ringflow.samples.pageview.LongColumn.ON_HEAP_UP_TO + 50_000;
        final java.nio.file.Path state = dir.resolve("state");

        final int exitCode = run("page-view", "--events", Integer.toString(apps), "--apps", Integer.toString(apps),
            "--state-dir", state.toString(), "--quiet-totals", "--checkpoint-interval", "200", "--incremental",
            "--full-snapshot-every", "100", "--checkpoint-dir", dir.resolve("checkpoints").toString());

        assertThat(exitCode).as("exit code; stderr: %s", err).isZero();
        assertThat(out.toString())
            .contains(String.format(java.util.Locale.ROOT, "over all %,d apps: min 1, max 1, sum %,d", apps, apps))
            .contains("verified: totals equal generated events per app");
        try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.walk(state))
        {
            assertThat(left.filter(java.nio.file.Files::isRegularFile))
                .as("state files and mapped tables are gone once the job ended").isEmpty();
        }
    }

    @Test
    void pageViewWithParallelismAndQuietTotalsPrintsASummaryOfTheTotals()
    {
        final int exitCode = run("page-view", "--events", "100_000", "--apps", "1k", "-p", "2", "--idle", "BLOCK",
            "--quiet-totals");

        assertThat(exitCode).as("exit code; stderr: %s", err).isZero();
        assertThat(out.toString())
            .containsPattern("app +9: 100\n")
            .doesNotContainPattern("app +10:")
            .contains("990 more apps; over all 1,000 apps: min 100, max 100, sum 100,000")
            .contains("verified: totals equal generated events per app");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "page-view --events -1          | --events must be >= 0",
        "page-view --apps 0             | --apps must be in [1, 100,000,000]",
        "page-view --apps 101M          | --apps must be in [1, 100,000,000]",
        "page-view --state-backend heap --state-dir d | --state-dir only goes with --state-backend chronicle",
        "page-view --checkpoint-interval 10 --full-snapshot-every 5 | --full-snapshot-every must be at least 1 and only goes with --incremental; was 5 without --incremental",
        "page-view --checkpoint-interval 10 --incremental --full-snapshot-every 0 | --full-snapshot-every must be at least 1",
        "page-view --checkpoint-interval 10 --incremental --slices often | --slices must be auto, always or never; was 'often'",
        "page-view --checkpoint-interval 10 --slices never | --slices only goes with --incremental",
        "page-view --rate -10           | --rate must be >= 0",
        "page-view --parallelism 0      | --parallelism must be in [1, 128]",
        "page-view -p 129               | --parallelism must be in [1, 128]",
        "page-view --seconds -1         | --seconds must be >= 0",
        "page-view --warmup -1          | --warmup must be >= 0",
        "page-view --checkpoint-interval -5 | --checkpoint-interval must be 0 (off) or a positive number",
        "page-view --idle SOMETIMES     | Invalid value for option '--idle'",
        "page-view --key-prefetch -1    | --key-prefetch must be in [0, 256] (0 turns it off), was -1",
        "page-view --key-prefetch 257   | --key-prefetch must be in [0, 256] (0 turns it off), was 257",
        "page-view --events lots        | 'lots' is not a count",
        "page-view --no-such-option     | Unknown option: '--no-such-option'",
        "                               | Missing subcommand",
        "no-such-command                | Unmatched argument"
    })
    void badCommandLinesExitWithTwoAndSayWhy(final String args, final String message)
    {
        final int exitCode = run(args == null ? new String[0] : args.trim().split(" +"));

        assertThat(exitCode).isEqualTo(2);
        // picocli prints the usage, or, when the mistake resembles a command or option, what was probably meant
        assertThat(err.toString()).contains(message).containsAnyOf("Usage:", "Did you mean");
    }

    @Test
    void helpDescribesTheCommandsAndOptions()
    {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("Usage: ringflow", "page-view", "Exit codes:");

        out.getBuffer().setLength(0);
        assertThat(run("help", "page-view")).isZero();
        assertThat(out.toString()).contains("--events", "--apps", "--rate", "--parallelism", "--idle", "--seconds",
            "--quiet-totals", "BUSY_SPIN, YIELD,", "Default: 50M");
    }

    @Test
    void versionNamesRingflowAndTheJvm()
    {
        assertThat(run("--version")).isZero();
        assertThat(out.toString()).contains("ringflow ", "Java " + Runtime.version());
    }

    @Test
    void countsAcceptSeparatorsAndSuffixes()
    {
        final CountConverter converter = new CountConverter();
        assertThat(converter.convert("50000000")).isEqualTo(50_000_000L);
        assertThat(converter.convert("50_000_000")).isEqualTo(50_000_000L);
        assertThat(converter.convert("50,000,000")).isEqualTo(50_000_000L);
        assertThat(converter.convert("50M")).isEqualTo(50_000_000L);
        assertThat(converter.convert("2k")).isEqualTo(2_000L);
        assertThat(converter.convert("1G")).isEqualTo(1_000_000_000L);
        assertThat(converter.convert("-1")).isEqualTo(-1L);
    }
}
