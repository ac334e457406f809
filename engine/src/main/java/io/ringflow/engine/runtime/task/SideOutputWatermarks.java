package io.ringflow.engine.runtime.task;

/**
 * The main output of an operator that also has side outputs: records go to the main output only, watermarks and
 * watermark status to the side outputs too (every edge out of an operator carries its event time). A record-path
 * template ({@link ClassCopies}). Task thread only; allocates nothing.
 */
public final class SideOutputWatermarks implements Output
{
    private final Output main;
    private final Output[] sides;

    /**
     * @param main  where records go.
     * @param sides the operator's side outputs.
     */
    public SideOutputWatermarks(final Output main, final Output[] sides)
    {
        this.main = main;
        this.sides = sides;
    }

    @Override
    public void collect(final Object record)
    {
        main.collect(record);
    }

    @Override
    public void emitWatermark(final long watermark)
    {
        main.emitWatermark(watermark);
        for (final Output side : sides)
        {
            side.emitWatermark(watermark);
        }
    }

    @Override
    public void emitWatermarkStatus(final boolean idle)
    {
        main.emitWatermarkStatus(idle);
        for (final Output side : sides)
        {
            side.emitWatermarkStatus(idle);
        }
    }
}
