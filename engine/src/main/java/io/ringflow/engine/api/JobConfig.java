package io.ringflow.engine.api;

import io.ringflow.state.backend.StateBackend;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import io.ringflow.state.keyed.KeyGroups;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Settings of a job's runtime, immutable and validated when built: an invalid value fails {@link Builder#build()}
 * with a message that names the option.
 */
public final class JobConfig
{
    /** The smallest slot: its 8-byte header and a checkpoint barrier. A record must encode to at most slotSize - 8. */
    public static final int MIN_SLOT_SIZE = 32;
    /** Ring slots per burst of key hints by default; see {@link Builder#keyPrefetch}. */
    public static final int DEFAULT_KEY_PREFETCH = 16;
    /** The most ring slots per burst of key hints. */
    public static final int MAX_KEY_PREFETCH = 256;

    private final int defaultParallelism;
    private final int maxParallelism;
    private final int ringSize;
    private final int slotSize;
    private final int publishBatch;
    /** As given to the builder: 0 means derived from the ring size. */
    private final int publishBatchSetting;
    private final int readBatch;
    private final int keyPrefetch;
    private final IdleStrategyKind idleStrategy;
    private final long maxParkNanos;
    private final boolean chaining;
    private final boolean specializeChains;
    private final boolean pinThreads;
    private final int[] cpus;
    private final CheckpointingMode checkpointingMode;
    private final CheckpointConfig checkpointing;
    private final RestartStrategy restartStrategy;
    private final Path restoreFrom;
    private final Path resumeFrom;
    private final boolean allowNonRestoredState;
    private final StateBackend stateBackend;
    private final java.time.Clock clock;
    private final long autoWatermarkIntervalMillis;
    private final int timerFiringBatch;

    private JobConfig(final Builder b)
    {
        clock = b.clock;
        autoWatermarkIntervalMillis = b.autoWatermarkIntervalMillis;
        timerFiringBatch = b.timerFiringBatch;
        stateBackend = b.stateBackend;
        restartStrategy = b.restartStrategy;
        restoreFrom = b.restoreFrom;
        resumeFrom = b.resumeFrom;
        allowNonRestoredState = b.allowNonRestoredState;
        checkpointing = b.checkpointing;
        checkpointingMode = b.checkpointingMode;
        defaultParallelism = b.defaultParallelism;
        maxParallelism = b.maxParallelism;
        ringSize = b.ringSize;
        slotSize = b.slotSize;
        publishBatchSetting = b.publishBatch;
        publishBatch = b.publishBatch > 0 ? b.publishBatch : Math.max(1, Math.min(256, ringSize / 4));
        readBatch = b.readBatch;
        keyPrefetch = b.keyPrefetch;
        idleStrategy = b.idleStrategy;
        maxParkNanos = b.maxParkNanos;
        chaining = b.chaining;
        specializeChains = b.specializeChains;
        pinThreads = b.pinThreads;
        cpus = b.cpus == null ? null : b.cpus.clone();
    }

    /** @return a builder with the defaults. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the defaults. */
    public static JobConfig defaults()
    {
        return builder().build();
    }

    /** @return parallelism of operators that do not set their own. */
    public int defaultParallelism()
    {
        return defaultParallelism;
    }

    /** @return number of key groups; the upper bound of any operator's parallelism. */
    public int maxParallelism()
    {
        return maxParallelism;
    }

    /** @return slots per channel ring. */
    public int ringSize()
    {
        return ringSize;
    }

    /** @return bytes per slot, header included. */
    public int slotSize()
    {
        return slotSize;
    }

    /** @return records a writer claims before publishing them at once. */
    public int publishBatch()
    {
        return publishBatch;
    }

    /** @return slots a task reads from one channel before it moves to the next; also records a source emits per cycle. */
    public int readBatch()
    {
        return readBatch;
    }

    /**
     * @return how many ring slots' keys a keyed task passes to its state as one burst of hints before processing
     *     them, so that their cache misses overlap (0: none); see {@link Builder#keyPrefetch}.
     */
    public int keyPrefetch()
    {
        return keyPrefetch;
    }

    /** @return how idle task threads wait. */
    public IdleStrategyKind idleStrategy()
    {
        return idleStrategy;
    }

    /** @return the longest single park of an idle thread, for BACKOFF and BLOCK. */
    public long maxParkNanos()
    {
        return maxParkNanos;
    }

