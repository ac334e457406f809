package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.ParkingSignal;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.checkpoint.barrier.BarrierHandler;
import io.ringflow.engine.checkpoint.barrier.BarrierHandlerOptions;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.PartitionKind;
import io.ringflow.engine.graph.StreamEdge;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.runtime.recovery.KeyedRestores;
import io.ringflow.engine.runtime.recovery.LocalKeyedStores;
import io.ringflow.engine.runtime.recovery.RestoreSpec;
import io.ringflow.engine.runtime.recovery.StateRestorer;
import io.ringflow.engine.runtime.task.ChainingOutput;
import io.ringflow.engine.runtime.task.BroadcastOutput;
import io.ringflow.engine.runtime.task.ClassCopies;
import io.ringflow.engine.runtime.task.ForwardOutput;
import io.ringflow.engine.runtime.task.KeyHashOutput;
import io.ringflow.engine.runtime.task.RebalanceOutput;
import io.ringflow.engine.runtime.task.Idler;
import io.ringflow.engine.runtime.task.InputChannel;
import io.ringflow.engine.runtime.task.InputTask;
import io.ringflow.engine.runtime.task.OperatorRuntime;
import io.ringflow.engine.runtime.task.OperatorStateStore;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.engine.runtime.task.TaskTime;
import io.ringflow.engine.runtime.task.SourceTask;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.engine.runtime.task.Task;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.backend.KeyedStoreSpec;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.MissingCodecException;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a resolved {@link StreamGraph} into a physical plan and wires it: one task per (chain, subtask), one ring
 * channel per connected (upstream subtask, downstream subtask) pair of every edge that crosses tasks, a codec per
 * such edge. Every check that can fail happens here, before any thread starts.
 */
public final class Deployer
{
    /** Records too late for every window, dropped without a side output: over all attempts (see TaskTime). */
    private final java.util.concurrent.atomic.LongAdder lateRecordsDropped = new java.util.concurrent.atomic.LongAdder();

    private static final System.Logger LOG = System.getLogger(Deployer.class.getName());

    private final String jobName;
    private final JobConfig config;
    private final CodecRegistry codecs;
    /** Local recovery: keyed stores of failed attempts, for the next attempt of the run; null when off. */
    private final LocalKeyedStores localStores;

    /**
     * @param jobName the job's name.
     * @param config  the job's settings.
     * @param codecs  codecs for the records that cross channels.
     */
    public Deployer(final String jobName, final JobConfig config, final CodecRegistry codecs)
    {
        this.jobName = jobName;
        this.config = config;
        this.codecs = codecs;
        this.localStores = config.checkpointing() != null && config.checkpointing().localRecovery() ?
            new LocalKeyedStores() : null;
    }

    /** @return the keyed stores kept across this run's restarts (local recovery), or null when it is off. */
    public LocalKeyedStores localStores()
    {
        return localStores;
    }

    /**
     * Starts a deployed attempt.
     *
     * @param execution the attempt, deployed by {@link #deploy}.
     */
    public void start(final JobAttempt execution)
    {
        LOG.log(System.Logger.Level.DEBUG, () -> "job '" + jobName + "': " + execution.threadNames().size() +
            " task threads, " + execution.channelCount() + " ring channels, " +
            (long)execution.channelCount() * config.ringSize() * config.slotSize() / 1024 + " KiB of off-heap slots");
        warnIfSpinningThreadsOutnumberCores(execution.threadNames().size());
        execution.start();
    }

