package io.ringflow.samples.pageview;

import io.ringflow.engine.api.functions.MapFunction;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Failures injected into the page-view job, on counts of records, never on time: the views entering the count are
 * numbered 1, 2, ... in this JVM (replayed views count again), and the job fails when the number reaches the next
 * failure point: {@code failAt} once, then every {@code failEvery} views, each gap drawn from the seed uniformly in
 * {@code [failEvery / 2, 3 failEvery / 2]}. The same seed gives the same failure points.
 *
 * <p>Thread contract: shared by every subtask of the injecting map; {@link #onView} is lock-free except when a
 * failure point is passed.
 *
 * @param failAt    the view number of the first failure, or 0.
 * @param failEvery the mean gap between later failures, or 0 for none.
 * @param seed      draws the gaps.
 */
public record FaultPlan(long failAt, long failEvery, long seed)
{
    /** @throws IllegalArgumentException when a count is negative. */
    public FaultPlan
    {
        if (failAt < 0 || failEvery < 0)
        {
            throw new IllegalArgumentException("failAt and failEvery must be >= 0, were " + failAt + " and " +
                failEvery);
        }
    }

    /** @return no failures. */
    public static FaultPlan none()
    {
        return new FaultPlan(0, 0, 0);
    }

    /** @return whether any failure is planned. */
    public boolean any()
    {
        return failAt > 0 || failEvery > 0;
    }

    /** @return the map that injects this plan's failures, its state shared by all of its subtasks and attempts. */
    public MapFunction<PageView, PageView> injector()
    {
        final Injector injector = new Injector(this);
        return view ->
        {
            injector.onView();
            return view;
        };
    }

    /** Thrown at a failure point. */
    public static final class InjectedFailure extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        InjectedFailure(final String message)
        {
            super(message);
        }
    }

    private static final class Injector
    {
        private final FaultPlan plan;
        private final SplittableRandom random;
        private final AtomicLong views = new AtomicLong();
        private volatile long nextFailure;

        Injector(final FaultPlan plan)
        {
            this.plan = plan;
            this.random = new SplittableRandom(plan.seed());
            this.nextFailure = plan.failAt() > 0 ? plan.failAt() : plan.failEvery() > 0 ? gap() : Long.MAX_VALUE;
        }

        void onView()
        {
            final long n = views.incrementAndGet();
            if (n == nextFailure)
            {
                synchronized (this)
                {
                    nextFailure = plan.failEvery() > 0 ? n + gap() : Long.MAX_VALUE;
                }
                throw new InjectedFailure("injected failure at view " + n + " of this JVM (seed " + plan.seed() +
                    ")");
            }
        }

        private long gap()
        {
            final long every = plan.failEvery();
            return Math.max(1, every / 2 + random.nextLong(every + 1));
        }
    }
}