    /** @return whether forward-connected operators of equal parallelism are fused into one task. */
    public boolean chaining()
    {
        return chaining;
    }

    /**
     * @return whether each chain runs on private copies of the engine's record-path classes (outputs, channel
     *     inputs, operators), so the JIT sees one receiver class per call site and inlines the chain; false runs the
     *     shared classes, the general path.
     */
    public boolean specializeChains()
    {
        return specializeChains;
    }

    /** @return whether task threads are pinned to cores. */
    public boolean pinThreads()
    {
        return pinThreads;
    }

    /** @return the cores task threads are pinned to, round robin; null for all cores. */
    public int[] cpus()
    {
        return cpus == null ? null : cpus.clone();
    }

    /**
     * @return how tasks with several input channels treat barriers: EXACTLY_ONCE aligns them (a channel whose
     *     barrier arrived is not read until every channel delivered it), AT_LEAST_ONCE never blocks.
     */
    public CheckpointingMode checkpointingMode()
    {
        return checkpointingMode;
    }

    /** @return periodic checkpoints, or null when checkpoints are taken on demand only. */
    public CheckpointConfig checkpointing()
    {
        return checkpointing;
    }

    /** @return what the job does when an attempt fails. */
    public RestartStrategy restartStrategy()
    {
        return restartStrategy;
    }

    /** @return the checkpoint or savepoint folder ({@code .../chk-<n>}) the job starts from, or null. */
    public Path restoreFrom()
    {
        return restoreFrom;
    }

    /** @return the checkpoint directory whose newest intact checkpoint the job starts from, if any; or null. */
    public Path resumeFrom()
    {
        return resumeFrom;
    }

    /** @return whether state of operators the job no longer has may be dropped on restore. */
    public boolean allowNonRestoredState()
    {
        return allowNonRestoredState;
    }

    /** @return where keyed state lives. */
    public StateBackend stateBackend()
    {
        return stateBackend;
    }

    /** @return the clock processing time is read from (timers, watermark intervals, idleness). */
    public java.time.Clock clock()
    {
        return clock;
    }

    /** @return how often, in processing-time milliseconds, periodic watermark generators are asked to emit. */
    public long autoWatermarkIntervalMillis()
    {
        return autoWatermarkIntervalMillis;
    }

    /** @return the most timers an operator fires in one go before its task looks at its inputs (and barriers) again. */
    public int timerFiringBatch()
    {
        return timerFiringBatch;
    }

    /** @return a builder holding these settings. */
    public Builder toBuilder()
    {
        final Builder b = new Builder();
        b.defaultParallelism = defaultParallelism;
        b.maxParallelism = maxParallelism;
        b.ringSize = ringSize;
        b.slotSize = slotSize;
        b.publishBatch = publishBatchSetting;
        b.readBatch = readBatch;
        b.keyPrefetch = keyPrefetch;
        b.idleStrategy = idleStrategy;
        b.maxParkNanos = maxParkNanos;
        b.chaining = chaining;
        b.specializeChains = specializeChains;
        b.pinThreads = pinThreads;
        b.cpus = cpus;
        b.checkpointingMode = checkpointingMode;
        b.checkpointing = checkpointing;
        b.restartStrategy = restartStrategy;
        b.restoreFrom = restoreFrom;
        b.resumeFrom = resumeFrom;
        b.allowNonRestoredState = allowNonRestoredState;
        b.stateBackend = stateBackend;
        b.clock = clock;
        b.autoWatermarkIntervalMillis = autoWatermarkIntervalMillis;
        b.timerFiringBatch = timerFiringBatch;
        return b;
    }

    @Override
    public String toString()
    {
        return "JobConfig{defaultParallelism=" + defaultParallelism + ", maxParallelism=" + maxParallelism +
            ", ringSize=" + ringSize + ", slotSize=" + slotSize + ", publishBatch=" + publishBatch +
            ", readBatch=" + readBatch + ", keyPrefetch=" + keyPrefetch + ", idleStrategy=" + idleStrategy +
            ", maxParkNanos=" + maxParkNanos +
            ", chaining=" + chaining + ", specializeChains=" + specializeChains + ", pinThreads=" + pinThreads + ", cpus=" + Arrays.toString(cpus) +
            ", checkpointingMode=" + checkpointingMode + ", checkpointing=" + checkpointing +
            ", restartStrategy=" + restartStrategy + ", restoreFrom=" + restoreFrom + ", resumeFrom=" + resumeFrom +
            ", allowNonRestoredState=" + allowNonRestoredState + ", stateBackend=" + stateBackend +
            ", clock=" + clock + ", autoWatermarkIntervalMillis=" + autoWatermarkIntervalMillis +
            ", timerFiringBatch=" + timerFiringBatch + '}';
    }

