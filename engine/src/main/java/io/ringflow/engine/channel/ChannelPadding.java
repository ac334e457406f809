package io.ringflow.engine.channel;

/**
 * The producer-owned counters of a {@link ChannelWriter}, written for every record, padded on both sides (the
 * Disruptor's class sandwich: the JVM lays superclass fields first) so they never share a cache line with the
 * consumer's fields or any other object. Without it, a writer and reader allocated back to back false-share a line
 * and every record costs a cache-line transfer.
 */
abstract class WriterLhsPadding
{
    protected long p01, p02, p03, p04, p05, p06, p07, p08;
}

abstract class WriterHotFields extends WriterLhsPadding
{
    protected long lastClaimed;
    protected long lastPublished;
    /** A claimed slot whose write failed (record too large): reused by the next write, never published as is. */
    protected long spareSequence;
}

abstract class WriterRhsPadding extends WriterHotFields
{
    protected long p11, p12, p13, p14, p15, p16, p17, p18;
}

/**
 * The consumer-owned progress of a {@link ChannelReader}, written on every poll, padded on both sides for the same
 * reason.
 */
abstract class ReaderLhsPadding
{
    protected long p01, p02, p03, p04, p05, p06, p07, p08;
}

abstract class ReaderHotFields extends ReaderLhsPadding
{
    protected long nextSequence;
    protected long availableCache;
}

abstract class ReaderRhsPadding extends ReaderHotFields
{
    protected long p11, p12, p13, p14, p15, p16, p17, p18;
}
