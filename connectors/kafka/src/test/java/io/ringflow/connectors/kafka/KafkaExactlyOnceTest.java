package io.ringflow.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.ringflow.connectors.kafka.local.LocalKafkaBroker;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.CheckpointListener;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connector's end-to-end proof against a real (in-process) broker: Kafka → keyBy → running count per key →
 * Kafka, with seeded failures (user function, between pre-commit and commit, a failed commit, a failed write) and
 * restarts. A {@code read_committed} consumer of the output must see every key's counts exactly 1..n, in order, and
 * nothing of aborted transactions; no transaction of the job may be left open.
 */
class KafkaExactlyOnceTest
{
    private static final int KEYS = 50;
    private static final long RECORDS = 20_000;
    private static final int INPUT_PARTITIONS = 3;
    private static final int SEEDS = Integer.getInteger("ringflow.kafka.seeds", 2);
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception
    {
        broker = LocalKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker()
    {
        broker.close();
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        long seed = 1;
        for (final CheckpointingMode mode : new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE, null})
        {
            for (final int parallelism : new int[] {1, 2})
            {
                for (int i = 0; i < SEEDS; i++)
                {
                    cases.add(Arguments.of(seed++, mode == null ? "unaligned" : "aligned", parallelism));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "seed {0}: {1}, parallelism {2}")
    @MethodSource("cases")
    void readCommittedOutputIsTheFailureFreeOutput(final long seed, final String barriers, final int parallelism)
        throws Exception
    {
        final String in = "in-" + seed;
        final String out = "out-" + seed;
        broker.createTopic(in, INPUT_PARTITIONS);
        broker.createTopic(out, 2);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), in, INPUT_PARTITIONS, 0, RECORDS);
        final Faults faults = Faults.draw(seed);
        final String prefix = "eo-test-" + seed;

        final CheckpointConfig.Builder checkpointing = CheckpointConfig.every(Duration.ofMillis(20))
            .tolerableFailures(Integer.MAX_VALUE);
        if (barriers.equals("unaligned"))
        {
            checkpointing.unaligned(true);
        }
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(checkpointing.build())
            .restartStrategy(RestartStrategy.fixedDelay(50, Duration.ZERO))
            .ringSize(64)
            .build());
        final Sink<String> kafka = KafkaSink.<String>builder()
            .bootstrapServers(broker.bootstrapServers())
            .serializer(line -> new ProducerRecord<>(out, line.substring(0, line.indexOf(','))
                .getBytes(StandardCharsets.UTF_8), line.getBytes(StandardCharsets.UTF_8)))
            .transactionalIdPrefix(prefix)
            .build();
        env.fromSource(KafkaSource.builder(Long.class)
                .bootstrapServers(broker.bootstrapServers())
                .topics(in)
                .deserializer(KafkaRecordDeserializer.valueCodec(LongCodec.INSTANCE))
                .bounded()
                .build(), "numbers")
            .uid("numbers")
            .setParallelism(parallelism)
            .keyBy(n -> n % KEYS)
            .process(() -> new CountPerKey(faults))
            .returns(String.class)
            .uid("count")
            .setParallelism(parallelism)
            .sinkTo(new FaultySink(kafka, faults))
            .uid("sink")
            .setParallelism(parallelism);
        final JobHandle job = env.execute("kafka-exactly-once-" + seed);
        final JobStatus status = job.termination().get(120, TimeUnit.SECONDS);
        assertThat(status).as("%s, failure %s", faults, job.failureCause().orElse(null))
            .isEqualTo(JobStatus.FINISHED);
        job.close();

        // the last commits' markers reach the partitions after the job ended: wait for them, not for time
        final boolean settled = CommittedRecords.awaitSettled(broker.bootstrapServers(), out, Duration.ofMinutes(2));
        assertThat(settled).as("the output settles: no transaction left open on it (open with the job's prefix: %s)",
            KafkaTestSupport.openTransactions(broker.admin(), prefix)).isTrue();
        final Map<Long, List<Long>> perKey = KafkaTestSupport.countsPerKey(
            KafkaTestSupport.readCommitted(broker.bootstrapServers(), out));
        for (long key = 0; key < KEYS; key++)
        {
            final long expected = RECORDS / KEYS;
            final List<Long> exact = new ArrayList<>();
            for (long c = 1; c <= expected; c++)
            {
                exact.add(c);
            }
            assertThat(perKey.getOrDefault(key, List.of())).as("key %d, %s", key, faults).isEqualTo(exact);
        }
        assertThat(KafkaTestSupport.openTransactions(broker.admin(), prefix))
            .as("no transaction of the job is left open").isEmpty();
        System.out.printf("seed %d (%s, parallelism %d): %s; fired: %s%n", seed, barriers, parallelism, faults,
            faults.fired());
    }

