package dev.ax.common.schedule;

import dev.ax.common.model.Trigger;
import dev.ax.common.time.SaturatingMillis;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * When a task fires, for every time-driven {@link Trigger}. Pure: the reference instants are passed
 * in, nothing reads a clock.
 *
 * <ul>
 *   <li><b>ONCE</b>: {@code at}, or {@code acceptedAt + delay}. It may lie in the past; the caller
 *       fires it late (misfire policies are for periodic tasks).
 *   <li><b>CRON</b>: the next match strictly after the reference, in the trigger's zone, with the
 *       DST policy of {@link CronSchedule}. The first firing is the first match strictly after the
 *       acceptance.
 *   <li><b>FIXED_RATE</b>: the {@link FixedRateGrid} {@code origin + k * interval}, the next slot
 *       strictly after the reference; it never drifts. The origin is {@code startAt}, or the
 *       acceptance time when the trigger has none. A {@code startAt} already in the past at
 *       acceptance fires first at the first grid slot at or after the acceptance (slots from before
 *       the task existed are not "missed").
 *   <li><b>FIXED_DELAY</b>: first at {@code startAt} (or the acceptance, when {@code startAt} is
 *       absent or already past), then {@code interval} after the end of the previous run ({@link
 *       #afterRunEnded}).
 *   <li><b>DEPENDENCY</b>: not time-driven; no fire times.
 * </ul>
 *
 * <p>A periodic trigger's {@code startAt} and {@code endAt} bound its fire times (both inclusive):
 * a cron or fixed rate has no slot outside them ({@link BoundedSlots}); a fixed delay's chain ends
 * at the first firing after {@code endAt} ({@link #isAfterEnd}).
 *
 * <p>Bounded: no fire time lies at or after {@link SaturatingMillis#FAR_FUTURE} (the year 9999). A
 * fire time that would (a ONCE delay of {@code Long.MAX_VALUE} ms, a FIXED_RATE slot beyond it) is
 * "no fire time", an empty result, and never an exception: the inputs may be stored values no
 * validator saw. The one exception to "empty" is {@link #afterRunEnded}, which parks the chain at
 * the bound (see there).
 *
 * <p>Thread-safe; holds a bounded cache of parsed cron expressions.
 */
public final class FireTimes {

  /** Distinct (expression, zone) pairs kept parsed. */
  public static final int DEFAULT_CRON_CACHE_SIZE = 1_024;

  private final CronCache cronCache;

  public FireTimes() {
    this(DEFAULT_CRON_CACHE_SIZE);
  }

  public FireTimes(int cronCacheSize) {
    this.cronCache = new CronCache(cronCacheSize);
  }

  /**
   * The parsed schedule of a cron trigger, from the cache.
   *
   * @throws IllegalArgumentException when the expression is not valid Quartz syntax (the contract
   *     reader rejects such tasks, so a stored task never has one)
   */
  public CronSchedule cron(Trigger.Cron trigger) {
    return cronCache.get(trigger.expression(), trigger.zone());
  }

  /**
   * The first firing of a task accepted at {@code acceptedAt}; empty for DEPENDENCY and for a cron
   * with no match after the acceptance (its years are over).
   */
  public Optional<Instant> first(Trigger trigger, Instant acceptedAt) {
    Objects.requireNonNull(acceptedAt, "acceptedAt");
    if (trigger instanceof Trigger.Once once) {
      return beforeNever(
          once.at() != null ? once.at() : SaturatingMillis.plus(acceptedAt, once.delay()));
    }
    if (trigger instanceof Trigger.Cron cron) {
      return SaturatingMillis.isNever(SaturatingMillis.epochMillis(acceptedAt))
          ? Optional.empty()
          : slots(cron, acceptedAt).nextAfter(acceptedAt);
    }
    if (trigger instanceof Trigger.FixedRate rate) {
      // The first slot at or after the acceptance: strictly after the millisecond before it.
      return slots(rate, acceptedAt)
          .nextAfter(
              Instant.ofEpochMilli(
                  SaturatingMillis.atMs(SaturatingMillis.epochMillis(acceptedAt), -1)));
    }
    if (trigger instanceof Trigger.FixedDelay delay) {
      Instant startAt = delay.startAt();
      return beforeNever(startAt != null && startAt.isAfter(acceptedAt) ? startAt : acceptedAt)
          .filter(at -> !isAfterEnd(delay, at.toEpochMilli()));
    }
    return Optional.empty();
  }

  /**
   * The first firing strictly after {@code after} of a ONCE, CRON or FIXED_RATE trigger; empty when
   * there is none (a ONCE already past, a cron that ended).
   *
   * @param acceptedAt when the task was accepted: a ONCE with a delay counts from it, a FIXED_RATE
   *     without {@code startAt} has its grid origin there (any fire time of the task works as well:
   *     they all lie on the grid)
   * @throws IllegalArgumentException for FIXED_DELAY (see {@link #afterRunEnded}) and DEPENDENCY,
   *     which have no slots of their own
   */
  public Optional<Instant> nextAfter(Trigger trigger, Instant acceptedAt, Instant after) {
    Objects.requireNonNull(after, "after");
    if (trigger instanceof Trigger.Once) {
      return first(trigger, acceptedAt).filter(at -> at.isAfter(after));
    }
    return slots(trigger, acceptedAt).nextAfter(after);
  }

  /**
   * The slots of a periodic CRON or FIXED_RATE trigger, for range questions such as a misfire
   * catch-up ({@link MisfirePlanner}).
   *
   * @param acceptedAt see {@link #nextAfter}
   * @throws IllegalArgumentException for the other trigger types, which have no slot grid
   */
  public Slots slots(Trigger trigger, Instant acceptedAt) {
    if (trigger instanceof Trigger.Cron cron) {
      return BoundedSlots.of(cron(cron), cron.startAt(), cron.endAt());
    }
    if (trigger instanceof Trigger.FixedRate rate) {
      return BoundedSlots.of(grid(rate, acceptedAt), rate.startAt(), rate.endAt());
    }
    throw new IllegalArgumentException(
        trigger.type()
            + " has no periodic slots"
            + (trigger instanceof Trigger.FixedDelay
                ? ": it fires relative to the end of the previous run (afterRunEnded)"
                : ""));
  }

  /**
   * A FIXED_DELAY task's next firing: {@code interval} after its previous run ended, at most {@link
   * SaturatingMillis#FAR_FUTURE}. Unlike the other triggers' "no fire time", a chain whose next
   * firing cannot be computed is <em>parked</em> at the bound ({@link SaturatingMillis#isNever}):
   * an instance there never falls due, and the chain is not broken, so the reaper does not repair
   * it again and again.
   */
  public Instant afterRunEnded(Trigger.FixedDelay trigger, Instant runEnd) {
    return Instant.ofEpochMilli(afterRunEndedMs(trigger, SaturatingMillis.epochMillis(runEnd)));
  }

  /** {@link #afterRunEnded} in epoch milliseconds. */
  public static long afterRunEndedMs(Trigger.FixedDelay trigger, long runEndMs) {
    return SaturatingMillis.atMs(runEndMs, trigger.interval());
  }

  /**
   * True when {@code atMs} lies after the trigger's {@code endAt}: no firing of the task is due
   * then (its schedule is over).
   */
  public static boolean isAfterEnd(Trigger trigger, long atMs) {
    return trigger.endAt() != null && atMs > trigger.endAt().toEpochMilli();
  }

  /** {@code t}, or empty when it is at or after the far-future bound (it never comes). */
  private static Optional<Instant> beforeNever(Instant t) {
    return SaturatingMillis.isNever(SaturatingMillis.epochMillis(t))
        ? Optional.empty()
        : Optional.of(t);
  }

  private static FixedRateGrid grid(Trigger.FixedRate rate, Instant acceptedAt) {
    Instant origin = rate.startAt() != null ? rate.startAt() : acceptedAt;
    Objects.requireNonNull(origin, "acceptedAt (the grid origin of a FIXED_RATE without startAt)");
    return new FixedRateGrid(origin, rate.interval());
  }
}
