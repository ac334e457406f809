package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.checkpoint.barrier.RecordingController.Call;
import io.ringflow.engine.checkpoint.barrier.RecordingController.Name;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random runs of a simulated task against a reference model of the protocol's invariants.
 *
 * <p>Each case draws 1 to 8 channels, one of the four option sets, up to six checkpoints (some of them savepoints,
 * some declined by the task) and, per channel, records with barriers in increasing order (a channel may skip a
 * checkpoint) and usually END_OF_INPUT. The simulated task then reads the channels in a random order, never a
 * blocked one, recording what it reads while the handler says so; between reads its clock moves, it checks the
 * alignment timeout, and the coordinator aborts random checkpoints. At the end the task closes the handler.
 *
 * <p>With unaligned checkpoints (no timeout) the task also hears announcements, as {@code InputTask} does: an
 * upstream task announces a CHECKPOINT barrier ahead of the records queued in front of its slot, on any channel that
 * has not ended, blocked or not. The task hands the first checkpoint barrier ahead of the channel's read position
 * whose id is above the channel's last handled barrier to {@link BarrierHandler#barrierAnnounced}; the records it
 * overtook are copied into the channel state by the task itself when the checkpoint's unaligned snapshot is taken
 * (before or on that event), and a barrier slot read later whose id is not above the channel's last handled barrier
 * is skipped without telling the handler.
 *
 * <p>The model knows only which barriers arrived, which channels ended, and what the controller was told; it checks,
 * at every controller call and after every event:
 * <ul>
 *   <li>exactly-once: while n aligns, no record of a channel that lies after that channel's barrier n is read;</li>
 *   <li>a snapshot of n happens at most once, only for the newest checkpoint, never after n was aborted; aligned
 *       only once every channel delivered n or ended, unaligned only on n's first barrier or after the alignment
 *       timed out; forward n follows every snapshot taken at once;</li>
 *   <li>unaligned: the records recorded for n on channel c are exactly those read from c after snapshot n and
 *       before c's barrier n (or its END_OF_INPUT), plus those still unread in front of n's slot when n was
 *       announced on c after (or on) snapshot n; a record overtaken that way is never recorded for n again when it is
 *       read;</li>
 *   <li>at-least-once never blocks but for a savepoint (always aligned); blocked and recorded channels are exactly
 *       what the model expects, and the
 *       handler's queries agree with the calls;</li>
 *   <li>every checkpoint started is finished exactly once: completed, or aborted with the right reason (subsumed
 *       ones by the newer barrier, announcement or abort that subsumed them); only the newest may be unfinished,
 *       and it finishes as soon as every channel delivered (or announced) its barrier or ended;</li>
 *   <li>an announcement never blocks a channel; one on a channel blocked for a savepoint's alignment subsumes the
 *       savepoint and unblocks it.</li>
 * </ul>
 * Failures name the seed, the case and its own seed, followed by the last events.
 */