    /**
     * Collects settings; {@link #build()} validates them all.
     */
    public static final class Builder
    {
        private int defaultParallelism = 1;
        private int maxParallelism = KeyGroups.DEFAULT_MAX_PARALLELISM;
        private int ringSize = 4096;
        private int slotSize = 128;
        private int publishBatch;
        private int readBatch = 256;
        private int keyPrefetch = DEFAULT_KEY_PREFETCH;
        private IdleStrategyKind idleStrategy = IdleStrategyKind.BACKOFF;
        private long maxParkNanos = 100_000;
        private boolean chaining = true;
        private boolean specializeChains = true;
        private boolean pinThreads;
        private int[] cpus;
        private CheckpointingMode checkpointingMode = CheckpointingMode.EXACTLY_ONCE;
        private CheckpointConfig checkpointing;
        private RestartStrategy restartStrategy = RestartStrategy.none();
        private Path restoreFrom;
        private Path resumeFrom;
        private boolean allowNonRestoredState;
        private StateBackend stateBackend = new ChronicleStateBackend();
        private java.time.Clock clock = java.time.Clock.systemUTC();
        private long autoWatermarkIntervalMillis = 200;
        private int timerFiringBatch = 1024;

        private Builder()
        {
        }

        /** @param value parallelism of operators that set none (default 1). @return this */
        public Builder defaultParallelism(final int value)
        {
            defaultParallelism = value;
            return this;
        }

        /** @param value number of key groups (default 128); fixed for the life of keyed state. @return this */
        public Builder maxParallelism(final int value)
        {
            maxParallelism = value;
            return this;
        }

        /** @param value slots per ring, a power of two (default 4096). @return this */
        public Builder ringSize(final int value)
        {
            ringSize = value;
            return this;
        }

        /** @param value bytes per slot, header of 8 included; a multiple of 8 (default 128). @return this */
        public Builder slotSize(final int value)
        {
            slotSize = value;
            return this;
        }

        /**
         * @param value records claimed before one publish, below ringSize; 0 (the default) derives it:
         *              min(256, ringSize/4).
         * @return this
         */
        public Builder publishBatch(final int value)
        {
            publishBatch = value;
            return this;
        }

        /** @param value slots read from one channel per turn, and records a source emits per cycle (default 256). @return this */
        public Builder readBatch(final int value)
        {
            readBatch = value;
            return this;
        }

        /**
         * How far ahead a keyed task looks up its state's memory. Before processing records sent by a {@code Long}
         * key, a task whose head is a keyed process or reduce operator reads the keys in its next {@code value} ring
         * slots and passes them to the state store as one burst of hints ({@code KeyedStateStore.prefetch}); the
         * default store then touches each key's home slot in its value states' hot-key fronts, so that their cache
         * misses overlap instead of following one another. It does so only while a front's table (one per state and
         * subtask) has outgrown the near caches, from 65,536 slots (reached at the 16,385th key); below that it costs
         * only the check. At a million keys the page-view job went from 3.63 M to 4.72 M records/s in the sample and
         * from 4.90 M to 7.24 M in JMH on the reference machine (docs/benchmarks.md, "Key hints").
         *
         * @param value ring slots per burst of hints, 0 to 256 (0 turns them off; default 16).
         * @return this
         */
        public Builder keyPrefetch(final int value)
        {
            keyPrefetch = value;
            return this;
        }

        /** @param value how idle threads wait (default BACKOFF). @return this */
        public Builder idleStrategy(final IdleStrategyKind value)
        {
            idleStrategy = value;
            return this;
        }

        /** @param value the longest single park, for BACKOFF and BLOCK (default 100 µs). @return this */
        public Builder maxParkNanos(final long value)
        {
            maxParkNanos = value;
            return this;
        }

