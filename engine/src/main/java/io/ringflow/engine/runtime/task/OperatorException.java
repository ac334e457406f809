package io.ringflow.engine.runtime.task;


/**
 * Carries a failure out of the operator that caused it, so the task can name that operator. Created only on
 * failure; never crosses the task boundary (the task turns it into a
 * {@link io.ringflow.engine.api.TaskFailureException}).
 */
public final class OperatorException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient OperatorRuntime operator;

    OperatorException(final OperatorRuntime operator, final Throwable cause)
    {
        super(cause.toString(), cause, false, false);
        this.operator = operator;
    }

    OperatorRuntime operator()
    {
        return operator;
    }

    static OperatorException wrap(final OperatorRuntime operator, final Throwable failure)
    {
        return failure instanceof OperatorException ? (OperatorException)failure :
            new OperatorException(operator, failure);
    }
}
