package io.ringflow.engine.runtime.recovery;

import io.ringflow.engine.api.RestartStrategy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The restart decisions, with time passed in by hand. */
class RestartBackoffTest
{
    private static final long MS = 1_000_000L;

    @Test
    void noneNeverRestarts()
    {
        final RestartBackoff backoff = new RestartBackoff(RestartStrategy.none());
        assertThat(backoff.onFailure(0, 0)).isEqualTo(RestartBackoff.GIVE_UP);
        assertThat(backoff.restarts()).isZero();
    }

    @Test
    void fixedDelayRestartsExactlyMaxTimesWithItsDelay()
    {
        final RestartBackoff backoff = new RestartBackoff(RestartStrategy.fixedDelay(2, Duration.ofMillis(5)));
        assertThat(backoff.onFailure(0, 0)).isEqualTo(5 * MS);
        assertThat(backoff.onFailure(10 * MS, 6 * MS)).isEqualTo(5 * MS);
        assertThat(backoff.onFailure(20 * MS, 16 * MS)).isEqualTo(RestartBackoff.GIVE_UP);
        assertThat(backoff.restarts()).isEqualTo(2);
    }

    @Test
    void failureRateGivesUpOnlyWhenTooManyFailuresFallInTheWindow()
    {
        final RestartBackoff backoff = new RestartBackoff(
            RestartStrategy.failureRate(2, Duration.ofMillis(100), Duration.ofMillis(1)));
        assertThat(backoff.onFailure(0, 0)).isEqualTo(MS);
        assertThat(backoff.onFailure(50 * MS, 0)).isEqualTo(MS);
        // the first failure has left the window by now: two in the window, still tolerated
        assertThat(backoff.onFailure(120 * MS, 0)).isEqualTo(MS);
        assertThat(backoff.onFailure(130 * MS, 0)).isEqualTo(RestartBackoff.GIVE_UP);
    }

    @Test
    void exponentialDelayGrowsToItsCapAndResetsAfterAQuietAttempt()
    {
        final RestartBackoff backoff = new RestartBackoff(RestartStrategy.exponentialDelay(
            Duration.ofMillis(10), Duration.ofMillis(35), 2.0, Duration.ofSeconds(1), 10));
        assertThat(backoff.onFailure(0, 0)).isEqualTo(10 * MS);
        assertThat(backoff.onFailure(20 * MS, 10 * MS)).isEqualTo(20 * MS);
        assertThat(backoff.onFailure(50 * MS, 40 * MS)).isEqualTo(35 * MS);
        assertThat(backoff.onFailure(90 * MS, 85 * MS)).isEqualTo(35 * MS);
        // the attempt ran longer than resetAfter: back to the initial delay
        assertThat(backoff.onFailure(3_000 * MS, 100 * MS)).isEqualTo(10 * MS);
    }

    @Test
    void exponentialDelayStopsAtMaxRestarts()
    {
        final RestartBackoff backoff = new RestartBackoff(RestartStrategy.exponentialDelay(
            Duration.ofMillis(1), Duration.ofMillis(1), 1.0, Duration.ofSeconds(1), 1));
        assertThat(backoff.onFailure(0, 0)).isEqualTo(MS);
        assertThat(backoff.onFailure(0, 0)).isEqualTo(RestartBackoff.GIVE_UP);
    }

    @Test
    void invalidStrategiesFailWhenCreatedNamingTheOption()
    {
        assertThatThrownBy(() -> RestartStrategy.fixedDelay(-1, Duration.ZERO))
            .hasMessage("fixedDelay maxRestarts must be 0 or more, was -1");
        assertThatThrownBy(() -> RestartStrategy.fixedDelay(1, Duration.ofMillis(-1)))
            .hasMessageContaining("fixedDelay delay must not be negative");
        assertThatThrownBy(() -> RestartStrategy.failureRate(0, Duration.ofSeconds(1), Duration.ZERO))
            .hasMessageContaining("failureRate maxFailures must be at least 1");
        assertThatThrownBy(() -> RestartStrategy.failureRate(1, Duration.ZERO, Duration.ZERO))
            .hasMessageContaining("failureRate interval must be positive");
        assertThatThrownBy(() -> RestartStrategy.exponentialDelay(Duration.ofSeconds(2), Duration.ofSeconds(1), 2,
            Duration.ofSeconds(1), 1)).hasMessageContaining("maxDelay (PT1S) must be at least initialDelay (PT2S)");
        assertThatThrownBy(() -> RestartStrategy.exponentialDelay(Duration.ofSeconds(1), Duration.ofSeconds(1),
            Double.NaN, Duration.ofSeconds(1), 1)).hasMessageContaining("multiplier must be a number of at least 1");
    }
}
