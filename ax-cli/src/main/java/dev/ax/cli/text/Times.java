package dev.ax.cli.text;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** Formats epoch milliseconds for people: local wall time to the millisecond. Thread-safe. */
public final class Times {

  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

  private Times() {}

  /** {@code 14:03:07.125} in this machine's time zone; {@code -} for 0 (no such time). */
  public static String clock(long epochMs) {
    return epochMs == 0 ? "-" : CLOCK.format(Instant.ofEpochMilli(epochMs));
  }
}
