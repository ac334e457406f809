package io.ringflow.connectors.kafka;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.CommittableDataException;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortableException;

/**
 * The exactly-once {@link KafkaSink}: each subtask writes into a Kafka transaction, pre-commits it at the barrier
 * (flush: every record acknowledged, not yet visible; its producer id and epoch go into the checkpoint) and commits
 * it when the checkpoint completes. The next records go into a transaction of another producer of the subtask's
 * pool, so writing never waits for a commit.
 *
 * <p><b>Transactional ids</b> are {@code <prefix>-<attempt>-<subtask>-<n>}: stable for an attempt of the job (the
 * pool of a subtask reuses its ids: normally two), fresh for each attempt. So a restored checkpoint's transactions
 * and the new attempt's never share an id, at any parallelism, and the restore can commit them (by resuming their
 * producer id and epoch) while the new attempt writes. Transactions of failed attempts that no checkpoint holds are
 * found by listing the broker's open transactions with the prefix and are aborted (fenced) after the new attempt's
 * first checkpoint completed, by which time every restored transaction was committed.
 *
 * <p>Thread contract: writer and committer of a subtask share its pool and run on the subtask's task thread.
 *
 * @param <T> the record type.
 */
final class ExactlyOnceKafkaSink<T> implements TwoPhaseCommitSink<T, KafkaCommittable>
{
    private static final System.Logger LOG = System.getLogger(ExactlyOnceKafkaSink.class.getName());

    private final KafkaSink.Settings<T> settings;
    /** Per running subtask: its producer pool, shared by its writer and committer. Key: attempt/subtask. */
    private final Map<String, ProducerPool> pools = new ConcurrentHashMap<>();

    ExactlyOnceKafkaSink(final KafkaSink.Settings<T> settings)
    {
        this.settings = settings;
    }

    @Override
    public void checkCheckpointing(final Duration interval, final Duration timeout)
    {
        final Duration needed = interval.plus(timeout);
        if (settings.transactionTimeout.compareTo(needed) < 0)
        {
            throw new IllegalArgumentException("the Kafka transaction timeout (" +
                settings.transactionTimeout.toMillis() + " ms) is shorter than the checkpoint interval plus the " +
                "checkpoint timeout (" + interval.toMillis() + " + " + timeout.toMillis() + " = " + needed.toMillis() +
                " ms): the broker could abort a " +
                "transaction before its checkpoint completes, losing its records. Raise transactionTimeout (at " +
                "most the broker's transaction.max.timeout.ms) or lower the checkpoint timeout");
        }
    }

    @Override
    public TransactionalWriter<T, KafkaCommittable> createWriter(final SubtaskInfo subtask)
    {
        return new Writer(pool(subtask));
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(final SubtaskInfo subtask)
    {
        return new KafkaCommitter(pool(subtask));
    }

    @Override
    public Class<KafkaCommittable> committableType()
    {
        return KafkaCommittable.class;
    }

    private ProducerPool pool(final SubtaskInfo subtask)
    {
        return pools.computeIfAbsent(subtask.attemptId() + "/" + subtask.subtaskIndex(),
            key -> new ProducerPool(settings, subtask, key));
    }

    /**
     * @param failure what a producer call threw or reported.
     * @return whether it says that another producer took over the transactional id (directly or as a cause: the
     *     client wraps it once it is in an error state).
     */
    static boolean isFencing(final Throwable failure)
    {
        return causedBy(failure, ProducerFencedException.class) ||
            causedBy(failure, InvalidProducerEpochException.class);
    }

    static boolean causedBy(final Throwable failure, final Class<? extends Throwable> type)
    {
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            if (type.isInstance(t))
            {
                return true;
            }
        }
        return false;
    }

    /** Fails the subtask with a message that says what fencing means here. */
    static RuntimeException fenced(final String transactionalId, final String prefix, final RuntimeException ex)
    {
        return new IllegalStateException("the Kafka producer of transactional id '" + transactionalId + "' was " +
            "fenced by another producer with the same id: another job (or a second copy of this one) uses the " +
            "transactional-id prefix '" + prefix + "'. Give each job its own prefix (transactionalIdPrefix)", ex);
    }

    /** One subtask's producers: at most one in an open transaction, others pre-committed or free. */
    private final class ProducerPool implements Callback
    {
        final KafkaSink.Settings<T> settings;
        /** The transactional-id prefix of the sink (configured, or derived from job name and operator uid). */
        final String basePrefix;
        final String idPrefix;
        final String key;
        final ArrayDeque<TransactionalProducer> free = new ArrayDeque<>();
        final Map<String, TransactionalProducer> preCommitted = new HashMap<>();
        TransactionalProducer open;
        int created;
        /** The first send failure, set by Kafka's sender thread; checked by the task thread. */
        volatile Exception sendFailure;

