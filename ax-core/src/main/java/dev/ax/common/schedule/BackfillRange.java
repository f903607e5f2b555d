package dev.ax.common.schedule;

import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.Trigger;
import java.time.Instant;
import java.util.Objects;

/**
 * A backfill's range, checked: the slots of a CRON or FIXED_RATE task in {@code [from, to]} (both
 * inclusive), the firings its schedule would have made then, with the overlap policy its firings
 * follow. Pure: the caller passes the time and the task's trigger; the ticker creates the firings
 * later, at its pace.
 *
 * <h2>What a request may ask</h2>
 *
 * <ul>
 *   <li>Only CRON and FIXED_RATE tasks have slots: ONCE, FIXED_DELAY and DEPENDENCY are refused.
 *   <li>{@code from} before {@code to}, {@code from} in the past; a {@code to} in the future is
 *       clamped to now (the schedule makes those firings itself).
 *   <li>At least one slot and at most {@link #MAX_FIRINGS}, counted with {@link Slots#count} (a
 *       cron walks its slots, so the count stops at the bound).
 *   <li>Overlap: none given, {@link OverlapPolicy#ALLOW_ALL} when the task allows overlap, else
 *       {@link OverlapPolicy#BUFFER_ALL} (one firing after another: never two runs of the task at
 *       once, and no slot lost). {@link OverlapPolicy#CANCEL_OTHER} is refused: a backfill never
 *       cancels a run.
 * </ul>
 *
 * @param fromMs the first instant of the range (epoch ms, inclusive)
 * @param toMs the last (inclusive), at most the time of the request
 * @param overlap what the backfill's firings do with a run of the task in flight
 * @param firings the slots the range holds
 * @param gridOriginMs for a FIXED_RATE task without {@code startAt}: a slot of its grid at or
 *     before {@code fromMs} (a grid has no slots before its origin), what {@link #slots} counts
 *     from; else unused (the acceptance time of the request)
 */
public record BackfillRange(
    long fromMs, long toMs, OverlapPolicy overlap, long firings, long gridOriginMs) {

  /** The most firings one backfill may create. */
  public static final long MAX_FIRINGS = 100_000;

  /** What a request came to: a range to store, or why not. */
  public sealed interface Outcome permits Accepted, Refused {}

  /** The range to store. */
  public record Accepted(BackfillRange range) implements Outcome {}

  /** Why the request cannot be a backfill. */
  public record Refused(String reason) implements Outcome {}

  public BackfillRange {
    Objects.requireNonNull(overlap, "overlap");
    if (fromMs > toMs) {
      throw new IllegalArgumentException("from after to: " + fromMs + " > " + toMs);
    }
  }

  /** The slots of {@code trigger} as this range counts them. */
  public Slots slots(Trigger trigger, FireTimes fireTimes) {
    return fireTimes.slots(trigger, Instant.ofEpochMilli(gridOriginMs));
  }

  /** The exclusive floor of the range's slots ({@link Slots} ranges are half-open). */
  public Instant floor() {
    return Instant.ofEpochMilli(fromMs - 1);
  }

  /** The inclusive ceiling of the range's slots. */
  public Instant ceiling() {
    return Instant.ofEpochMilli(toMs);
  }

  /**
   * Checks a request to backfill task {@code taskId} over {@code [from, to]}.
   *
   * @param trigger the task's trigger now
   * @param taskOverlap the task's own overlap policy (the default for the backfill's)
   * @param gridOrigin a slot of a FIXED_RATE task without {@code startAt} (any slot of its grid:
   *     its next firing, or its acceptance); unused for the others
   * @param askedOverlap the policy the request names, or null
   * @param now the time of the request
   */
  public static Outcome check(
      String taskId,
      Trigger trigger,
      OverlapPolicy taskOverlap,
      Instant gridOrigin,
      Instant from,
      Instant to,
      OverlapPolicy askedOverlap,
      Instant now,
      FireTimes fireTimes) {
    if (!(trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate)) {
      return new Refused(
          "task "
              + taskId
              + " is a "
              + trigger.type()
              + " task: only CRON and FIXED_RATE tasks have slots to backfill");
    }
    if (!from.isBefore(to)) {
      return new Refused("the range must start before it ends: from " + from + ", to " + to);
    }
    if (!from.isBefore(now)) {
      return new Refused("the range lies in the future (from " + from + ", now " + now + ")");
    }
    Instant ceiling = to.isAfter(now) ? now : to;
    if (askedOverlap == OverlapPolicy.CANCEL_OTHER) {
      return new Refused(
          "a backfill never cancels a run: overlap CANCEL_OTHER is refused (use SKIP, BUFFER_ONE,"
              + " BUFFER_ALL or ALLOW_ALL)");
    }
    OverlapPolicy overlap = askedOverlap != null ? askedOverlap : defaultOverlap(taskOverlap);
    BackfillRange range =
        new BackfillRange(
            from.toEpochMilli(),
            ceiling.toEpochMilli(),
            overlap,
            0,
            originAtOrBefore(trigger, gridOrigin, from).toEpochMilli());
    SlotCount count =
        range.slots(trigger, fireTimes).count(range.floor(), range.ceiling(), MAX_FIRINGS + 1);
    if (count.count() > MAX_FIRINGS || !count.exact()) {
      return new Refused(
          "the range holds more than "
              + MAX_FIRINGS
              + " firings of task "
              + taskId
              + (count.exact() ? " (" + count.count() + ")" : "")
              + ": backfill a shorter range at a time");
    }
    if (count.count() == 0) {
      return new Refused(
          "the range from " + from + " to " + ceiling + " holds no firing of task " + taskId);
    }
    return new Accepted(
        new BackfillRange(range.fromMs, range.toMs, overlap, count.count(), range.gridOriginMs));
  }

  /**
   * A FIXED_RATE grid's origin moved back by whole intervals to at or before {@code from}: the same
   * slots, and those before the old origin too. Any other trigger: {@code gridOrigin} as it is.
   */
  static Instant originAtOrBefore(Trigger trigger, Instant gridOrigin, Instant from) {
    if (!(trigger instanceof Trigger.FixedRate rate) || rate.startAt() != null) {
      return gridOrigin;
    }
    long intervalMs = Math.max(1, rate.interval().toMillis());
    long behindMs = gridOrigin.toEpochMilli() - from.toEpochMilli();
    if (behindMs <= 0) {
      return gridOrigin;
    }
    long intervals = Math.floorDiv(behindMs + intervalMs - 1, intervalMs);
    return gridOrigin.minusMillis(Math.multiplyExact(intervals, intervalMs));
  }

  /** The overlap policy of a backfill that names none, for a task with {@code taskOverlap}. */
  public static OverlapPolicy defaultOverlap(OverlapPolicy taskOverlap) {
    return taskOverlap == OverlapPolicy.ALLOW_ALL
        ? OverlapPolicy.ALLOW_ALL
        : OverlapPolicy.BUFFER_ALL;
  }
}
