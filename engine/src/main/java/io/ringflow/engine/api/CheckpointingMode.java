package io.ringflow.engine.api;

/**
 * The consistency a task's barrier handling gives the state it snapshots.
 */
public enum CheckpointingMode
{
    /**
     * A snapshot reflects every record that preceded the checkpoint's barriers and none that followed them. Aligned:
     * a channel whose barrier has arrived is not read until the snapshot. Unaligned: the records that cross the cut
     * are stored with the checkpoint as channel state.
     */
    EXACTLY_ONCE,

    /**
     * No channel is ever blocked; the snapshot happens when the last barrier arrives, so it may already reflect
     * records that followed earlier barriers. After a restore those records are processed again.
     */
    AT_LEAST_ONCE
}