        ProducerPool(final KafkaSink.Settings<T> settings, final SubtaskInfo subtask, final String key)
        {
            this.settings = settings;
            this.key = key;
            this.basePrefix = settings.transactionalIdPrefix(subtask);
            this.idPrefix = basePrefix + "-" + subtask.attemptId() + "-" + subtask.subtaskIndex() + "-";
        }

        TransactionalProducer acquire()
        {
            final TransactionalProducer reused = free.poll();
            if (reused != null)
            {
                return reused;
            }
            final String id = idPrefix + created++;
            try
            {
                return TransactionalProducer.create(id, settings.producerProperties(true));
            }
            catch (final org.apache.kafka.common.errors.TimeoutException ex)
            {
                throw new IllegalStateException("Kafka at " + settings.bootstrapServers + " did not answer within " +
                    settings.requestTimeout.toMillis() + " ms while initializing transactional id '" + id +
                    "' (is the broker running and reachable?): " + ex.getMessage(), ex);
            }
        }

        @Override
        public void onCompletion(final RecordMetadata metadata, final Exception exception)
        {
            if (exception != null && sendFailure == null)
            {
                sendFailure = exception;
            }
        }

        void checkSends()
        {
            final Exception failure = sendFailure;
            if (failure != null)
            {
                if (isFencing(failure))
                {
                    throw fenced(open == null ? idPrefix + "*" : open.transactionalId, basePrefix,
                        new IllegalStateException(failure));
                }
                throw new IllegalStateException("sending to Kafka failed: " + failure, failure);
            }
        }

        void close()
        {
            pools.remove(key);
            if (open != null)
            {
                open.close(); // aborts the transaction no checkpoint holds
            }
            for (final TransactionalProducer pending : preCommitted.values())
            {
                pending.closeKeepingTransaction(); // a restore (or a late completion) commits it
            }
            free.forEach(TransactionalProducer::close);
            free.clear();
            preCommitted.clear();
        }
    }

    private final class Writer implements TransactionalWriter<T, KafkaCommittable>
    {
        private final ProducerPool pool;

        Writer(final ProducerPool pool)
        {
            this.pool = pool;
        }

        @Override
        public void write(final T record)
        {
            if (pool.sendFailure != null)
            {
                pool.checkSends();
            }
            if (pool.open == null)
            {
                pool.open = pool.acquire();
            }
            try
            {
                pool.open.send(pool.settings.serializer.serialize(record), pool);
            }
            catch (final RuntimeException ex)
            {
                throw isFencing(ex) ? fenced(pool.open.transactionalId, pool.basePrefix, ex) : ex;
            }
        }

        @Override
        public List<KafkaCommittable> preCommit(final long checkpointId)
        {
            final TransactionalProducer producer = pool.open;
            if (producer == null)
            {
                return List.of();
            }
            final KafkaCommittable committable;
            try
            {
                committable = producer.preCommit();
            }
            catch (final RuntimeException ex)
            {
                throw isFencing(ex) ? fenced(producer.transactionalId, pool.basePrefix, ex) : ex;
            }
            pool.checkSends();
            pool.preCommitted.put(producer.transactionalId, producer);
            pool.open = null;
            return List.of(committable);
        }

        @Override
        public void close()
        {
            pool.close();
        }
    }

    private final class KafkaCommitter implements Committer<KafkaCommittable>
    {
        private final ProducerPool pool;

        KafkaCommitter(final ProducerPool pool)
        {
            this.pool = pool;
        }

