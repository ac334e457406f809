package io.ringflow.engine.runtime;

/**
 * Sends every record to several outputs, in order: an operator with more than one downstream edge.
 */
final class FanOutOutput implements Output
{
    private final Output[] outputs;

    FanOutOutput(final Output[] outputs)
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
}
