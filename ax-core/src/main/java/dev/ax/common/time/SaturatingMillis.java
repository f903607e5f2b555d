package dev.ax.common.time;

import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic that cannot throw or wrap: every AX computation of a due time, deadline, lease or
 * backoff goes through here, because its inputs may come from a stored task or an event that no
 * validator saw (issue 16: no message can stop a stage).
 *
 * <p>Two kinds of operation:
 *
 * <ul>
 *   <li><b>Amounts</b> ({@link #add}, {@link #multiply}, {@link #toMillis}) saturate at {@link
 *       Long#MAX_VALUE} / {@link Long#MIN_VALUE} instead of wrapping (plain {@code +} turns the
 *       longest backoff into a negative one) or throwing ({@code Math.addExact}, {@code
 *       Duration.toMillis} beyond about 292 million years).
 *   <li><b>Points in time</b> ({@link #atMs}, {@link #plus}, {@link #epochMillis}) are clamped to
 *       [{@link #FAR_PAST_MS}, {@link #FAR_FUTURE_MS}], the years 0001 to 9999: every such value is
 *       an exact {@link Instant}, a {@code BIGINT} and a date any database or JSON reader accepts.
 *       A time at the far-future bound means "never" ({@link #isNever}): nothing AX schedules there
 *       is ever due.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class SaturatingMillis {

  /** 9999-12-31T23:59:59.999Z: the latest time AX computes; at or after it means "never". */
  public static final long FAR_FUTURE_MS = 253_402_300_799_999L;

  /** 0001-01-01T00:00:00Z: the earliest time AX computes. */
  public static final long FAR_PAST_MS = -62_135_596_800_000L;

  public static final Instant FAR_FUTURE = Instant.ofEpochMilli(FAR_FUTURE_MS);
  public static final Instant FAR_PAST = Instant.ofEpochMilli(FAR_PAST_MS);

  private SaturatingMillis() {}

  /** {@code a + b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where it would overflow. */
  public static long add(long a, long b) {
    long sum = a + b;
    // Overflow iff both operands have the sign the sum does not have (Hacker's Delight 2-13).
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  /** {@code a - b}, saturating like {@link #add}. */
  public static long subtract(long a, long b) {
    long difference = a - b;
    if (((a ^ b) & (a ^ difference)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return difference;
  }

  /** {@code a * b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where it would overflow. */
  public static long multiply(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
      return low;
    }
    return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
  }

  /** {@code duration} in whole milliseconds, saturating where {@link Duration#toMillis} throws. */
  public static long toMillis(Duration duration) {
    try {
      return duration.toMillis();
    } catch (ArithmeticException e) {
      // Beyond about 292 million years either way: the amount is "as long as there is".
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** {@code ms} clamped to [{@link #FAR_PAST_MS}, {@link #FAR_FUTURE_MS}]. */
  public static long clamp(long ms) {
    return Math.max(FAR_PAST_MS, Math.min(FAR_FUTURE_MS, ms));
  }

  /**
   * The time {@code deltaMs} after {@code ms}, clamped to the far-past and far-future bounds. The
   * start is clamped first, so a bogus start of {@code Long.MIN_VALUE} plus a huge delta is the far
   * future, not the epoch.
   */
  public static long atMs(long ms, long deltaMs) {
    return clamp(add(clamp(ms), deltaMs));
  }

  /** The time {@code delta} after {@code ms}, clamped to the far-past and far-future bounds. */
  public static long atMs(long ms, Duration delta) {
    return atMs(ms, toMillis(delta));
  }

  /** {@code instant}'s epoch millisecond, clamped (where {@link Instant#toEpochMilli} throws). */
  public static long epochMillis(Instant instant) {
    if (instant.isAfter(FAR_FUTURE)) {
      return FAR_FUTURE_MS;
    }
    if (instant.isBefore(FAR_PAST)) {
      return FAR_PAST_MS;
    }
    return instant.toEpochMilli();
  }

  /**
   * {@code instant + delta} at millisecond precision, clamped to the far-past and far-future bounds
   * (where {@link Instant#plus} throws beyond the year one billion).
   */
  public static Instant plus(Instant instant, Duration delta) {
    return Instant.ofEpochMilli(atMs(epochMillis(instant), delta));
  }

  /** Whether {@code ms} is at or after the far-future bound: a time that never comes. */
  public static boolean isNever(long ms) {
    return ms >= FAR_FUTURE_MS;
  }
}
