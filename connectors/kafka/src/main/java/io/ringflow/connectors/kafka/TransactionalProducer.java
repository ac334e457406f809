package io.ringflow.connectors.kafka;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A Kafka producer bound to one transactional id, with the one thing the public client API lacks for two-phase
 * commit: reading the producer id and epoch of an open transaction, and resuming that transaction from a new
 * instance (another attempt, another JVM) to commit it. Both go through the client's internal
 * {@code TransactionManager} by reflection, as Flink's Kafka sink does; checked against kafka-clients 4.4, and a
 * client whose internals differ fails with a message saying so rather than misbehaving.
 *
 * <p>Thread contract: one thread (the sink subtask's task thread) drives it; Kafka's sender thread does the I/O.
 */
final class TransactionalProducer
{
    private static final Internals INTERNALS = Internals.find();

    final String transactionalId;
    final KafkaProducer<byte[], byte[]> producer;
    private boolean inTransaction;

    private TransactionalProducer(final String transactionalId, final Map<String, Object> properties)
    {
        this.transactionalId = transactionalId;
        final Map<String, Object> config = new HashMap<>(properties);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        this.producer = new KafkaProducer<>(config);
    }

    /**
     * Creates the producer and fences every earlier producer of the id (their open transaction is aborted).
     *
     * @param transactionalId the id.
     * @param properties      producer settings (serializers, bootstrap servers, timeouts).
     * @return a producer ready to begin transactions.
     */
    static TransactionalProducer create(final String transactionalId, final Map<String, Object> properties)
    {
        final TransactionalProducer created = new TransactionalProducer(transactionalId, properties);
        try
        {
            created.producer.initTransactions();
        }
        catch (final RuntimeException ex)
        {
            created.producer.close(Duration.ZERO);
            throw ex;
        }
        return created;
    }

    /**
     * A producer that continues the pre-committed transaction of {@code committable}, to commit it. Does not fence.
     *
     * @param committable the transaction.
     * @param properties  producer settings.
     * @return the producer, in the transaction.
     */
    static TransactionalProducer resume(final KafkaCommittable committable, final Map<String, Object> properties)
    {
        final TransactionalProducer resumed = new TransactionalProducer(committable.transactionalId(), properties);
        try
        {
            INTERNALS.resume(resumed.producer, committable.producerId(), committable.epoch());
        }
        catch (final RuntimeException ex)
        {
            resumed.producer.close(Duration.ZERO);
            throw ex;
        }
        resumed.inTransaction = true;
        return resumed;
    }

    void send(final ProducerRecord<byte[], byte[]> record, final Callback callback)
    {
        if (!inTransaction)
        {
            producer.beginTransaction();
            inTransaction = true;
        }
        producer.send(record, callback);
    }

    boolean inTransaction()
    {
        return inTransaction;
    }

    /**
     * Flushes the open transaction: every record sent is acknowledged by the brokers, not yet visible.
     *
     * @return what commits it later.
     */
    KafkaCommittable preCommit()
    {
        producer.flush();
        return INTERNALS.committable(producer, transactionalId);
    }

    void commit()
    {
        producer.commitTransaction();
        inTransaction = false;
    }

    void abort()
    {
        producer.abortTransaction();
        inTransaction = false;
    }

    /** Closes without ending the open transaction: a pre-committed one stays for a restore to commit. */
    void closeKeepingTransaction()
    {
        producer.close(Duration.ZERO);
    }

    /** Closes; an open transaction is aborted. */
    void close()
    {
        producer.close(Duration.ofSeconds(5));
    }

    /** The client internals used, looked up once. */
    private static final class Internals
    {
        final Field transactionManager;
        final Method producerIdAndEpoch;
        final Field producerIdAndEpochField;
        final Field producerIdField;
        final Field epochField;
        final Constructor<?> newProducerIdAndEpoch;
        final Method transitionTo;
        final Class<? extends Enum> stateType;
        final Field txnPartitionMap;
        final Method resetPartitions;
        final Field transactionStarted;
        final RuntimeException missing;

        @SuppressWarnings({"unchecked", "rawtypes"})
        private Internals() throws ReflectiveOperationException
        {
            missing = null;
            transactionManager = KafkaProducer.class.getDeclaredField("transactionManager");
            final Class<?> manager = transactionManager.getType();
            producerIdAndEpoch = manager.getDeclaredMethod("producerIdAndEpoch");
            producerIdAndEpochField = manager.getDeclaredField("producerIdAndEpoch");
            final Class<?> idAndEpoch = producerIdAndEpochField.getType();
            producerIdField = idAndEpoch.getField("producerId");
            epochField = idAndEpoch.getField("epoch");
            newProducerIdAndEpoch = idAndEpoch.getConstructor(long.class, short.class);
            stateType = (Class<? extends Enum>)Class.forName(manager.getName() + "$State");
            transitionTo = manager.getDeclaredMethod("transitionTo", stateType);
            txnPartitionMap = manager.getDeclaredField("txnPartitionMap");
            resetPartitions = txnPartitionMap.getType().getDeclaredMethod("reset");
            transactionStarted = manager.getDeclaredField("transactionStarted");
            for (final java.lang.reflect.AccessibleObject member : new java.lang.reflect.AccessibleObject[] {
                transactionManager, producerIdAndEpoch, producerIdAndEpochField, transitionTo, txnPartitionMap,
                resetPartitions, transactionStarted})
            {
                member.setAccessible(true);
            }
        }

        private Internals(final RuntimeException missing)
        {
            this.missing = missing;
            transactionManager = null;
            producerIdAndEpoch = null;
            producerIdAndEpochField = null;
            producerIdField = null;
            epochField = null;
            newProducerIdAndEpoch = null;
            transitionTo = null;
            stateType = null;
            txnPartitionMap = null;
            resetPartitions = null;
            transactionStarted = null;
        }

        static Internals find()
        {
            try
            {
                return new Internals();
            }
            catch (final ReflectiveOperationException | RuntimeException ex)
            {
                final String version = KafkaProducer.class.getPackage().getImplementationVersion();
                return new Internals(new IllegalStateException("kafka-clients " + version +
                    " is not supported by Ringflow's exactly-once Kafka sink, which resumes pre-committed " +
                    "transactions through the client's internals (checked against 4.4): " + ex, ex));
            }
        }

        KafkaCommittable committable(final KafkaProducer<byte[], byte[]> producer, final String id)
        {
            check();
            try
            {
                final Object ids = producerIdAndEpoch.invoke(transactionManager.get(producer));
                return new KafkaCommittable(id, producerIdField.getLong(ids), epochField.getShort(ids));
            }
            catch (final IllegalAccessException | InvocationTargetException ex)
            {
                throw new IllegalStateException("cannot read the producer id of transactional id " + id, ex);
            }
        }

        @SuppressWarnings("unchecked")
        void resume(final KafkaProducer<byte[], byte[]> producer, final long producerId, final short epoch)
        {
            check();
            try
            {
                final Object manager = transactionManager.get(producer);
                synchronized (manager)
                {
                    // UNINITIALIZED -> INITIALIZING -> READY -> IN_TRANSACTION, holding the given id and epoch
                    transitionTo.invoke(manager, Enum.valueOf(stateType, "INITIALIZING"));
                    resetPartitions.invoke(txnPartitionMap.get(manager));
                    producerIdAndEpochField.set(manager, newProducerIdAndEpoch.newInstance(producerId, epoch));
                    transitionTo.invoke(manager, Enum.valueOf(stateType, "READY"));
                    transitionTo.invoke(manager, Enum.valueOf(stateType, "IN_TRANSACTION"));
                    transactionStarted.setBoolean(manager, true);
                }
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new IllegalStateException("cannot resume the transaction of producer id " + producerId +
                    " epoch " + epoch + " through the Kafka client's internals", ex);
            }
        }

        private void check()
        {
            if (missing != null)
            {
                throw missing;
            }
        }
    }
}
