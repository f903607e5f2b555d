package dev.ax.common.time;

import java.time.Instant;

/**
 * The one source of "now" for AX logic. Nothing in AX calls {@code System.currentTimeMillis()}
 * directly: stages get a clock injected, tests a {@link SettableClock}.
 *
 * <p>Implementations must be thread-safe and must never go backwards.
 */
public interface Clock {

  /** Milliseconds since the epoch, on the clock AX compares due times with. */
  long millis();

  /**
   * False while this clock cannot be trusted to compare due times (see {@code DatabaseClock}): the
   * ticker emits nothing then.
   */
  default boolean isStable() {
    return true;
  }

  default Instant now() {
    return Instant.ofEpochMilli(millis());
  }
}