class BarrierHandlerRandomizedTest
{
    private static final int CASES_PER_SEED = 3_000;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 42L, 20261130L})
    void everyGeneratedInterleavingKeepsTheInvariants(final long seed)
    {
        final Map<Outcome, Integer> coverage = new EnumMap<>(Outcome.class);
        final Random cases = new Random(seed);
        for (int i = 0; i < CASES_PER_SEED; i++)
        {
            new Simulation(seed, i, cases.nextLong(), coverage).run();
        }
        // the generator must reach every transition, or the checks above prove little
        for (final Outcome outcome : Outcome.values())
        {
            assertThat(coverage.getOrDefault(outcome, 0))
                .as("seed %d: cases that reached %s, out of %d; coverage %s", seed, outcome, CASES_PER_SEED, coverage)
                .isPositive();
        }
    }

    /** The options of a case. */
    private enum Setup
    {
        ALIGNED, UNALIGNED, ALIGNED_WITH_TIMEOUT, AT_LEAST_ONCE
    }

    /** What the simulated task does. */
    private enum Action
    {
        RECORD, BARRIER, ANNOUNCE, END_OF_INPUT, TIMEOUT, COORDINATOR_ABORT, CLOSE
    }

    /** Transitions the runs must reach. */
    private enum Outcome
    {
        ALIGNED_COMPLETED,
        UNALIGNED_COMPLETED_WITH_CHANNEL_STATE,
        SWITCHED_BY_TIMEOUT,
        AT_LEAST_ONCE_COMPLETED,
        SAVEPOINT_COMPLETED,
        COMPLETED_ON_END_OF_INPUT,
        SUBSUMED,
        DECLINED,
        ABORTED_BY_COORDINATOR,
        ABORTED_ON_CLOSE,
        /** A newer checkpoint was announced on a channel blocked for a savepoint's alignment. */
        ANNOUNCED_ON_BLOCKED_CHANNEL,
        /** An announcement overtook a savepoint's barrier slot, which the task skipped later. */
        ANNOUNCEMENT_OVERTOOK_SAVEPOINT,
        /** A barrier slot was skipped because an announcement on its channel had handled it. */
        SKIPPED_ANNOUNCED_SLOT,
        /** An unaligned checkpoint completed with records its announcement overtook in its channel state. */
        COMPLETED_WITH_OVERTAKEN_RECORDS,
        /** A checkpoint was announced after the coordinator had aborted it (or a newer one): ignored. */
        ANNOUNCED_AFTER_COORDINATOR_ABORT,
        /** The coordinator aborted a checkpoint after some channel had announced it. */
        COORDINATOR_ABORTED_ANNOUNCED
    }

    /**
     * One slot of a generated channel.
     *
     * @param kind         RECORD, BARRIER or END_OF_INPUT.
     * @param checkpointId a barrier's checkpoint.
     * @param record       a record's value.
     */
    private record Item(Action kind, long checkpointId, String record)
    {
    }

    private static final class Simulation
    {
        private static final int TRACE_TAIL = 60;
        /** With unaligned checkpoints: the percentage of steps that try an announcement first. */
        private static final int ANNOUNCE_PERCENT = 14;

        private final String where;
        private final Random random;
        private final Map<Outcome, Integer> coverage;
        private final int channels;
        private final Setup setup;
        private final long timeoutNanos;
        private final int checkpoints;
        private final BarrierKind[] kinds;
        private final List<List<Item>> inputs = new ArrayList<>();
        private final int[] positions;
        private final ManualNanoClock clock = new ManualNanoClock(1_000_000);
        private final RecordingController controller;
        private final BarrierHandler handler;
        private final List<String> trace = new ArrayList<>();

        // The simulated task's own bookkeeping, as InputTask keeps it.
        /** Per channel: the newest barrier handed to the handler, read or announced (InputTask's handledBarrier). */
        private final long[] handledBarrier;
        /** The checkpoint whose unaligned snapshot the task took and which has not finished (its recorder), or 0. */
        private long taskRecorder;
        /** The channel whose announcement is being handed to the handler, or -1; and the records it overtook. */
        private int announcingChannel = -1;
        private List<String> announcingOvertaken = List.of();

        // The reference model, indexed by checkpoint id (1..checkpoints + 1) or by channel.
        private final boolean[] ended;
        private final long[] deliveredBy;
        private final long[] firstArrival;
        private final boolean[] started;
        private final boolean[] snapshotTaken;
        private final boolean[] snapshotDeclined;
        private final boolean[] unalignedSnapshot;
        private final boolean[] forwarded;
        private final boolean[] aborted;
        private final boolean[] completed;
        private final AbortReason[] abortReasons;
        /** Per (checkpoint, channel): records read after an unaligned snapshot and before the channel's barrier. */
        private final List<List<String>> inFlight = new ArrayList<>();
        private final boolean[] inFlightOpen;
        /** Per (checkpoint, channel): records the task recorded because the handler said so. */
        private final List<List<String>> recorded = new ArrayList<>();
        /** Per (checkpoint, channel): the index of the channel's item that delivered the barrier, or -1. */
        private final int[] deliveredAt;
        /** Per checkpoint: how many overtaken records went to its in-flight records. */
        private final int[] overtakenInFlight;
        /** Per checkpoint: whether some channel announced it. */
        private final boolean[] announced;
        /** Per channel: the announcements made on it, as {checkpoint, slot index}, in order. */
        private final List<List<long[]>> announcements = new ArrayList<>();
        /** The newest checkpoint the coordinator aborted, or 0. */
        private long newestCoordinatorAbort;
        private long newestSeen;

        // The event being run, for judging the calls it causes.
        private Action action;
        private int actionChannel;
        private long actionCheckpointId;
        private boolean actionStartedCheckpoint;
        /** The records the announcement being run overtook. */
        private List<String> actionOvertaken = List.of();
        private final List<Call> actionCalls = new ArrayList<>();

        Simulation(final long seed, final int caseIndex, final long caseSeed, final Map<Outcome, Integer> coverage)
        {
            this.random = new Random(caseSeed);
            this.coverage = coverage;
            this.channels = 1 + random.nextInt(8);
            this.setup = Setup.values()[random.nextInt(Setup.values().length)];
            this.timeoutNanos = 1 + random.nextInt(40);
            this.checkpoints = 1 + random.nextInt(6);
            final int ids = checkpoints + 2;
            this.kinds = new BarrierKind[ids];
            final List<Long> declines = new ArrayList<>();
            for (int id = 1; id < ids; id++)
            {
                kinds[id] = random.nextInt(5) == 0
                    ? BarrierKind.SAVEPOINT
                    : BarrierKind.CHECKPOINT;
                if (random.nextInt(12) == 0)
                {
                    declines.add((long)id);
                }
            }
            int recordNumber = 0;
            for (int channel = 0; channel < channels; channel++)
            {
                final List<Item> items = new ArrayList<>();
                for (int id = 1; id <= checkpoints; id++)
                {
                    recordNumber = addRecords(items, channel, recordNumber);
                    if (random.nextInt(100) < 85)
                    {
                        items.add(new Item(Action.BARRIER, id, null));
                    }
                }
                recordNumber = addRecords(items, channel, recordNumber);
                if (random.nextInt(10) != 0)
                {
                    items.add(new Item(Action.END_OF_INPUT, -1, null));
                }
                inputs.add(items);
            }
            this.positions = new int[channels];
            this.handledBarrier = new long[channels];
            this.ended = new boolean[channels];
            this.deliveredBy = new long[ids];
            this.firstArrival = new long[ids];
            this.started = new boolean[ids];
            this.snapshotTaken = new boolean[ids];
            this.snapshotDeclined = new boolean[ids];
            this.unalignedSnapshot = new boolean[ids];
            this.forwarded = new boolean[ids];
            this.aborted = new boolean[ids];
            this.completed = new boolean[ids];
            this.abortReasons = new AbortReason[ids];
            this.inFlightOpen = new boolean[ids * channels];
            this.deliveredAt = new int[ids * channels];
            for (int i = 0; i < ids * channels; i++)
            {
                inFlight.add(new ArrayList<>());
                recorded.add(new ArrayList<>());
                deliveredAt[i] = -1;
            }
            this.overtakenInFlight = new int[ids];
            this.announced = new boolean[ids];
            for (int channel = 0; channel < channels; channel++)
            {
                announcements.add(new ArrayList<>());
            }

            final StringBuilder kindList = new StringBuilder();
            for (int id = 1; id <= checkpoints; id++)
            {
                kindList.append(id == 1 ? "" : ", ").append(id)
                    .append(kinds[id] == BarrierKind.SAVEPOINT ? " savepoint" : "");
            }
            this.where = "seed " + seed + ", case " + caseIndex + " (case seed " + caseSeed + "): " + channels +
                " channels, " + setup + (setup == Setup.ALIGNED_WITH_TIMEOUT ? " after " + timeoutNanos + " ns" : "") +
                ", checkpoints [" + kindList + "], declined " + declines;

            this.controller = new RecordingController(this::onCall);
            for (final long id : declines)
            {
                controller.decline(id);
            }
            this.handler = new BarrierHandler(channels, options(), controller, clock);
        }

        private BarrierHandlerOptions options()
        {
            return switch (setup)
            {
                case ALIGNED -> BarrierHandlerOptions.aligned();
                case UNALIGNED -> BarrierHandlerOptions.unalignedCheckpoints();
                case ALIGNED_WITH_TIMEOUT ->
                    new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, true, timeoutNanos);
                case AT_LEAST_ONCE -> BarrierHandlerOptions.atLeastOnce();
            };
        }

        private int addRecords(final List<Item> items, final int channel, final int firstNumber)
        {
            final int count = random.nextInt(6);
            for (int i = 0; i < count; i++)
            {
                items.add(new Item(Action.RECORD, -1, "c" + channel + "r" + (firstNumber + i)));
            }
            return firstNumber + count;
        }

        void run()
        {
            try
            {
                int budget = 100;
                for (final List<Item> items : inputs)
                {
                    budget += 3 * items.size();
                }
                while (budget-- > 0 && !allConsumed())
                {
                    final int readable = pickReadableChannel();
                    final int dice = random.nextInt(100);
                    if (dice < 6)
                    {
                        checkTimeout(random.nextInt((int)(2 * timeoutNanos + 2)));
                    }
                    else if (dice < 8)
                    {
                        coordinatorAbort(1 + random.nextInt(checkpoints + 1));
                    }
                    else if (setup == Setup.UNALIGNED && dice < 8 + ANNOUNCE_PERCENT && tryAnnounce())
                    {
                        // an upstream task announced a checkpoint barrier ahead of its queued records
                    }
                    else if (readable >= 0)
                    {
                        readNext(readable);
                    }
                    else if (setup == Setup.UNALIGNED && random.nextBoolean() && tryAnnounce())
                    {
                        // stuck behind a savepoint's alignment: a newer checkpoint is announced on some channel
                    }
                    else if (random.nextBoolean())
                    {
                        // stuck: the channels left are blocked, waiting for a channel that ran dry before its barrier
                        checkTimeout(2 * timeoutNanos + 1);
                    }
                    else
                    {
                        coordinatorAbort(Math.max(1, newestSeen));
                    }
                }
                close();
            }
            catch (final AssertionError ex)
            {
                if (ex.getMessage() != null && ex.getMessage().startsWith(where))
                {
                    throw ex;
                }
                // the stub's own contract checks: add the case and the trace
                throw new AssertionError(describe(String.valueOf(ex.getMessage())), ex);
            }
            catch (final RuntimeException ex)
            {
                throw new AssertionError(describe("the handler threw " + ex), ex);
            }
        }

        private boolean allConsumed()
        {
            for (int channel = 0; channel < channels; channel++)
            {
                if (positions[channel] < inputs.get(channel).size())
                {
                    return false;
                }
            }
            return true;
        }

        private int pickReadableChannel()
        {
            final int[] readable = new int[channels];
            int count = 0;
            for (int channel = 0; channel < channels; channel++)
            {
                if (positions[channel] < inputs.get(channel).size() && !handler.isBlocked(channel))
                {
                    readable[count++] = channel;
                }
            }
            return count == 0 ? -1 : readable[random.nextInt(count)];
        }

        private void readNext(final int channel)
        {
            final int slot = positions[channel]++;
            final Item item = inputs.get(channel).get(slot);
            clock.advance(random.nextInt(4));
            switch (item.kind())
            {
                case RECORD -> readRecord(channel, slot, item.record());
                case BARRIER -> barrierSlot(channel, slot, item.checkpointId());
                case END_OF_INPUT -> endOfInput(channel);
                default -> throw new IllegalStateException("not an item: " + item);
            }
        }

        /**
         * The task reads a barrier slot: as InputTask's onBarrier, it tells the handler only of a barrier newer than
         * the newest it handed over on that channel (an announcement may have handled this one, or a newer one).
         */
        private void barrierSlot(final int channel, final int slot, final long id)
        {
            if (id <= handledBarrier[channel])
            {
                skippedBarrier(channel, slot, id);
                return;
            }
            handledBarrier[channel] = id;
            barrier(channel, slot, id);
        }

        /**
         * With unaligned checkpoints: picks a channel that has not ended, blocked or not, with a checkpoint barrier
         * ahead of its read position that the task has not handled, and announces the first such barrier.
         *
         * @return false if no channel has one.
         */
        private boolean tryAnnounce()
        {
            final int[] candidates = new int[channels];
            int count = 0;
            int blocked = 0;
            for (int channel = 0; channel < channels; channel++)
            {
                if (!ended[channel] && announceable(channel) >= 0)
                {
                    if (handler.isBlocked(channel))
                    {
                        // blocked ones first, so that a newer checkpoint often meets a savepoint's alignment
                        candidates[count++] = candidates[blocked];
                        candidates[blocked++] = channel;
                    }
                    else
                    {
                        candidates[count++] = channel;
                    }
                }
            }
            if (count == 0)
            {
                return false;
            }
            final int channel = blocked > 0 && random.nextBoolean()
                ? candidates[random.nextInt(blocked)]
                : candidates[random.nextInt(count)];
            announce(channel, announceable(channel));
            return true;
        }

        /**
         * @return the index of the first CHECKPOINT barrier at or after the channel's read position, before its
         *         END_OF_INPUT, newer than the newest barrier the task handled on it; -1 if there is none.
         */
        private int announceable(final int channel)
        {
            final List<Item> items = inputs.get(channel);
            for (int i = positions[channel]; i < items.size(); i++)
            {
                final Item item = items.get(i);
                if (item.kind() == Action.END_OF_INPUT)
                {
                    return -1;
                }
                if (item.kind() == Action.BARRIER && item.checkpointId() > handledBarrier[channel] &&
                    kinds[(int)item.checkpointId()] == BarrierKind.CHECKPOINT)
                {
                    return i;
                }
            }
            return -1;
        }

        // ---------------------------------------------------------------------------------------------------------
        // Events

        private void readRecord(final int channel, final int slot, final String record)
        {
            trace.add("read " + record + " from channel " + channel);
            {
                for (int id = 1; id < started.length; id++)
                {
                    final int checkpoint = id;
                    require(!(aligns(id) && aligning(id) && has(deliveredBy[id], channel) &&
                            slot > deliveredAt[index(id, channel)]), () -> "read " + record +
                        " from channel " + channel + " after its barrier " + checkpoint + " and before snapshot " +
                        checkpoint);
                }
            }
            for (final long[] announcement : announcements.get(channel))
            {
                // announced ahead of this record: its in-flight copy was taken then, if it was wanted
                final long overtaker = announcement[0];
                require(announcement[1] < slot || controller.recordingCheckpoint(channel) != overtaker,
                    () -> "read " + record + " from channel " + channel + ", which barrier " + overtaker +
                        " overtook when it was announced, while the channel is still recorded for " + overtaker);
            }
            for (int id = 1; id < started.length; id++)
            {
                if (inFlightOpen[index(id, channel)])
                {
                    inFlight.get(index(id, channel)).add(record);
                }
            }
            if (handler.isRecording(channel))
            {
                final long id = controller.recordingCheckpoint(channel);
                require(id > 0, () -> "isRecording(" + channel + ") but no startRecordingChannel for it");
                recorded.get(index(id, channel)).add(record);
            }
        }

        private void barrier(final int channel, final int slot, final long id)
        {
            final long newestBefore = newestSeen;
            final long pendingBefore = pending();
            begin(Action.BARRIER, channel, id);
            trace.add("barrier " + id + " on channel " + channel);
            delivered(channel, slot, id);
            handler.barrierReceived(channel, new CheckpointBarrier(id, id * 1000, kinds[(int)id]));
            end();
            checkBarrierEvent(id, newestBefore, pendingBefore);
        }

        /**
         * A barrier slot the task skips: an announcement on this channel handled its barrier, or a newer one.
         */
        private void skippedBarrier(final int channel, final int slot, final long id)
        {
            trace.add("skip the slot of barrier " + id + " on channel " + channel + ": handled up to " +
                handledBarrier[channel]);
            boolean announcedPast = false;
            for (final long[] announcement : announcements.get(channel))
            {
                announcedPast |= announcement[0] >= id && announcement[1] >= slot;
            }
            require(announcedPast, () -> "the task skipped the slot of barrier " + id + " on channel " + channel +
                ", which no announcement overtook");
            count(Outcome.SKIPPED_ANNOUNCED_SLOT);
        }

        /**
         * An upstream task announced the barrier at {@code slot} of {@code channel} ahead of the records in front of
         * it; the task acts on it as InputTask's onAnnouncedBarrier does.
         */
        private void announce(final int channel, final int slot)
        {
            final List<Item> items = inputs.get(channel);
            final long id = items.get(slot).checkpointId();
            final List<String> overtaken = new ArrayList<>();
            boolean overtookSavepoint = false;
            for (int i = positions[channel]; i < slot; i++)
            {
                final Item item = items.get(i);
                if (item.kind() == Action.RECORD)
                {
                    overtaken.add(item.record());
                }
                else if (item.kind() == Action.BARRIER &&
                    kinds[(int)item.checkpointId()] == BarrierKind.SAVEPOINT)
                {
                    overtookSavepoint = true;
                }
            }
            clock.advance(random.nextInt(4));
            final boolean wasBlocked = handler.isBlocked(channel);
            final long newestBefore = newestSeen;
            final long pendingBefore = pending();
            begin(Action.ANNOUNCE, channel, id);
            actionOvertaken = overtaken;
            trace.add("announce barrier " + id + " on channel " + channel + (wasBlocked ? " (blocked)" : "") +
                ", overtaking " + overtaken + (overtookSavepoint ? " and a savepoint's slot" : ""));

            // the model: records the barrier overtook are in flight across an unaligned cut taken before it
            final int checkpoint = (int)id;
            if (snapshotTaken[checkpoint] && unalignedSnapshot[checkpoint] && !aborted[checkpoint] &&
                !completed[checkpoint] && !has(deliveredBy[checkpoint], channel))
            {
                inFlight.get(index(id, channel)).addAll(overtaken);
                overtakenInFlight[checkpoint] += overtaken.size();
            }
            delivered(channel, slot, id);
            announced[checkpoint] = true;
            announcements.get(channel).add(new long[] {id, slot});

            // the task, as InputTask: a later channel of the checkpoint it records copies the overtaken records now;
            // when this barrier starts the checkpoint, the snapshot callback copies them (see taskSees)
            handledBarrier[channel] = id;
            if (taskRecorder == id)
            {
                recorded.get(index(id, channel)).addAll(overtaken);
            }
            announcingChannel = channel;
            announcingOvertaken = overtaken;
            try
            {
                handler.barrierAnnounced(channel, new CheckpointBarrier(id, id * 1000, kinds[checkpoint]));
            }
            finally
            {
                announcingChannel = -1;
                announcingOvertaken = List.of();
            }
            end();
            checkBarrierEvent(id, newestBefore, pendingBefore);
            if (overtookSavepoint)
            {
                count(Outcome.ANNOUNCEMENT_OVERTOOK_SAVEPOINT);
            }
            if (id <= newestCoordinatorAbort)
            {
                require(actionCalls.isEmpty(), () -> "announced barrier " + id + " acted after the coordinator " +
                    "aborted " + newestCoordinatorAbort);
                count(Outcome.ANNOUNCED_AFTER_COORDINATOR_ABORT);
            }
            if (wasBlocked)
            {
                final int savepoint = (int)pendingBefore;
                require(savepoint > 0 && kinds[savepoint] == BarrierKind.SAVEPOINT && id > savepoint,
                    () -> "channel " + channel + " was blocked, but the model has no older savepoint aligning: " +
                        "pending " + savepoint);
                require(aborted[savepoint] && abortReasons[savepoint] == AbortReason.SUBSUMED,
                    () -> "checkpoint " + id + " announced on channel " + channel + ", blocked for savepoint " +
                        savepoint + ", did not subsume it");
                require(!handler.isBlocked(channel), () -> "channel " + channel + " is still blocked after " +
                    "checkpoint " + id + " subsumed savepoint " + savepoint + " on it");
                count(Outcome.ANNOUNCED_ON_BLOCKED_CHANNEL);
            }
        }

        /** The model: {@code channel} delivered barrier {@code id}, read at or announced for {@code slot}. */
        private void delivered(final int channel, final int slot, final long id)
        {
            if (id > newestSeen)
            {
                started[(int)id] = true;
                firstArrival[(int)id] = clock.nanoTime();
                newestSeen = id;
                actionStartedCheckpoint = true;
            }
            deliveredBy[(int)id] |= 1L << channel;
            deliveredAt[index(id, channel)] = slot;
            for (int older = 1; older <= id; older++)
            {
                inFlightOpen[index(older, channel)] = false;
            }
        }

        /** Checks after a barrier read or announced. */
        private void checkBarrierEvent(final long id, final long newestBefore, final long pendingBefore)
        {
            if (id < newestBefore || (id == newestBefore && id != pendingBefore))
            {
                require(actionCalls.isEmpty(), () -> "a barrier of finished or subsumed checkpoint " + id +
                    " was not ignored");
            }
            if (actionStartedCheckpoint && setup == Setup.UNALIGNED &&
                kinds[(int)id] == BarrierKind.CHECKPOINT)
            {
                require(snapshotTaken[(int)id] || snapshotDeclined[(int)id],
                    () -> "the first barrier of unaligned checkpoint " + id + " did not snapshot it");
            }
        }

        private void endOfInput(final int channel)
        {
            begin(Action.END_OF_INPUT, channel, -1);
            trace.add("END_OF_INPUT on channel " + channel);
            ended[channel] = true;
            for (int id = 1; id < started.length; id++)
            {
                inFlightOpen[index(id, channel)] = false;
            }
            handler.endOfInput(channel);
            end();
            for (final Call call : actionCalls)
            {
                if (call.name() == Name.ALL_BARRIERS_RECEIVED)
                {
                    count(Outcome.COMPLETED_ON_END_OF_INPUT);
                }
            }
        }

        private void checkTimeout(final long advance)
        {
            clock.advance(advance);
            final long now = clock.nanoTime();
            final long pending = pending();
            final boolean due = setup == Setup.ALIGNED_WITH_TIMEOUT && pending > 0 && aligning(pending) &&
                kinds[(int)pending] == BarrierKind.CHECKPOINT &&
                now - firstArrival[(int)pending] > timeoutNanos;
            begin(Action.TIMEOUT, -1, -1);
            trace.add("check timeout at " + now);
            final boolean switched = handler.checkTimeout(now);
            end();
            require(switched == due, () -> "checkTimeout returned " + switched + ", but the alignment of " + pending +
                (due ? " was" : " was not") + " overdue");
            if (due)
            {
                final int overdue = (int)pending;
                require(snapshotTaken[overdue] && unalignedSnapshot[overdue] || snapshotDeclined[overdue],
                    () -> "the overdue alignment of " + overdue + " did not switch to unaligned");
                count(Outcome.SWITCHED_BY_TIMEOUT);
            }
            else
            {
                require(actionCalls.isEmpty(), () -> "checkTimeout acted without an overdue alignment");
            }
        }

        private void coordinatorAbort(final long id)
        {
            begin(Action.COORDINATOR_ABORT, -1, id);
            trace.add("the coordinator aborts " + id);
            newestSeen = Math.max(newestSeen, id);
            newestCoordinatorAbort = Math.max(newestCoordinatorAbort, id);
            handler.checkpointAborted(id);
            end();
            for (int older = 1; older <= id; older++)
            {
                final int checkpoint = older;
                require(!started[older] || completed[older] || aborted[older],
                    () -> "checkpoint " + checkpoint + " is still in progress after the coordinator aborted " + id);
            }
        }

        private void close()
        {
            begin(Action.CLOSE, -1, -1);
            trace.add("close");
            handler.close();
            end();
            for (int id = 1; id < started.length; id++)
            {
                final int checkpoint = id;
                require(!started[id] || completed[id] != aborted[id],
                    () -> "checkpoint " + checkpoint + " was neither completed nor aborted, or both");
                require(forwarded[id] == snapshotTaken[id],
                    () -> "checkpoint " + checkpoint + " was snapshot but not forwarded, or the reverse");
                require(!completed[id] || snapshotTaken[id],
                    () -> "checkpoint " + checkpoint + " completed without a snapshot");
            }
            require(handler.blockedChannels() == 0 && handler.recordingChannels() == 0,
                () -> "channels still blocked or recorded after close");
        }

        // ---------------------------------------------------------------------------------------------------------
        // Judging each controller call, with the model as it is just before the call

        private void onCall(final Call call)
        {
            trace.add("    " + call);
            actionCalls.add(call);
            final long id = call.checkpointId();
            final int channel = call.channel();
            switch (call.name())
            {
                case BLOCK ->
                {
                    require(aligns(actionCheckpointId), () -> "at-least-once blocked channel " + channel + " for " +
                        "checkpoint " + actionCheckpointId + ", which is not a savepoint");
                    require(action == Action.BARRIER && actionChannel == channel,
                        () -> "blocked channel " + channel + ", which did not just deliver a barrier");
                }
                case UNBLOCK_ALL ->
                {
                    // the stub checks that something was blocked
                }
                case SNAPSHOT -> onSnapshot(call);
                case FORWARD ->
                {
                    final Call previous = actionCalls.size() < 2 ? null : actionCalls.get(actionCalls.size() - 2);
                    require(previous != null && previous.name() == Name.SNAPSHOT && previous.checkpointId() == id &&
                        !previous.declined() && previous.unaligned() == call.unaligned(),
                        () -> "forward of " + id + " not right after its snapshot");
                    require(!forwarded[(int)id], () -> "second forward of " + id);
                    forwarded[(int)id] = true;
                }
                case START_RECORDING ->
                {
                    require(snapshotTaken[(int)id] && unalignedSnapshot[(int)id] && forwarded[(int)id],
                        () -> "recording for " + id + " without its unaligned snapshot forwarded");
                    require(!aborted[(int)id] && !completed[(int)id], () -> "recording for finished " + id);
                    require(!ended[channel] && !has(deliveredBy[(int)id], channel),
                        () -> "recording channel " + channel + ", which has ended or delivered barrier " + id);
                }
                case STOP_RECORDING ->
                {
                    // the stub checks that the channel was recorded for this checkpoint; end() checks why it stops
                }
                case ABORT -> onAbort(call);
                case ALL_BARRIERS_RECEIVED -> onAllBarriersReceived(call);
                default -> throw new IllegalStateException("unknown call " + call);
            }
            taskSees(call);
        }

        /**
         * The simulated task's side of a call, after the model judged it: its channel-state recorder, as InputTask's
         * controller keeps it.
         */
        private void taskSees(final Call call)
        {
            final long id = call.checkpointId();
            switch (call.name())
            {
                case SNAPSHOT ->
                {
                    if (call.unaligned() && !call.declined())
                    {
                        taskRecorder = id;
                        if (announcingChannel >= 0)
                        {
                            // the checkpoint starts on an announcement: the records it overtook are channel state
                            recorded.get(index(id, announcingChannel)).addAll(announcingOvertaken);
                        }
                    }
                }
                case ABORT ->
                {
                    if (taskRecorder == id)
                    {
                        taskRecorder = 0;
                    }
                }
                case ALL_BARRIERS_RECEIVED ->
                {
                    if (taskRecorder != 0 && taskRecorder <= id)
                    {
                        taskRecorder = 0;
                    }
                }
                default ->
                {
                    // recording and blocking go through the handler's queries and the stub's bookkeeping
                }
            }
        }

        private void onSnapshot(final Call call)
        {
            final int id = (int)call.checkpointId();
            require(started[id], () -> "snapshot of " + id + ", which never started");
            require(id == newestSeen, () -> "snapshot of " + id + " while the newest checkpoint is " + newestSeen);
            require(!snapshotTaken[id] && !snapshotDeclined[id], () -> "second snapshot of " + id);
            require(!aborted[id], () -> "snapshot of " + id + " after it was aborted");
            require(!completed[id], () -> "snapshot of " + id + " after it completed");
            if (call.unaligned())
            {
                require(setup == Setup.UNALIGNED || setup == Setup.ALIGNED_WITH_TIMEOUT,
                    () -> "unaligned snapshot of " + id + " with " + setup);
                require(kinds[id] == BarrierKind.CHECKPOINT, () -> "unaligned snapshot of savepoint " + id);
                if (setup == Setup.UNALIGNED)
                {
                    require((action == Action.BARRIER || action == Action.ANNOUNCE) && actionStartedCheckpoint &&
                        actionCheckpointId == id, () -> "unaligned snapshot of " + id + " not on its first barrier");
                }
                else
                {
                    require(action == Action.TIMEOUT && clock.nanoTime() - firstArrival[id] > timeoutNanos,
                        () -> "snapshot of " + id + " switched to unaligned before its alignment timed out");
                }
            }
            else
            {
                require(setup != Setup.UNALIGNED || kinds[id] == BarrierKind.SAVEPOINT,
                    () -> "aligned snapshot of unaligned checkpoint " + id);
                require(allDeliveredOrEnded(id),
                    () -> "aligned snapshot of " + id + " before every channel delivered its barrier or ended");
            }
            if (call.declined())
            {
                snapshotDeclined[id] = true;
                return;
            }
            snapshotTaken[id] = true;
            unalignedSnapshot[id] = call.unaligned();
            if (call.unaligned())
            {
                for (int channel = 0; channel < channels; channel++)
                {
                    if (!ended[channel] && !has(deliveredBy[id], channel))
                    {
                        inFlightOpen[index(id, channel)] = true;
                    }
                }
                if (action == Action.ANNOUNCE && actionCheckpointId == id)
                {
                    // the cut is taken while the announced barrier's channel still holds the records it overtook
                    inFlight.get(index(id, actionChannel)).addAll(actionOvertaken);
                    overtakenInFlight[id] += actionOvertaken.size();
                }
            }
        }

        private void onAbort(final Call call)
        {
            final int id = (int)call.checkpointId();
            final AbortReason reason = call.reason();
            require(started[id], () -> "abort of " + id + ", which never started");
            require(!aborted[id], () -> "second abort of " + id);
            require(!completed[id], () -> "abort of " + id + " after it completed");
            require(controller.blocked() == 0, () -> "abort of " + id + " with channels still blocked");
            for (int channel = 0; channel < channels; channel++)
            {
                final int c = channel;
                require(controller.recordingCheckpoint(channel) != id,
                    () -> "abort of " + id + " while channel " + c + " is still recorded for it");
            }
            final boolean justified = switch (reason)
            {
                case SUBSUMED -> (action == Action.BARRIER || action == Action.ANNOUNCE ||
                    action == Action.COORDINATOR_ABORT) && actionCheckpointId > id;
                case DECLINED -> snapshotDeclined[id] && actionCalls.stream().anyMatch(
                    c -> c.name() == Name.SNAPSHOT && c.checkpointId() == id && c.declined());
                case ABORTED_BY_COORDINATOR -> action == Action.COORDINATOR_ABORT && actionCheckpointId == id;
                case TASK_CLOSING -> action == Action.CLOSE;
            };
            require(justified, () -> "abort of " + id + " as " + reason + " on " + action);
            aborted[id] = true;
            abortReasons[id] = reason;
            if (reason == AbortReason.ABORTED_BY_COORDINATOR && announced[id])
            {
                count(Outcome.COORDINATOR_ABORTED_ANNOUNCED);
            }
            count(switch (reason)
            {
                case SUBSUMED -> Outcome.SUBSUMED;
                case DECLINED -> Outcome.DECLINED;
                case ABORTED_BY_COORDINATOR -> Outcome.ABORTED_BY_COORDINATOR;
                case TASK_CLOSING -> Outcome.ABORTED_ON_CLOSE;
            });
        }

        private void onAllBarriersReceived(final Call call)
        {
            final int id = (int)call.checkpointId();
            final CheckpointAlignment alignment = call.alignment();
            require(snapshotTaken[id] && forwarded[id], () -> "all barriers of " + id + " without its snapshot " +
                "taken and forwarded");
            require(!aborted[id] && !completed[id], () -> "all barriers of " + id + ", which was already finished");
            require(allDeliveredOrEnded(id), () -> "all barriers of " + id + " before every channel delivered it");
            require(controller.blocked() == 0, () -> "all barriers of " + id + " with channels still blocked");
            for (int channel = 0; channel < channels; channel++)
            {
                final int c = channel;
                require(controller.recordingCheckpoint(channel) != id,
                    () -> "all barriers of " + id + " while channel " + c + " is still recorded");
            }
            require(alignment.unaligned() == unalignedSnapshot[id], () -> "alignment " + alignment +
                " disagrees with the snapshot");
            require(alignment.firstBarrierNanos() == firstArrival[id] &&
                alignment.firstBarrierNanos() <= alignment.snapshotNanos() &&
                alignment.snapshotNanos() <= alignment.lastBarrierNanos() &&
                alignment.lastBarrierNanos() == clock.nanoTime() &&
                (alignment.unaligned() || alignment.snapshotNanos() == alignment.lastBarrierNanos()),
                () -> "alignment " + alignment + " with the first barrier at " + firstArrival[id] + " and now " +
                    clock.nanoTime());
            boolean channelState = false;
            if (alignment.unaligned())
            {
                for (int channel = 0; channel < channels; channel++)
                {
                    final List<String> expected = inFlight.get(index(id, channel));
                    final List<String> actual = recorded.get(index(id, channel));
                    final int c = channel;
                    require(actual.equals(expected), () -> "recorded for checkpoint " + id + " on channel " + c +
                        ": " + actual + ", but in flight across its cut: " + expected);
                    channelState |= !actual.isEmpty();
                }
            }
            completed[id] = true;
            if (alignment.unaligned() && overtakenInFlight[id] > 0)
            {
                count(Outcome.COMPLETED_WITH_OVERTAKEN_RECORDS);
            }
            if (!aligns(id))
            {
                count(Outcome.AT_LEAST_ONCE_COMPLETED);
            }
            else if (alignment.unaligned())
            {
                if (channelState)
                {
                    count(Outcome.UNALIGNED_COMPLETED_WITH_CHANNEL_STATE);
                }
            }
            else
            {
                count(Outcome.ALIGNED_COMPLETED);
            }
            if (kinds[id] == BarrierKind.SAVEPOINT)
            {
                count(Outcome.SAVEPOINT_COMPLETED);
            }
        }

        // ---------------------------------------------------------------------------------------------------------
        // Checks after each event

        private void begin(final Action next, final int channel, final long checkpointId)
        {
            action = next;
            actionChannel = channel;
            actionCheckpointId = checkpointId;
            actionStartedCheckpoint = false;
            actionOvertaken = List.of();
            actionCalls.clear();
        }

        private void end()
        {
            for (final Call call : actionCalls)
            {
                final int id = (int)call.checkpointId();
                if (call.name() == Name.SNAPSHOT)
                {
                    require(call.declined() ? aborted[id] && abortReasons[id] == AbortReason.DECLINED && !forwarded[id]
                        : forwarded[id], () -> "after \"" + call + "\": no forward, or no abort of the declined one");
                }
                if (call.name() == Name.STOP_RECORDING)
                {
                    final boolean delivered = (action == Action.BARRIER || action == Action.ANNOUNCE) &&
                        actionChannel == call.channel() && actionCheckpointId == id;
                    final boolean endedNow = action == Action.END_OF_INPUT && actionChannel == call.channel();
                    final boolean abortedNow = actionCalls.stream()
                        .anyMatch(c -> c.name() == Name.ABORT && c.checkpointId() == id);
                    require(delivered || endedNow || abortedNow, () -> "\"" + call + "\" without its barrier, its " +
                        "END_OF_INPUT or an abort");
                }
            }
            for (int channel = 0; channel < channels; channel++)
            {
                final int c = channel;
                final boolean blocked = handler.isBlocked(channel);
                require(blocked == has(controller.blocked(), channel),
                    () -> "isBlocked(" + c + ") is " + blocked + ", the block calls say otherwise");
                require(blocked == expectedBlocked(channel),
                    () -> "isBlocked(" + c + ") is " + blocked + ", the model says otherwise");
                final boolean recording = handler.isRecording(channel);
                final long expected = expectedRecording(channel);
                require(recording == (expected != 0) && controller.recordingCheckpoint(channel) == expected,
                    () -> "isRecording(" + c + ") is " + recording + " and the stub records it for " +
                        controller.recordingCheckpoint(c) + "; the model expects " + expected);
            }
            for (int id = 1; id < started.length && id < newestSeen; id++)
            {
                final int checkpoint = id;
                require(!started[id] || completed[id] || aborted[id],
                    () -> "checkpoint " + checkpoint + " is unfinished although " + newestSeen + " is newer");
            }
            if (newestSeen < started.length && started[(int)newestSeen] && allDeliveredOrEnded((int)newestSeen))
            {
                require(completed[(int)newestSeen] || aborted[(int)newestSeen], () -> "every channel delivered " +
                    newestSeen + " or ended, but it is unfinished");
            }
        }

        // ---------------------------------------------------------------------------------------------------------
        // The model

        /** @return the started, unfinished checkpoint, or 0. */
        private long pending()
        {
            for (int id = 1; id < started.length; id++)
            {
                if (started[id] && !completed[id] && !aborted[id])
                {
                    return id;
                }
            }
            return 0;
        }

        /**
         * @return whether checkpoint {@code id} blocks the channels that delivered its barrier until its snapshot: in
         *     every exactly-once setup, and for a savepoint in every setup (a savepoint is always aligned).
         */
        private boolean aligns(final long id)
        {
            return setup != Setup.AT_LEAST_ONCE || kinds[(int)id] == BarrierKind.SAVEPOINT;
        }

        /** @return whether checkpoint {@code id} is started and aligning: no snapshot yet, not finished. */
        private boolean aligning(final long id)
        {
            final int i = (int)id;
            return started[i] && !snapshotTaken[i] && !snapshotDeclined[i] && !aborted[i] && !completed[i];
        }

        private boolean expectedBlocked(final int channel)
        {
            if (ended[channel])
            {
                return false;
            }
            for (int id = 1; id < started.length; id++)
            {
                if (aligns(id) && aligning(id) && has(deliveredBy[id], channel))
                {
                    return true;
                }
            }
            return false;
        }

        private long expectedRecording(final int channel)
        {
            if (ended[channel])
            {
                return 0;
            }
            for (int id = 1; id < started.length; id++)
            {
                if (snapshotTaken[id] && unalignedSnapshot[id] && !aborted[id] && !completed[id] &&
                    !has(deliveredBy[id], channel))
                {
                    return id;
                }
            }
            return 0;
        }

        private boolean allDeliveredOrEnded(final int id)
        {
            for (int channel = 0; channel < channels; channel++)
            {
                if (!ended[channel] && !has(deliveredBy[id], channel))
                {
                    return false;
                }
            }
            return true;
        }

        private int index(final long id, final int channel)
        {
            return (int)id * channels + channel;
        }

        private static boolean has(final long channels, final int channel)
        {
            return (channels & (1L << channel)) != 0;
        }

        private void count(final Outcome outcome)
        {
            coverage.merge(outcome, 1, Integer::sum);
        }

        private void require(final boolean ok, final Supplier<String> what)
        {
            if (!ok)
            {
                throw new AssertionError(describe(what.get()));
            }
        }

        private String describe(final String what)
        {
            final StringBuilder text = new StringBuilder(where).append(":\n  ").append(what)
                .append("\n  last events (newest last):");
            for (final String line : trace.subList(Math.max(0, trace.size() - TRACE_TAIL), trace.size()))
            {
                text.append("\n    ").append(line);
            }
            return text.toString();
        }
    }
}
