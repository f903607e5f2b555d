package dev.ax.retry;

import dev.ax.common.config.AxConfig;
import java.time.Duration;

/**
 * The retry stage's configuration ({@link RetryKeys}), read once by {@link RetryMain} (or the CLI)
 * and handed to {@link RetryStage}. Immutable.
 *
 * @param ratePerSecond most retried attempts this replica dispatches per second
 * @param maxInFlight retried attempts dispatched or running at once, deployment-wide, beyond which
 *     the next ones are held back
 * @param horizon retries due within it wait in the wheel
 * @param rescan how often pending retries are read from the database
 */
public record RetryConfig(int ratePerSecond, int maxInFlight, Duration horizon, Duration rescan) {

  public static RetryConfig from(AxConfig config) {
    return new RetryConfig(
        config.get(RetryKeys.RATE),
        config.get(RetryKeys.MAX_IN_FLIGHT),
        config.get(RetryKeys.HORIZON),
        config.get(RetryKeys.RESCAN));
  }
}
