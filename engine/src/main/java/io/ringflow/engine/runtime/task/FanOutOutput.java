package io.ringflow.engine.runtime.task;


/**
 * Sends every record to several outputs, in order: an operator with more than one downstream edge.
 */
public final class FanOutOutput implements Output
{
    private final Output[] outputs;

    public FanOutOutput(final Output[] outputs)
    {
        this.outputs = outputs;
    }

    @Override
    public void collect(final Object record)
    {
        for (final Output output : outputs)
        {
            output.collect(record);
        }
    }

    @Override
    public void emitWatermark(final long watermark)
    {
        for (final Output output : outputs)
        {
            output.emitWatermark(watermark);
        }
    }

    @Override
    public void emitWatermarkStatus(final boolean idle)
    {
        for (final Output output : outputs)
        {
            output.emitWatermarkStatus(idle);
        }
    }
}