    /** Which call of each kind fails (once), drawn from the seed; 0 = never. */
    static final class Faults
    {
        final AtomicLong records = new AtomicLong();
        final AtomicLong completions = new AtomicLong();
        final AtomicLong commits = new AtomicLong();
        final AtomicLong writes = new AtomicLong();
        final Set<String> fired = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final long userFunctionAt;
        final long notifyAt;
        final long commitAt;
        final long writeAt;

        private Faults(final long userFunctionAt, final long notifyAt, final long commitAt, final long writeAt)
        {
            this.userFunctionAt = userFunctionAt;
            this.notifyAt = notifyAt;
            this.commitAt = commitAt;
            this.writeAt = writeAt;
        }

        static Faults draw(final long seed)
        {
            final Random random = new Random(seed);
            return new Faults(1 + random.nextInt((int)RECORDS), 1 + random.nextInt(4), 1 + random.nextInt(4),
                1 + random.nextInt((int)RECORDS));
        }

        void fire(final AtomicLong counter, final long at, final String what)
        {
            if (at > 0 && counter.incrementAndGet() == at)
            {
                fired.add(what);
                throw new IllegalStateException("injected fault: " + what + " #" + at);
            }
        }

        Set<String> fired()
        {
            return new HashSet<>(fired);
        }

        @Override
        public String toString()
        {
            return "faults(user function at record #" + userFunctionAt + ", after pre-commit at completion #" +
                notifyAt + ", commit #" + commitAt + ", sink write #" + writeAt + ")";
        }
    }

    /** A running count per key, emitted as "key,count"; can fail per record and between pre-commit and commit. */
    static final class CountPerKey extends KeyedProcessFunction<Long, Long, String> implements CheckpointListener
    {
        private final Faults faults;
        private ValueState<Long> count;

        CountPerKey(final Faults faults)
        {
            this.faults = faults;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<String> out)
        {
            faults.fire(faults.records, faults.userFunctionAt, "user function");
            final long next = count.value() + 1;
            count.update(next);
            out.collect(ctx.getCurrentKey() + "," + next);
        }

        @Override
        public void notifyCheckpointComplete(final long checkpointId)
        {
            // the checkpoint is complete (its transactions pre-committed); the sink's commit may not have run yet
            faults.fire(faults.completions, faults.notifyAt, "between pre-commit and commit");
        }
    }

    /** The real Kafka sink, with a failing write and a failing commit injected in front of it. */
    static final class FaultySink implements TwoPhaseCommitSink<String, KafkaCommittable>
    {
        private final TwoPhaseCommitSink<String, KafkaCommittable> sink;
        private final Faults faults;

        @SuppressWarnings("unchecked")
        FaultySink(final Sink<String> sink, final Faults faults)
        {
            this.sink = (TwoPhaseCommitSink<String, KafkaCommittable>)sink;
            this.faults = faults;
        }

        @Override
        public TransactionalWriter<String, KafkaCommittable> createWriter(final SubtaskInfo subtask) throws Exception
        {
            final TransactionalWriter<String, KafkaCommittable> writer = sink.createWriter(subtask);
            return new TransactionalWriter<>()
            {
                @Override
                public void write(final String record) throws Exception
                {
                    faults.fire(faults.writes, faults.writeAt, "sink write");
                    writer.write(record);
                }

                @Override
                public List<KafkaCommittable> preCommit(final long checkpointId) throws Exception
                {
                    return writer.preCommit(checkpointId);
                }

                @Override
                public void close() throws Exception
                {
                    writer.close();
                }
            };
        }

        @Override
        public Committer<KafkaCommittable> createCommitter(final SubtaskInfo subtask) throws Exception
        {
            final Committer<KafkaCommittable> committer = sink.createCommitter(subtask);
            return new Committer<>()
            {
                @Override
                public void commit(final KafkaCommittable committable, final long checkpointId) throws Exception
                {
                    faults.fire(faults.commits, faults.commitAt, "commit");
                    committer.commit(committable, checkpointId);
                }

                @Override
                public void abortLeftovers(final String currentAttemptId) throws Exception
                {
                    committer.abortLeftovers(currentAttemptId);
                }
            };
        }

        @Override
        public Class<KafkaCommittable> committableType()
        {
            return sink.committableType();
        }

        @Override
        public void checkCheckpointing(final Duration interval, final Duration timeout)
        {
            sink.checkCheckpointing(interval, timeout);
        }
    }
}