    private void warnIfSpinningThreadsOutnumberCores(final int taskThreads)
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final IdleStrategyKind idle = config.idleStrategy();
        if (idle != IdleStrategyKind.BUSY_SPIN && idle != IdleStrategyKind.YIELD)
        {
            return;
        }
        if (taskThreads > cores)
        {
            LOG.log(System.Logger.Level.WARNING, () -> "job '" + jobName + "' runs " + taskThreads + " task threads" +
                " that never sleep (" + idle + ") on " + cores + " cores: a descheduled spinning thread stalls its" +
                " partners for a whole time slice, and throughput collapses. Use BACKOFF or BLOCK, or fewer threads");
        }
        else if (taskThreads == cores && idle == IdleStrategyKind.BUSY_SPIN)
        {
            LOG.log(System.Logger.Level.WARNING, () -> "job '" + jobName + "' busy-spins " + taskThreads +
                " task threads on " + cores + " cores, leaving none for the JVM and the OS: expect latency tails" +
                " of milliseconds. BLOCK gives the best tail when threads and cores are this few");
        }
    }

    /**
     * @param graph            the job.
     * @param restore          what to restore from, or null for a fresh start.
     * @param firstCheckpoint  the id of the attempt's first checkpoint (ids keep rising across attempts).
     * @param storage          where checkpoints go.
     * @return the wired attempt, not started.
     */
    public JobAttempt deploy(final StreamGraph graph, final RestoreSpec restore, final long firstCheckpoint,
        final CheckpointStorage storage)
    {
        final List<StreamEdge> edges = GraphResolver.resolve(graph, config);
        if (config.specializeChains())
        {
            CompilerDirectives.installOnce();
        }
        final StateRestorer restorer = restore == null ? null : new StateRestorer(restore, config, localStores);
        if (restorer != null)
        {
            restorer.checkAllStateIsClaimed(graph.nodes());
        }
        final Map<StreamNode, List<StreamNode>> chains = Chains.compute(graph, config);
        final Map<StreamNode, StreamNode> headOf = new IdentityHashMap<>();
        chains.forEach((head, members) -> members.forEach(member -> headOf.put(member, head)));

        final Map<StreamEdge, Codec<Object>> edgeCodecs = new IdentityHashMap<>();
        for (final StreamEdge edge : edges)
        {
            if (headOf.get(edge.target()) == edge.target())
            {
                edgeCodecs.put(edge, codecFor(edge));
            }
        }

        final JobAttempt execution = new JobAttempt(jobName, config.checkpointing(), firstCheckpoint, storage,
            localStores);
        if (restore != null && storage != null && storage.sameAs(restore.storage()))
        {
            // the restored checkpoint's shared files are this storage's: the first deltas may extend its chains
            execution.coordinator().restoredFrom(restore.checkpoint());
        }
        // Wake-up signals of the consumer subtasks, for the BLOCK idle strategy.
        final Map<StreamNode, ParkingSignal[]> signals = new HashMap<>();
        for (final StreamNode head : chains.keySet())
        {
            final ParkingSignal[] perSubtask = new ParkingSignal[head.parallelism()];
            if (config.idleStrategy() == IdleStrategyKind.BLOCK && head.kind() != NodeKind.SOURCE)
            {
                for (int s = 0; s < perSubtask.length; s++)
                {
                    perSubtask[s] = new ParkingSignal();
                }
            }
            signals.put(head, perSubtask);
        }

        // channels[edge][upstream subtask][downstream subtask]
        final Map<StreamEdge, RingChannel[][]> channels = new IdentityHashMap<>();
        for (final StreamEdge edge : edgeCodecs.keySet())
        {
            final int up = edge.source().parallelism();
            final int down = edge.target().parallelism();
            final RingChannel[][] grid = new RingChannel[up][down];
            for (int u = 0; u < up; u++)
            {
                for (int d = 0; d < down; d++)
                {
                    if (edge.partition() != PartitionKind.FORWARD || u == d)
                    {
                        grid[u][d] = new RingChannel(
                            edge.source().name() + "[" + u + "] -> " + edge.target().name() + "[" + d + "]",
                            config.ringSize(),
                            config.slotSize(),
                            config.publishBatch(),
                            signals.get(edge.target())[d]);
                        execution.addChannel(grid[u][d]);
                    }
                }
            }
            channels.put(edge, grid);
        }

        try
        {
            final KeyedRestores keyedRestores = new KeyedRestores(jobName,
                Runtime.getRuntime().availableProcessors());
            buildTasks(execution, chains, channels, edgeCodecs, signals, restorer, keyedRestores,
                new Specializer(config));
            if (localStores != null)
            {
                // stores of subtasks this attempt does not have (another parallelism, operator or uid)
                localStores.closeUntaken();
            }
            // the subtasks' keyed stores, each restored or reverted on its own thread; all done before any task runs
            keyedRestores.runAll();
        }
        catch (final RuntimeException ex)
        {
            for (final RingChannel[][] grid : channels.values())
            {
                for (final RingChannel[] row : grid)
                {
                    for (final RingChannel channel : row)
                    {
                        if (channel != null)
                        {
                            channel.release();
                        }
                    }
                }
            }
            execution.discardUnstarted();
            throw ex;
        }
        return execution;
    }

    private void buildTasks(
        final JobAttempt execution,
        final Map<StreamNode, List<StreamNode>> chains,
        final Map<StreamEdge, RingChannel[][]> channels,
        final Map<StreamEdge, Codec<Object>> edgeCodecs,
        final Map<StreamNode, ParkingSignal[]> signals,
        final StateRestorer restorer,
        final KeyedRestores keyedRestores,
        final Specializer specializer)
    {
        int nextCpu = 0;
        final int[] cpus = cpuList();
        for (final Map.Entry<StreamNode, List<StreamNode>> chainEntry : chains.entrySet())
        {
            final StreamNode head = chainEntry.getKey();
            final List<StreamNode> members = chainEntry.getValue();
            for (int s = 0; s < head.parallelism(); s++)
            {
                final int cpu = cpus == null ? -1 : cpus[nextCpu++ % cpus.length];
                final Task task = buildTask(execution, head, members, s, channels, edgeCodecs, signals, cpu,
                    restorer, keyedRestores, specializer);
                task.forgetChangesAtCompletion(localStores != null && !config.checkpointing().incremental());
                task.privateLoop(config.specializeChains());
                final Thread thread = new Thread(task, "ringflow-" + jobName + "-" + head.name() + "-" + s);
                thread.setDaemon(false);
                execution.addTask(task, thread);
            }
        }
    }

    /** @return how many records were too late for every window and dropped, in every attempt of the job. */
    public long lateRecordsDropped()
    {
        return lateRecordsDropped.sum();
    }

    private Task buildTask(
        final JobAttempt execution,
        final StreamNode head,
        final List<StreamNode> members,
        final int subtask,
        final Map<StreamEdge, RingChannel[][]> channels,
        final Map<StreamEdge, Codec<Object>> edgeCodecs,
        final Map<StreamNode, ParkingSignal[]> signals,
        final int cpu,
        final StateRestorer restorer,
        final KeyedRestores keyedRestores,
        final Specializer specializer)
    {
        // tail first: an operator's class (its copy) is chosen knowing its output's, and an output's knowing the
        // next operator's (Specializer); members are in topological order
        final Map<StreamNode, StreamOperator> operators = new IdentityHashMap<>();
        final TaskTime time = new TaskTime(config.clock(), config.timerFiringBatch(),
            config.autoWatermarkIntervalMillis(), lateRecordsDropped);
        final StreamOperator[] chain = new StreamOperator[members.size()];
        final List<List<ChannelWriter>> writersPerMember = new ArrayList<>();
        for (int i = members.size() - 1; i >= 0; i--)
        {
            final StreamNode node = members.get(i);
            final List<ChannelWriter> nodeWriters = new ArrayList<>();
            final List<Output> mainOutputs = new ArrayList<>();
            final Map<String, List<Output>> sideOutputs = new java.util.HashMap<>();
            for (final StreamEdge edge : node.outputs())
            {
                final List<Output> outputs = edge.sideOutput() == null ? mainOutputs :
                    sideOutputs.computeIfAbsent(edge.sideOutput().id(), id -> new ArrayList<>());
                final StreamOperator chained = operators.get(edge.target());
                if (chained != null && !edgeCodecs.containsKey(edge))
                {
                    outputs.add(specializer.output(ChainingOutput.class, chained));
                    continue;
                }
                final RingChannel[] row = channels.get(edge)[subtask];
                final ChannelWriter[] writers;
                if (edge.partition() == PartitionKind.FORWARD)
                {
                    writers = new ChannelWriter[] {row[subtask].writer()};
                }
                else
                {
                    writers = new ChannelWriter[row.length];
                    for (int d = 0; d < row.length; d++)
                    {
                        writers[d] = row[d].writer();
                    }
                }
                nodeWriters.addAll(List.of(writers));
                outputs.add(channelOutput(edge, writers, edgeCodecs.get(edge), subtask, specializer));
            }
            writersPerMember.add(0, nodeWriters);
            final Map<String, Output> sides = new java.util.LinkedHashMap<>();
            for (final Map.Entry<String, List<Output>> side : sideOutputs.entrySet())
            {
                sides.put(side.getKey(), combine(side.getValue(), specializer));
            }
            // watermarks go down every edge, side outputs included
            final Output output = sides.isEmpty() ? combine(mainOutputs, specializer) : specializer.output(
                io.ringflow.engine.runtime.task.SideOutputWatermarks.class, combine(mainOutputs, specializer),
                sides.values().toArray(new Output[0]));
            final KeyedStateStore keyedStore = node.keyedState() ? keyedStore(execution, node, subtask, restorer) :
                null;
            chain[i] = OperatorTranslator.create(node, subtask, specializer, output, keyedStore);
            operators.put(node, chain[i]);
            final OperatorStateStore operatorStore = new OperatorStateStore(codecs);
            final OperatorRuntime runtime = new OperatorRuntime(
                jobName, node.name(), node.uid(), subtask, node.parallelism(), config.maxParallelism(),
                keyedStore, operatorStore, execution.attemptId(), time);
            for (final Map.Entry<String, Output> side : sides.entrySet())
            {
                runtime.sideOutput(side.getKey(), side.getValue());
            }
            chain[i].setup(runtime, output);
            if (restorer != null)
            {
                restorer.restore(node, subtask, keyedStore, operatorStore, chain[i], node == head, keyedRestores);
            }
        }
        final List<ChannelWriter> allWriters = new ArrayList<>();
        writersPerMember.forEach(allWriters::addAll);

        final String taskName = taskName(members, subtask, head.parallelism());
        final ChannelWriter[] writers = allWriters.toArray(new ChannelWriter[0]);
        for (final ChannelWriter writer : writers)
        {
            writer.timestamps(time.timestamp);
        }
        final ParkingSignal signal = signals.get(head)[subtask];
        final Idler idler = Idler.create(config.idleStrategy(), signal, config.maxParkNanos());
        if (head.kind() == NodeKind.SOURCE)
        {
            final SourceTask task = new SourceTask(execution, taskName, chain, writers, idler, config.maxParkNanos(),
                cpu, config.readBatch());
            task.announceBarriers(barrierOptions().unaligned());
            return task;
        }

        final List<ChannelReader> readers = new ArrayList<>();
        final List<Integer> inputIndexes = new ArrayList<>();
        final List<Codec<Object>> codecsPerChannel = new ArrayList<>();
        final List<Class<? extends InputChannel>> loopsPerChannel = new ArrayList<>();
        for (final StreamEdge edge : head.inputs())
        {
            final RingChannel[][] grid = channels.get(edge);
            for (final RingChannel[] row : grid)
            {
                if (row[subtask] != null)
                {
                    readers.add(row[subtask].reader());
                    inputIndexes.add(edge.inputIndex());
                    codecsPerChannel.add(edgeCodecs.get(edge));
                    loopsPerChannel.add(specializer.inputLoop(edgeCodecs.get(edge), chain[0]));
                }
            }
        }
        @SuppressWarnings("unchecked")
        final Codec<Object>[] codecArray = codecsPerChannel.toArray(new Codec[0]);
        if (readers.size() > BarrierHandler.MAX_CHANNELS)
        {
            throw new InvalidJobException(head.describe() + " subtask " + subtask + " has " + readers.size() +
                " input channels; a task takes at most " + BarrierHandler.MAX_CHANNELS +
                " (lower the parallelism of its upstream operators)");
        }
        final InputTask task = new InputTask(execution, taskName, chain, writers, idler, config.maxParkNanos(), cpu,
            readers.toArray(new ChannelReader[0]), inputIndexes.stream().mapToInt(Integer::intValue).toArray(),
            codecArray, config.readBatch(), config.keyPrefetch(), signal, barrierOptions(), loopsPerChannel);
        if (restorer != null)
        {
            restorer.restoreChannelState(head, subtask, task);
        }
        return task;
    }

    /** @return one output for the edges' outputs: none (records dropped), the one, or a fan-out over them. */
    private static Output combine(final List<Output> outputs, final Specializer specializer)
    {
        return outputs.isEmpty() ? record -> { } : outputs.size() == 1 ? outputs.get(0) :
            specializer.fanOut(outputs.toArray(new Output[0]));
    }

    /** The output of one upstream subtask into the channels of an edge that crosses tasks, by its partitioning. */
    private Output channelOutput(final StreamEdge edge, final ChannelWriter[] writers, final Codec<Object> codec,
        final int subtask, final Specializer specializer)
    {
        switch (edge.partition())
        {
            case FORWARD:
                return specializer.output(ForwardOutput.class, writers[0], codec);
            case REBALANCE:
                return specializer.output(RebalanceOutput.class, writers, codec, subtask);
            case BROADCAST:
                return specializer.output(BroadcastOutput.class, writers, codec);
            case KEY_HASH:
                return specializer.output(KeyHashOutput.class, writers, codec, edge.keySelector(),
                    edge.target().name(), config.maxParallelism());
            default:
                throw new IllegalStateException("no output for partitioning " + edge.partition());
        }
    }

    /**
     * One subtask's keyed store: with local recovery, the store the failed attempt's same subtask left, when it can be
     * reverted to the checkpoint restored (the restorer then reverts it); else a new one in the configured backend.
     * The execution closes it at the end, or keeps it for the next attempt if it fails (local recovery).
     */
    private KeyedStateStore keyedStore(final JobAttempt execution, final StreamNode node, final int subtask,
        final StateRestorer restorer)
    {
        final KeyGroupRange range = KeyGroups.rangeOf(subtask, config.maxParallelism(), node.parallelism());
        if (localStores != null)
        {
            final KeyedStateStore kept = localStores.take(node.uid(), subtask, range);
            final String refusal = kept == null || restorer == null ? null :
                kept.whyNotRevertibleTo(restorer.checkpointId());
            if (kept != null && restorer != null && refusal == null)
            {
                execution.keepOnFailure(node.uid(), subtask, range, kept);
                return kept;
            }
            if (kept != null)
            {
                LOG.log(System.Logger.Level.INFO, () -> node.describe() + " subtask " + subtask + " is restored in " +
                    "full: its kept store cannot be reverted to " + (restorer == null ? "a fresh start" :
                    "checkpoint " + restorer.checkpointId() + ": " + refusal));
                kept.close();
            }
        }
        final KeyedStoreSpec spec = new KeyedStoreSpec(
            node.describe() + " subtask " + subtask, codecs, config.maxParallelism(), range,
            config.checkpointing() != null && (config.checkpointing().incremental() ||
                config.checkpointing().localRecovery()));
        final KeyedStateStore store;
        try
        {
            store = config.stateBackend().createKeyedStore(spec);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new InvalidJobException(ex.getMessage(), ex);
        }
        if (localStores != null)
        {
            execution.keepOnFailure(node.uid(), subtask, range, store);
        }
        else
        {
            execution.closeAtEnd(store);
        }
        return store;
    }

    @SuppressWarnings("unchecked")
    private Codec<Object> codecFor(final StreamEdge edge)
    {
        final StreamNode source = edge.source();
        final Class<?> type = edge.recordType();
        if (type == null)
        {
            throw new InvalidJobException("the output type of " + source.describe() + " is unknown, and its records" +
                " cross a channel to " + edge.target().describe() + ". Lambdas erase generic types: declare it with" +
                " .returns(YourType.class) after the operator");
        }
        final Codec<Object> codec;
        try
        {
            codec = (Codec<Object>)codecs.codecFor(type);
        }
        catch (final MissingCodecException ex)
        {
            throw new InvalidJobException("records of type " + type.getName() + " from " + source.describe() +
                " cross a channel to " + edge.target().describe() + " but have no codec. Make the type a Java " +
                "record, or register a codec with JobEnvironment.registerCodec(" + type.getSimpleName() +
                ".class, codec) before execute(). (" + ex.getMessage() + ")", ex);
        }
        // a record sent by key may carry its Long key in front of it, and one with event time its timestamp
        final int reserved = (edge.partition() == PartitionKind.KEY_HASH ? SlotDescriptor.LONG_KEY_LENGTH : 0) +
            (GraphResolver.hasWatermarksUpstream(edge.target(), new java.util.HashSet<>()) ?
                SlotDescriptor.TIMESTAMP_LENGTH : 0);
        final int payload = SlotDescriptor.payloadCapacity(config.slotSize()) - reserved;
        if (codec.maxEncodedLength() > payload)
        {
            throw new InvalidJobException("records of type " + type.getName() + " from " + source.describe() +
                " always encode to " + codec.maxEncodedLength() + " bytes, more than the " + payload +
                " payload bytes a slot has for them" + (reserved > 0 ? " (" + reserved + " more carry the key or " +
                "the timestamp)" : "") +
                "; raise JobConfig slotSize to at least " +
                ((codec.maxEncodedLength() + reserved + SlotDescriptor.HEADER_LENGTH + 7) & ~7));
        }
        return codec;
    }

    private BarrierHandlerOptions barrierOptions()
    {
        if (config.checkpointingMode() == CheckpointingMode.AT_LEAST_ONCE)
        {
            return BarrierHandlerOptions.atLeastOnce();
        }
        final io.ringflow.engine.api.CheckpointConfig checkpointing = config.checkpointing();
        if (checkpointing != null && checkpointing.unaligned())
        {
            return BarrierHandlerOptions.unalignedCheckpoints();
        }
        if (checkpointing != null && checkpointing.alignedTimeout() != null)
        {
            return BarrierHandlerOptions.alignedWithTimeout(checkpointing.alignedTimeout());
        }
        return BarrierHandlerOptions.aligned();
    }

    private int[] cpuList()
    {
        if (!config.pinThreads())
        {
            return null;
        }
        if (config.cpus() != null)
        {
            return config.cpus();
        }
        final int[] all = new int[Runtime.getRuntime().availableProcessors()];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = i;
        }
        return all;
    }

    private static String taskName(final List<StreamNode> members, final int subtask, final int parallelism)
    {
        final StringBuilder name = new StringBuilder();
        for (final StreamNode node : members)
        {
            if (name.length() > 0)
            {
                name.append(" -> ");
            }
            name.append(node.name());
        }
        return name.append(" (").append(subtask + 1).append('/').append(parallelism).append(')').toString();
    }
}
