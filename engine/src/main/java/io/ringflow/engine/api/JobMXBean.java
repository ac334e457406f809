package io.ringflow.engine.api;

/**
 * A running job, as JMX shows it: every {@link JobHandle} registers one in the platform MBean server while its job
 * runs, named {@code io.ringflow:type=Job,name=<job name>,id=<n>} (the id tells apart jobs of one name in one JVM),
 * and unregisters it when the job has terminated. JConsole, VisualVM or any JMX client attached to the JVM sees it;
 * Ringflow opens no port of its own (remote JMX is the JVM's own, off unless the application enables it).
 *
 * <p>Operations wait for their checkpoint, at most {@link #OPERATION_TIMEOUT_SECONDS} seconds, and fail with the
 * reason a {@link CheckpointException} gives when it is refused or fails.
 */
public interface JobMXBean
{
    /** How long an operation waits for its checkpoint or savepoint. */
    long OPERATION_TIMEOUT_SECONDS = 600;

    /** @return the job's name. */
    String getJobName();

    /** @return RUNNING, RESTARTING, FINISHED, FAILED or CANCELED. */
    String getStatus();

    /** @return how many times the job was restarted after a failure. */
    int getRestartCount();

    /** @return the failure that ended the job or its last attempt, or an empty string. */
    String getFailureCause();

    /** @return checkpoints and savepoints completed by this run, over all its attempts, retained or not. */
    long getCompletedCheckpoints();

    /** @return the id of the newest completed checkpoint or savepoint, or 0. */
    long getLastCheckpointId();

    /** @return its trigger-to-completion time, ms, or 0. */
    double getLastCheckpointDurationMillis();

    /** @return the keyed and operator state it wrote, bytes, or 0. */
    long getLastCheckpointStateBytes();

    /** @return the in-flight records it stored (unaligned checkpoints), bytes, or 0. */
    long getLastCheckpointInFlightBytes();

    /** @return its longest alignment at any task, ms, or 0. */
    double getLastCheckpointMaxAlignmentMillis();

    /** @return a one-line summary of it, or an empty string. */
    String getLastCheckpointSummary();

    /**
     * @return the fill of the fullest ring of the running attempt, 0 to 1 (published, not yet consumed slots over
     *     the ring's size): near 1, that ring's consumer holds the job back. 0 while no attempt runs.
     */
    double getMaxRingFill();

    /** @return per ring of the running attempt, {@code channel: backlog/size}; empty while no attempt runs. */
    String[] getRingBacklogs();

    /**
     * @return records that came too late for every one of their windows and had no late-data side output to go to,
     *     dropped and counted here, over every attempt of the job.
     */
    long getLateRecordsDropped();

    /**
     * @return keyed stores reverted in place by restarts of this job (local recovery, {@code
     *     CheckpointConfig.Builder#localRecovery}) instead of being restored in full; 0 when it is off.
     */
    long getLocallyRecoveredStores();

    /** @return the (state, key) pairs those reverts rewrote from their checkpoints. */
    long getLocallyRecoveredKeys();

    /**
     * @return per ring of the running attempt, {@code channel: published P, consumed C}: the slots (records, and the
     *     few barriers and end-of-input markers) each side has moved since the attempt started; empty while no
     *     attempt runs. Read from the rings' sequences, so counting costs the record path nothing.
     */
    String[] getRingTraffic();

    /**
     * @return the summaries of the completed checkpoints and savepoints this run still keeps, oldest first: those the
     *     running attempt retains (see {@code CheckpointConfig.retained}) after up to 100 of its earlier attempts'.
     */
    String[] getCheckpointHistory();

    /**
     * Takes a checkpoint now, under the same rules as periodic ones.
     *
     * @return its summary, once completed.
     * @throws Exception the reason it was refused or failed, or a timeout.
     */
    String triggerCheckpoint() throws Exception;

    /**
     * Takes a savepoint.
     *
     * @return its summary, once completed.
     * @throws Exception the reason it was refused or failed, or a timeout.
     */
    String triggerSavepoint() throws Exception;

    /**
     * Takes a savepoint, then stops the job.
     *
     * @return the savepoint's summary, once completed.
     * @throws Exception the reason it was refused or failed, or a timeout.
     */
    String stopWithSavepoint() throws Exception;

    /** Cancels the job; returns at once. */
    void cancel();
}
