package dev.ax.retry;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import java.time.Duration;

/**
 * The retry stage's keys: its rate, its in-flight bound, its horizon and its rescan. {@link
 * RetryConfig} holds their values. Each key is declared once, here; see {@link ConfigKeySet}.
 */
public final class RetryKeys implements ConfigKeySet {

  public static final ConfigKey<Integer> RATE =
      ConfigKey.integer(
          "AX_RETRY_RATE",
          200,
          1,
          1_000_000,
          "Retried attempts each retry stage replica dispatches per second at most; a burst of failures is flattened to this rate.");

  public static final ConfigKey<Integer> MAX_IN_FLIGHT =
      ConfigKey.integer(
          "AX_RETRY_MAX_IN_FLIGHT",
          500,
          1,
          1_000_000,
          "Retried attempts dispatched or running at once, across the deployment, beyond which the retry stage holds the next ones back.");

  public static final ConfigKey<Duration> HORIZON =
      ConfigKey.duration(
          "AX_RETRY_HORIZON",
          "60s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "The retry stage's wheel holds retries due within this horizon; later ones stay in the database until they come within it.");

  public static final ConfigKey<Duration> RESCAN =
      ConfigKey.duration(
          "AX_RETRY_RESCAN",
          "5s",
          Duration.ofMillis(100),
          Duration.ofMinutes(10),
          "How often the retry stage reads pending retries from the database (its rebuild after a restart, and its safety net for lost retry events).");

  /** For the {@link java.util.ServiceLoader} only. */
  public RetryKeys() {}
}
