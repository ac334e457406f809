package io.ringflow.engine.runtime.task;


/**
 * Passes records to the next operator of the chain as objects: no copy, no codec. A failure below is attributed to
 * the operator that raised it.
 */
public final class ChainingOutput implements Output
{
    private final StreamOperator next;

    public ChainingOutput(final StreamOperator next)
    {
        this.next = next;
    }

    @Override
    public void collect(final Object record)
    {
        try
        {
            next.processElement(record);
        }
        catch (final Throwable failure)
        {
            throw OperatorException.wrap(next.runtime(), failure);
        }
    }

    @Override
    public void emitWatermark(final long watermark)
    {
        try
        {
            next.processWatermark(watermark);
        }
        catch (final Throwable failure)
        {
            throw OperatorException.wrap(next.runtime(), failure);
        }
    }

    @Override
    public void emitWatermarkStatus(final boolean idle)
    {
        next.processWatermarkStatus(idle);
    }
}
