package dev.ax.common.schedule;

import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.time.SaturatingMillis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides which instances a periodic task (CRON, FIXED_RATE) gets when the ticker looks at it: the
 * slots after the last one it handled, up to now (the database clock).
 *
 * <h2>Missed or just due</h2>
 *
 * A slot {@code s} with {@code s < now - misfireThreshold} is <em>missed</em>. A slot with {@code
 * now - misfireThreshold <= s <= now} is <em>just due</em>: a ticker is always a little late, and a
 * slot exactly {@code misfireThreshold} old is still on time. Just-due slots always fire as
 * scheduled ({@link Firing.Kind#ON_TIME}, due at the slot), whatever the policy, so that whether a
 * slot fires never depends on how late an earlier tick was. There are at most {@code
 * misfireThreshold / spacing} of them (5 for the default threshold and an every-second cron).
 *
 * <h2>Missed slots, by policy</h2>
 *
 * <ul>
 *   <li>{@link MisfirePolicy#FIRE_ONCE_NOW} (default): one {@link Firing.Kind#COALESCED} firing for
 *       all of them, due now. Its fire time, and so its instance id {@code taskId@fireTimeMillis},
 *       is the <em>latest missed slot</em>: deterministic, so two tickers catching up on the same
 *       outage create the same instance, and the database keeps one.
 *   <li>{@link MisfirePolicy#SKIP}: none; all are counted as dropped. The task goes on with its
 *       next slot.
 *   <li>{@link MisfirePolicy#FIRE_ALL}: one {@link Firing.Kind#LATE} firing per missed slot, oldest
 *       first, all due now, but at most {@code maxFireAll}: the <em>newest</em> ones are kept (they
 *       join up with the on-time slots, leaving one hole in the past rather than one leading up to
 *       now) and the older ones are counted as dropped.
 * </ul>
 *
 * Work per plan is bounded: finding the latest missed slot and the newest {@code maxFireAll} costs
 * about {@code 45 + 4 * maxFireAll} steps whatever the outage; counting what was missed walks at
 * most {@link #MAX_COUNTED_SLOTS} cron slots (a fixed rate counts in constant time).
 *
 * <p>ONCE and FIXED_DELAY tasks have one pending slot at a time; a late one simply fires now, and
 * the policy does not apply. Immutable and thread-safe.
 */
public final class MisfirePlanner {

  /** Slots older than this when the ticker looks at them are missed. */
  public static final Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofSeconds(5);

  /** The most cron slots counted when reporting what was missed (about 30 ms of work). */
  public static final long MAX_COUNTED_SLOTS = 10_000;

  private final Duration misfireThreshold;

  public MisfirePlanner() {
    this(DEFAULT_MISFIRE_THRESHOLD);
  }

  public MisfirePlanner(Duration misfireThreshold) {
    Objects.requireNonNull(misfireThreshold, "misfireThreshold");
    if (misfireThreshold.isNegative()) {
      throw new IllegalArgumentException(
          "misfireThreshold must not be negative: " + misfireThreshold);
    }
    this.misfireThreshold = misfireThreshold;
  }

  public Duration misfireThreshold() {
    return misfireThreshold;
  }

  /**
   * @param slots the task's slots ({@link FireTimes#slots})
   * @param lastHandled the latest slot already handled (fired or dropped); only later slots count
   * @param now the current time on the database clock
   * @param maxFireAll the most missed slots FIRE_ALL fires, 1..{@link
   *     MisfirePolicy#MAX_FIRE_ALL_LIMIT}
   */
  public CatchUp plan(
      Slots slots, Instant lastHandled, Instant now, MisfirePolicy policy, int maxFireAll) {
    Objects.requireNonNull(slots, "slots");
    Objects.requireNonNull(lastHandled, "lastHandled");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(policy, "policy");
    MisfirePolicy.requireValidMaxFireAll(maxFireAll);
    // Missed: (lastHandled, now - threshold), i.e. up to the nanosecond before now - threshold.
    // Saturating: a configured threshold of centuries must not make the planner throw.
    Instant missedCeiling =
        Instant.ofEpochMilli(
                SaturatingMillis.atMs(
                    SaturatingMillis.epochMillis(now),
                    -SaturatingMillis.toMillis(misfireThreshold)))
            .minusNanos(1);

    List<Firing> firings = new ArrayList<>();
    SlotCount missed = slots.count(lastHandled, missedCeiling, MAX_COUNTED_SLOTS);
    Optional<Instant> latestMissed = Optional.empty();
    long dropped = 0;
    if (missed.count() > 0) {
      latestMissed = slots.latestIn(lastHandled, missedCeiling);
      switch (policy) {
        case FIRE_ONCE_NOW ->
            firings.add(new Firing(latestMissed.orElseThrow(), now, Firing.Kind.COALESCED));
        case SKIP -> dropped = missed.count();
        case FIRE_ALL -> {
          for (Instant slot : slots.newest(maxFireAll, lastHandled, missedCeiling)) {
            firings.add(new Firing(slot, now, Firing.Kind.LATE));
          }
          dropped = missed.count() - firings.size();
        }
        default -> throw new AssertionError(policy);
      }
    }

    Instant handledThrough = latestMissed.orElse(lastHandled);
    Instant onTimeFloor = later(lastHandled, missedCeiling);
    for (Optional<Instant> slot = slots.nextAfter(onTimeFloor);
        slot.isPresent() && !slot.get().isAfter(now);
        slot = slots.nextAfter(slot.get())) {
      firings.add(new Firing(slot.get(), slot.get(), Firing.Kind.ON_TIME));
      handledThrough = slot.get();
    }
    return new CatchUp(
        firings,
        missed.count(),
        missed.exact(),
        dropped,
        handledThrough,
        slots.nextAfter(later(now, lastHandled)));
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
