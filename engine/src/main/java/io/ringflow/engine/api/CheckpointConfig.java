package io.ringflow.engine.api;

import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;

import java.io.IOException;
import java.nio.file.Path;

import java.time.Duration;
import java.util.Objects;

/**
 * When and how often a job takes checkpoints. Immutable; {@link Builder#build()} validates every option and names
 * the one at fault. Checkpoints are kept in memory unless a directory storage is given.
 *
 * <p>Barriers: aligned by default (exactly-once, channels block while they wait for the slowest); {@link
 * Builder#unaligned(boolean)} lets barriers overtake queued records, which are then stored as channel state (a
 * checkpoint's duration no longer grows with back-pressure); {@link Builder#alignedTimeout(Duration)} starts aligned
 * and switches a checkpoint to unaligned when its alignment takes longer than the timeout.
 *
 * <p>Keyed state: full snapshots by default; {@link Builder#incremental(boolean)} writes, for a backend that tracks
 * changes (Chronicle Map), only what changed since the last completed checkpoint, into files shared between
 * checkpoints, a subtask's chain of files never longer than {@link Builder#fullSnapshotEvery(int)}: each delta also
 * rewrites the next slice of the state, so that a round of deltas holds all of it and the chain drops its older files
 * ({@link Builder#slices(Slices)}: by default once a subtask's state is large), or, without slices, a full snapshot
 * restarts the chain.
 *
 * <p>Recovery: a restart reloads every subtask's keyed state from the checkpoint by default; {@link
 * Builder#localRecovery(boolean)} keeps, for a backend that tracks changes, each subtask's store across the restart and
 * rewrites in it only the keys changed since the checkpoint.
 */
public final class CheckpointConfig
{
    /** Default {@link #fullSnapshotEvery()}. */
    public static final int DEFAULT_FULL_SNAPSHOT_EVERY = 10;

    private final Duration interval;
    private final Duration timeout;
    private final Duration minPause;
    private final int maxConcurrent;
    private final int tolerableFailures;
    private final int retained;
    private final CheckpointStorage storage;
    private final boolean retainOnCancel;
    private final boolean unaligned;
    private final Duration alignedTimeout;
    private final boolean incremental;
    private final int fullSnapshotEvery;
    private final Slices slices;
    private final boolean localRecovery;

    private CheckpointConfig(final Builder b)
    {
        slices = b.slices;
        localRecovery = b.localRecovery;
        incremental = b.incremental;
        fullSnapshotEvery = b.fullSnapshotEvery;
        unaligned = b.unaligned;
        alignedTimeout = b.alignedTimeout;
        retainOnCancel = b.retainOnCancel;
        storage = b.storage;
        interval = b.interval;
        timeout = b.timeout;
        minPause = b.minPause;
        maxConcurrent = b.maxConcurrent;
        tolerableFailures = b.tolerableFailures;
        retained = b.retained;
    }

    /**
     * @param interval time between the triggers of two checkpoints.
     * @return a builder with that interval and the other defaults.
     */
    public static Builder every(final Duration interval)
    {
        return new Builder(interval);
    }

    /** @return time between two triggers. */
    public Duration interval()
    {
        return interval;
    }

    /** @return how long a checkpoint may take before it is aborted. */
    public Duration timeout()
    {
        return timeout;
    }

    /** @return the least time between the end of one checkpoint and the trigger of the next. */
    public Duration minPause()
    {
        return minPause;
    }

    /** @return how many checkpoints may be in flight at once. */
    public int maxConcurrent()
    {
        return maxConcurrent;
    }

    /** @return how many checkpoint failures in a row the job tolerates before it fails. */
    public int tolerableFailures()
    {
        return tolerableFailures;
    }

    /** @return how many completed checkpoints are kept. */
    public int retained()
    {
        return retained;
    }

    /** @return whether a cancelled job keeps its completed checkpoints (true) or deletes them. */
    public boolean retainOnCancel()
    {
        return retainOnCancel;
    }

    /** @return where completed checkpoints are committed. */
    public CheckpointStorage storage()
    {
        return storage;
    }

    @Override
    public String toString()
    {
        return "CheckpointConfig{interval=" + interval + ", timeout=" + timeout + ", minPause=" + minPause +
            ", maxConcurrent=" + maxConcurrent + ", tolerableFailures=" + tolerableFailures + ", retained=" +
            retained + ", retainOnCancel=" + retainOnCancel + ", unaligned=" + unaligned + ", alignedTimeout=" +
            alignedTimeout + ", incremental=" + incremental + ", fullSnapshotEvery=" + fullSnapshotEvery +
            ", slices=" + slices +
            ", localRecovery=" + localRecovery +
            ", storage=" + storage.getClass().getSimpleName() + '}';
    }

    /** @return whether barriers overtake queued records (unaligned checkpoints). */
    public boolean unaligned()
    {
        return unaligned;
    }