        /** @param value whether to fuse forward-connected operators (default true). @return this */
        public Builder chaining(final boolean value)
        {
            chaining = value;
            return this;
        }

        /**
         * @param value whether each chain runs on private copies of the engine's record-path classes (default
         *              true), which lets the JIT inline a whole chain; false runs the shared classes (the general
         *              path, same results, slower when a JVM runs several different chains).
         * @return this
         */
        public Builder specializeChains(final boolean value)
        {
            specializeChains = value;
            return this;
        }

        /**
         * @param value whether to pin each task thread to a core (default false).
         * @return this
         */
        public Builder pinThreads(final boolean value)
        {
            pinThreads = value;
            return this;
        }

        /**
         * @param value the cores to pin task threads to, round robin (default: all cores). Implies pinning.
         * @return this
         */
        public Builder cpus(final int... value)
        {
            cpus = value.clone();
            pinThreads = true;
            return this;
        }

        /**
         * @param value EXACTLY_ONCE (default: barriers are aligned) or AT_LEAST_ONCE (never blocks a channel).
         * @return this
         */
        public Builder checkpointingMode(final CheckpointingMode value)
        {
            checkpointingMode = value;
            return this;
        }

        /**
         * @param value periodic checkpoints (default: none; {@code JobHandle.triggerCheckpoint()} still works).
         * @return this
         */
        public Builder checkpointing(final CheckpointConfig value)
        {
            checkpointing = value;
            return this;
        }

        /**
         * @param value what to do when an attempt fails (default {@link RestartStrategy#none()}: fail the job).
         * @return this
         */
        public Builder restartStrategy(final RestartStrategy value)
        {
            restartStrategy = value;
            return this;
        }

        /**
         * @param value a checkpoint or savepoint folder, {@code <checkpoint directory>/chk-<n>}, or its
         *              {@code _metadata} file, or a checkpoint directory (its newest intact checkpoint; the job is
         *              refused when it has none), to start the job from: sources resume at its positions, operators
         *              get their state back by uid. Null (the default) starts from scratch.
         * @return this
         */
        public Builder restoreFrom(final Path value)
        {
            restoreFrom = value;
            return this;
        }

        /**
         * @param value a checkpoint directory: the job starts from its newest intact checkpoint, skipping newer ones
         *              that are incomplete or damaged (each logged), or from scratch when it has none. The way to
         *              resume after a crash: give it the directory the job checkpoints into. Null (the default): no
         *              resuming. Cannot be combined with {@link #restoreFrom}.
         * @return this
         */
        public Builder resumeFrom(final Path value)
        {
            resumeFrom = value;
            return this;
        }

        /**
         * @param value true to start even when the checkpoint holds state of operators (uids) the job no longer has,
         *              dropping it; false (default) refuses to start.
         * @return this
         */
        public Builder allowNonRestoredState(final boolean value)
        {
            allowNonRestoredState = value;
            return this;
        }

        /**
         * @param value where keyed state lives (default {@code new ChronicleStateBackend()}: off-heap Chronicle Maps;
         *              {@code new HeapStateBackend()} for on-heap maps, {@code new ChronicleStateBackend(config)}
         *              to size the maps or keep them in memory-mapped files).
         * @return this
         */
        public Builder stateBackend(final StateBackend value)
        {
            stateBackend = value;
            return this;
        }

        /**
         * @param value where processing time comes from (default the system clock, UTC): processing-time timers and
         *              windows, periodic watermarks and source idleness read it; a test passes a clock it moves
         *              itself, so processing time is deterministic.
         * @return this
         */
        public Builder clock(final java.time.Clock value)
        {
            clock = value;
            return this;
        }

        /**
         * @param value how often periodic watermark generators emit (default 200 ms of processing time).
         * @return this
         */
        public Builder autoWatermarkInterval(final java.time.Duration value)
        {
            autoWatermarkIntervalMillis = value == null ? -1 : value.toMillis();
            return this;
        }

        /**
         * @param value the most timers an operator fires before its task reads its inputs again (default 1024): a
         *              watermark that makes a million timers due fires them in bounded batches, and a barrier gets
         *              through between two batches.
         * @return this
         */
        public Builder timerFiringBatch(final int value)
        {
            timerFiringBatch = value;
            return this;
        }