        @Override
        public void commit(final KafkaCommittable committable, final long checkpointId)
            throws CommittableDataException
        {
            final TransactionalProducer live = pool.preCommitted.get(committable.transactionalId());
            if (live != null)
            {
                try
                {
                    live.commit();
                }
                catch (final RuntimeException ex)
                {
                    if (causedBy(ex, org.apache.kafka.common.errors.RetriableException.class) &&
                        !isFencing(ex))
                    {
                        // kept: the sink operator retries, and the client resumes a commit that timed out
                        LOG.log(System.Logger.Level.WARNING, "committing Kafka transaction " + committable +
                            " of checkpoint " + checkpointId + " failed; retrying", ex);
                        throw ex;
                    }
                    pool.preCommitted.remove(committable.transactionalId());
                    live.closeKeepingTransaction();
                    settleRefusedCommit(committable, checkpointId, ex);
                    return;
                }
                pool.preCommitted.remove(committable.transactionalId());
                pool.free.add(live);
                return;
            }
            // a transaction of an earlier attempt (restored from a checkpoint): resume it and commit
            final TransactionalProducer resumed = TransactionalProducer.resume(committable,
                pool.settings.producerProperties(true));
            try
            {
                resumed.commit();
            }
            catch (final ProducerFencedException | InvalidProducerEpochException | InvalidTxnStateException ex)
            {
                // the broker holds no open transaction under this id and epoch: committed before the failure (a
                // commit is retried after a restore), since nothing aborts a transaction a completed checkpoint
                // holds (the transaction timeout is checked against the checkpoint settings at build)
                LOG.log(System.Logger.Level.INFO, "Kafka transaction " + committable + " of checkpoint " +
                    checkpointId + " was completed before this commit (committed before the failure, unless a " +
                    "producer sharing the transactional-id prefix fenced it): " + ex.getMessage());
            }
            finally
            {
                resumed.closeKeepingTransaction();
            }
        }

        /**
         * The broker refused the commit of a transaction this subtask's own producer pre-committed. Every transaction
         * of the id so far was this producer's, so the broker's record of the id tells what happened: committed
         * (the answer was lost), still open under this epoch (a transient error: resumed and committed), or taken
         * over by another producer with the id, which aborted it: its records are gone, and the job fails saying so
         * (a {@link CommittableDataException}: no retry, which would take the fencing for "already committed").
         */
        private void settleRefusedCommit(final KafkaCommittable committable, final long checkpointId,
            final RuntimeException refusal) throws CommittableDataException
        {
            final org.apache.kafka.clients.admin.TransactionDescription description;
            try (Admin admin = Admin.create(pool.settings.adminProperties()))
            {
                description = admin.describeTransactions(List.of(committable.transactionalId())).all()
                    .get(pool.settings.requestTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .get(committable.transactionalId());
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw refusal;
            }
            catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex)
            {
                refusal.addSuppressed(ex);
                throw refusal; // retried by the sink operator, from a resumed producer
            }
            final boolean sameProducer = description.producerId() == committable.producerId();
            final TransactionState state = description.state();
            if (sameProducer && (state == TransactionState.COMPLETE_COMMIT || state == TransactionState.PREPARE_COMMIT)
                && description.producerEpoch() <= committable.epoch() + 1)
            {
                LOG.log(System.Logger.Level.INFO, "Kafka transaction " + committable + " of checkpoint " +
                    checkpointId + " is committed (the commit's answer was an error: " + refusal + ")");
                return;
            }
            if (sameProducer && state == TransactionState.ONGOING && description.producerEpoch() == committable.epoch())
            {
                throw refusal; // still open under this epoch: retried by the sink operator, from a resumed producer
            }
            throw new CommittableDataException(fenced(committable.transactionalId(), pool.basePrefix, refusal)
                .getMessage() + " (the broker's record of the id: " + state + ", producer " +
                description.producerId() + " epoch " + description.producerEpoch() + "; the commit failed with " +
                refusal + ")");
        }

        @Override
        public void abortLeftovers(final String currentAttemptId)
        {
            final String prefix = pool.basePrefix + "-";
            final String own = prefix + currentAttemptId + "-";
            try (Admin admin = Admin.create(pool.settings.adminProperties()))
            {
                final java.util.Collection<TransactionListing> open = admin.listTransactions(
                    new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING))).all()
                    .get(pool.settings.requestTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                int aborted = 0;
                for (final TransactionListing listing : open)
                {
                    final String id = listing.transactionalId();
                    if (id.startsWith(prefix) && !id.startsWith(own))
                    {
                        // a new producer with the id fences the old one and aborts its transaction
                        TransactionalProducer.create(id, pool.settings.producerProperties(true)).close();
                        aborted++;
                    }
                }
                if (aborted > 0)
                {
                    LOG.log(System.Logger.Level.INFO, "aborted " + aborted + " Kafka transaction(s) of earlier " +
                        "attempts that no completed checkpoint holds (prefix '" + prefix + "')");
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while aborting leftover Kafka transactions", ex);
            }
            catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex)
            {
                throw new IllegalStateException("cannot list the open Kafka transactions of prefix '" + prefix +
                    "' at " + pool.settings.bootstrapServers + " to abort those of failed attempts: " + ex, ex);
            }
        }
    }
}