    /** @return how long a checkpoint stays aligned before switching to unaligned, or null for never. */
    public Duration alignedTimeout()
    {
        return alignedTimeout;
    }

    /** @return whether keyed state is snapshotted incrementally where the backend can. */
    public boolean incremental()
    {
        return incremental;
    }

    /** @return whether a restart reverts kept keyed stores in place where it can, instead of reloading them. */
    public boolean localRecovery()
    {
        return localRecovery;
    }

    /**
     * @return the longest chain of keyed state files a subtask's state may need on restore: a full snapshot and at
     *     most this many minus one deltas.
     */
    public int fullSnapshotEvery()
    {
        return fullSnapshotEvery;
    }

    /**
     * @return whether, with incremental snapshots, each delta also rewrites the next of {@link #fullSnapshotEvery()}
     *     slices of the state, so that chains drop their older files instead of restarting with a full snapshot.
     */
    public Slices slices()
    {
        return slices;
    }

    /** Whether a delta also rewrites a slice of the state ({@link Builder#slices(Slices)}). */
    public enum Slices
    {
        /**
         * The default: where the backend can, once a subtask's state holds at least
         * {@link io.ringflow.state.backend.KeyedStateStore#SLICES_FROM_ENTRIES} entries, a full snapshot of which takes
         * about a second or more; a smaller state takes full snapshots, which cost it less than a share of the state
         * in every delta.
         */
        AUTO,
        /** Where the backend can, whatever the state's size. */
        ALWAYS,
        /** Never: a full snapshot of the whole state restarts the chain every {@code fullSnapshotEvery} files. */
        NEVER
    }

    /** Collects options; {@link #build()} validates them. */
    public static final class Builder
    {
        private final Duration interval;
        private Duration timeout = Duration.ofMinutes(10);
        private Duration minPause = Duration.ZERO;
        private int maxConcurrent = 1;
        private int tolerableFailures;
        private int retained = 1;
        private CheckpointStorage storage;
        private boolean retainOnCancel = true;
        private boolean unaligned;
        private Duration alignedTimeout;
        private boolean incremental;
        private int fullSnapshotEvery = DEFAULT_FULL_SNAPSHOT_EVERY;
        private Slices slices = Slices.AUTO;
        private boolean localRecovery;

        private Builder(final Duration interval)
        {
            this.interval = interval;
        }

        /** @param value how long a checkpoint may take (default 10 min). @return this */
        public Builder timeout(final Duration value)
        {
            timeout = value;
            return this;
        }

        /** @param value least pause after a checkpoint ends (default 0). @return this */
        public Builder minPause(final Duration value)
        {
            minPause = value;
            return this;
        }

        /** @param value checkpoints in flight at once (default 1). @return this */
        public Builder maxConcurrent(final int value)
        {
            maxConcurrent = value;
            return this;
        }

        /** @param value failed checkpoints in a row tolerated before the job fails (default 0). @return this */
        public Builder tolerableFailures(final int value)
        {
            tolerableFailures = value;
            return this;
        }

        /** @param value completed checkpoints kept (default 1). @return this */
        public Builder retained(final int value)
        {
            retained = value;
            return this;
        }

        /**
         * @param value where checkpoints are committed (default: in memory). Use
         *              {@code new DirectoryCheckpointStorage(path)} for durable checkpoints: {@code chk-<n>/_metadata},
         *              written atomically and fsynced.
         * @return this
         */
        public Builder storage(final CheckpointStorage value)
        {
            storage = value;
            return this;
        }

        /**
         * Commits checkpoints durably into a directory: {@code storage(new DirectoryCheckpointStorage(directory))}.
         *
         * @param directory where checkpoints go ({@code chk-<n>/_metadata} and state files); created if missing.
         * @return this
         * @throws IllegalArgumentException when the directory cannot be created or written, naming it.
         */
        public Builder directory(final Path directory)
        {
            try
            {
                storage = new DirectoryCheckpointStorage(Objects.requireNonNull(directory, "directory"));
            }
            catch (final IOException ex)
            {
                throw new IllegalArgumentException("checkpoint directory " + directory + " cannot be used: " +
                    ex.getMessage(), ex);
            }
            return this;
        }

        /**
         * @param value whether a cancelled job keeps its completed checkpoints (default true); a failed job always
         *              keeps them, to restart from.
         * @return this
         */
        public Builder retainOnCancel(final boolean value)
        {
            retainOnCancel = value;
            return this;
        }

        /**
         * @param value true for unaligned checkpoints (default false): barriers overtake queued records, which are
         *              stored with the checkpoint as channel state. Needs {@code CheckpointingMode.EXACTLY_ONCE}.
         * @return this
         */
        public Builder unaligned(final boolean value)
        {
            unaligned = value;
            return this;
        }

        /**
         * @param value start each checkpoint aligned and switch it to unaligned when its alignment at a task takes
         *              longer than this (default: never switch). Implies unaligned checkpoints may be taken.
         * @return this
         */
        public Builder alignedTimeout(final Duration value)
        {
            alignedTimeout = value;
            return this;
        }

