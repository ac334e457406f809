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
    /** The highest sequence claimed. */
    protected long claimed;
    /** The highest sequence published. */
    protected long lastPublished;
    /** The highest sequence that may be claimed without reading the consumer's progress again. */
    protected long claimLimit;
    /**
     * The claimed slot of the record being written, or -1: set by a claim, cleared by the commit. A record refused as
     * too large leaves it set, and the next write reuses the slot; it is never published as is.
     */
    protected long pending;
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
    /** The sequence of the next slot to read. */
    protected long nextSequence;
    /** The producer's published cursor as last read; re-read only when it falls short of a read. */
    protected long publishedCache;
}

abstract class ReaderRhsPadding extends ReaderHotFields
{
    protected long p11, p12, p13, p14, p15, p16, p17, p18;
}