        /**
         * @return the validated settings.
         * @throws IllegalArgumentException naming the first invalid option.
         */
        public JobConfig build()
        {
            if (maxParallelism < 1 || maxParallelism > KeyGroups.UPPER_BOUND_MAX_PARALLELISM)
            {
                throw invalid("maxParallelism", maxParallelism, "must be in [1, " +
                    KeyGroups.UPPER_BOUND_MAX_PARALLELISM + "]");
            }
            if (defaultParallelism < 1 || defaultParallelism > maxParallelism)
            {
                throw invalid("defaultParallelism", defaultParallelism, "must be in [1, maxParallelism=" +
                    maxParallelism + "]");
            }
            if (ringSize < 2 || Integer.bitCount(ringSize) != 1)
            {
                throw invalid("ringSize", ringSize, "must be a power of two, at least 2");
            }
            if (slotSize < MIN_SLOT_SIZE || (slotSize & 7) != 0)
            {
                throw invalid("slotSize", slotSize, "must be a multiple of 8 and at least " +
                    MIN_SLOT_SIZE);
            }
            if (publishBatch < 0 || publishBatch >= ringSize)
            {
                throw invalid("publishBatch", publishBatch, "must be in [1, ringSize=" + ringSize +
                    "), or 0 to derive it from the ring size");
            }
            if (readBatch < 1)
            {
                throw invalid("readBatch", readBatch, "must be at least 1");
            }
            if (keyPrefetch < 0 || keyPrefetch > MAX_KEY_PREFETCH)
            {
                throw invalid("keyPrefetch", keyPrefetch, "must be in [0, " + MAX_KEY_PREFETCH + "] (0 turns it off)");
            }
            if (idleStrategy == null)
            {
                throw new IllegalArgumentException("idleStrategy must not be null");
            }
            if (checkpointingMode == null)
            {
                throw new IllegalArgumentException("checkpointingMode must not be null");
            }
            if (checkpointing != null && checkpointingMode == CheckpointingMode.AT_LEAST_ONCE &&
                (checkpointing.unaligned() || checkpointing.alignedTimeout() != null))
            {
                throw new IllegalArgumentException("unaligned checkpoints (unaligned / alignedTimeout) need " +
                    "checkpointingMode EXACTLY_ONCE; AT_LEAST_ONCE never aligns, so there is nothing to unalign");
            }
            if (stateBackend == null)
            {
                throw new IllegalArgumentException("stateBackend must not be null");
            }
            if (restartStrategy == null)
            {
                throw new IllegalArgumentException("restartStrategy must not be null; use RestartStrategy.none()");
            }
            if (restoreFrom != null && resumeFrom != null)
            {
                throw new IllegalArgumentException("restoreFrom (" + restoreFrom + ") and resumeFrom (" + resumeFrom +
                    ") are both set: a job starts from one checkpoint; set one of them");
            }
            if (allowNonRestoredState && restoreFrom == null && resumeFrom == null)
            {
                throw new IllegalArgumentException("allowNonRestoredState is set but restoreFrom is not: there is " +
                    "nothing to restore");
            }
            if (clock == null)
            {
                throw new IllegalArgumentException("clock must not be null; the default is Clock.systemUTC()");
            }
            if (autoWatermarkIntervalMillis < 1)
            {
                throw invalid("autoWatermarkInterval (ms)", autoWatermarkIntervalMillis, "must be at least 1 ms");
            }
            if (timerFiringBatch < 1)
            {
                throw invalid("timerFiringBatch", timerFiringBatch, "must be at least 1");
            }
            if (maxParkNanos < 1_000 || maxParkNanos > 1_000_000_000L)
            {
                throw invalid("maxParkNanos", maxParkNanos, "must be in [1000, 1000000000]");
            }
            if (cpus != null)
            {
                final int available = Runtime.getRuntime().availableProcessors();
                if (cpus.length == 0)
                {
                    throw new IllegalArgumentException("cpus must name at least one core");
                }
                for (final int cpu : cpus)
                {
                    if (cpu < 0 || cpu >= available)
                    {
                        throw invalid("cpus", cpu, "names a core outside [0, " + available + ")");
                    }
                }
            }
            return new JobConfig(this);
        }

        private static IllegalArgumentException invalid(final String option, final long value, final String rule)
        {
            return new IllegalArgumentException(option + " " + rule + ", was " + value);
        }
    }
}