        /**
         * @param value true for incremental keyed state snapshots (default false): a subtask whose backend tracks
         *              changes (Chronicle Map; the heap backend always writes full snapshots) writes only the keys
         *              changed since the last completed checkpoint, as a delta on top of that checkpoint's files.
         *              Keyed state files then live in {@code shared/} beside the checkpoint folders, and are deleted
         *              once no retained checkpoint refers to them. Savepoints are always full and self-contained.
         * @return this
         */
        public Builder incremental(final boolean value)
        {
            incremental = value;
            return this;
        }

        /**
         * @param value true for local recovery (default false): on a restart within this JVM (the job's restart
         *              strategy), a subtask whose key groups are unchanged keeps its keyed store and rewrites in it
         *              only the entries changed since the checkpoint restored, read from that checkpoint, instead of
         *              loading every entry into a new store; the result is the same state. It needs a backend that
         *              tracks changes (Chronicle Map): stores then record the keys each checkpoint interval changes, as
         *              incremental snapshots do, which costs on every first write of a key in an interval. Subtasks
         *              whose store cannot be reverted (the heap backend, a failure inside the store, a checkpoint the
         *              store did not take) are restored in full, as without it. Operator state, timers and in-flight
         *              records are always restored from the checkpoint.
         * @return this
         */
        public Builder localRecovery(final boolean value)
        {
            localRecovery = value;
            return this;
        }

        /**
         * @param value with incremental snapshots, the most files a subtask's chain holds once it is complete (default
         *              10), so a restore never reads more than this many files per subtask (twice as many while a
         *              chain restored from elsewhere is being replaced by a round of slices): with
         *              {@link #slices(Slices)} the number of slices a round rewrites the state in; without,
         *              a subtask takes a full snapshot instead of a delta when its chain (full snapshot and deltas)
         *              already holds this many files (1 means always full).
         * @return this
         */
        public Builder fullSnapshotEvery(final int value)
        {
            fullSnapshotEvery = value;
            return this;
        }

        /**
         * @param value with incremental snapshots, whether each delta of a subtask whose backend can (the Chronicle
         *              backend, unless a hot-key front holds other than {@code Long} counters) also rewrites the next
         *              of {@link #fullSnapshotEvery(int)} slices of its state (a share of the map's segments and of the
         *              front's key groups); once the deltas of a whole round are in its chain, the chain drops the
         *              files before them. No checkpoint then writes the whole state: each writes its changed keys and
         *              a share of the state, and the chain stays {@code fullSnapshotEvery} files long. Without,
         *              deltas hold only the changed keys and a full snapshot restarts the chain every
         *              {@code fullSnapshotEvery} checkpoints (at 10 million keys one of seconds, while the others
         *              take a tenth of a second). Default {@link Slices#AUTO}: slices for a state of millions of
         *              entries, full snapshots below.
         * @return this
         */
        public Builder slices(final Slices value)
        {
            slices = Objects.requireNonNull(value, "slices");
            return this;
        }

        /**
         * @return the validated configuration.
         * @throws IllegalArgumentException naming the first invalid option.
         */
        public CheckpointConfig build()
        {
            requirePositive("interval", interval);
            requirePositive("timeout", timeout);
            Objects.requireNonNull(minPause, "minPause");
            if (minPause.isNegative())
            {
                throw new IllegalArgumentException("minPause must not be negative, was " + minPause);
            }
            if (maxConcurrent < 1)
            {
                throw new IllegalArgumentException("maxConcurrent must be at least 1, was " + maxConcurrent);
            }
            if (tolerableFailures < 0)
            {
                throw new IllegalArgumentException("tolerableFailures must not be negative, was " +
                    tolerableFailures);
            }
            if (retained < 1)
            {
                throw new IllegalArgumentException("retained must be at least 1, was " + retained);
            }
            if (alignedTimeout != null && (alignedTimeout.isNegative() || alignedTimeout.isZero()))
            {
                throw new IllegalArgumentException("alignedTimeout must be positive, was " + alignedTimeout +
                    "; use unaligned(true) to never align");
            }
            if (fullSnapshotEvery < 1)
            {
                throw new IllegalArgumentException("fullSnapshotEvery must be at least 1, was " + fullSnapshotEvery);
            }
            if (alignedTimeout != null && unaligned)
            {
                throw new IllegalArgumentException("alignedTimeout (" + alignedTimeout + ") and unaligned(true) " +
                    "contradict each other: unaligned checkpoints never align; set one of them");
            }
            if (storage == null)
            {
                storage = new InMemoryCheckpointStorage();
            }
            return new CheckpointConfig(this);
        }

        private static void requirePositive(final String option, final Duration value)
        {
            if (value == null || value.isZero() || value.isNegative())
            {
                throw new IllegalArgumentException(option + " must be positive, was " + value);
            }
        }
    }
}
