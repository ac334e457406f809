package io.ringflow.engine.api.functions;

/** Which clock a timer runs on. */
public enum TimeDomain
{
    /** Fires when the operator's watermark reaches the timer's time. */
    EVENT_TIME,
    /** Fires when the processing-time clock ({@code JobConfig.clock}) reaches the timer's time. */
    PROCESSING_TIME
}
