package dev.ax.cli.text;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * Formats epoch milliseconds for people: ISO-8601 with the date, the millisecond and the zone
 * offset, in this machine's zone ({@code 2026-12-07T14:03:07.125Z} on a machine in UTC), so that a
 * line read a day later, or on another machine, still says when. Thread-safe.
 */
public final class Times {

  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneId.systemDefault());

  private Times() {}

  /** {@code 2026-12-07T14:03:07.125+01:00}; {@code -} for 0 (no such time). */
  public static String clock(long epochMs) {
    return epochMs == 0 ? "-" : CLOCK.format(Instant.ofEpochMilli(epochMs));
  }
}
