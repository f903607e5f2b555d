package dev.ax.dispatcher.run;

import dev.ax.common.time.Clock;
import java.time.Duration;

/**
 * When the {@link OutboxRelay} looks for rows nobody confirmed, and which rows those are: rows
 * older than {@code relayAfter} on {@code clock}, looked for every {@code scanInterval} while the
 * last pass left none. Immutable.
 *
 * @param relayAfter rows older than this are sent again ({@code AX_OUTBOX_RELAY_AFTER})
 * @param scanInterval how often a pass looks for stale rows when the last one left none
 * @param clock the clock the rows' ages are read on (the one their outcomes were written on)
 */
public record RelaySchedule(Duration relayAfter, Duration scanInterval, Clock clock) {

  /** How often a stage's relay looks for stale rows. */
  static final Duration SCAN_INTERVAL = Duration.ofSeconds(1);

  /** A stage's schedule: rows older than {@code relayAfter}, looked for every second. */
  public static RelaySchedule every(Duration relayAfter, Clock clock) {
    return new RelaySchedule(relayAfter, SCAN_INTERVAL, clock);
  }

  /** The time before which a row written is stale as of {@code nowMs}. */
  long staleBeforeMs(long nowMs) {
    return nowMs - relayAfter.toMillis();
  }
}
