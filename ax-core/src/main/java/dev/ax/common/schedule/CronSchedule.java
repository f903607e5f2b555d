package dev.ax.common.schedule;

import dev.ax.common.time.SaturatingMillis;
import java.text.ParseException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TimeZone;
import org.quartz.CronExpression;

/**
 * The slots of a Quartz cron expression (with seconds: {@code 0/5 * * * * ?}, {@code 0 0 12 L * ?},
 * {@code 0 0 12 15W * ?}, {@code 0 0 12 ? * 6#3}, ranges, lists, years) in an IANA time zone, with
 * AX's daylight-saving policy. Parsing and matching are Quartz's own ({@link CronExpression}); this
 * class only decides which instant a local wall-clock match means.
 *
 * <h2>DST policy</h2>
 *
 * A cron expression names local wall-clock times. Twice a year many zones break the one-to-one
 * mapping between wall-clock times and instants; AX resolves it so that <em>every wall-clock match
 * fires exactly once, and no real hour goes without the firings it is owed</em>:
 *
 * <ul>
 *   <li><b>Gap (spring forward).</b> Wall-clock times inside the gap do not exist. A match inside
 *       the gap fires once, at the first valid instant after the gap (the transition instant). A
 *       daily {@code 0 30 2 * * ?} in Europe/Berlin fires at 03:00 CEST on the spring-forward day,
 *       then at 02:30 again from the next day on. All matches of one gap collapse into that single
 *       firing, and it is also the firing of a match at the gap's end itself (03:00:00): an
 *       every-minute expression fires at 01:59, 03:00, 03:01 (one firing stands for 02:00 to
 *       03:00).
 *   <li><b>Overlap (fall back).</b> Wall-clock times inside the overlap happen twice. A match
 *       inside the overlap fires once, at its first occurrence (the earlier offset, i.e. still on
 *       summer time); the second pass through the repeated wall-clock hour fires nothing. A daily
 *       {@code 0 30 2 * * ?} in Europe/Berlin fires at 02:30 CEST on the fall-back day; an
 *       every-minute expression fires 02:00 ... 02:59 CEST, then nothing for an hour of real time
 *       (02:00 ... 02:59 CET are wall-clock minutes that already fired), then 03:00 CET.
 * </ul>
 *
 * <h2>What Quartz does natively, and how this class differs</h2>
 *
 * Given the task's {@link TimeZone}, Quartz 2.5 behaves as follows (pinned by {@code
 * QuartzNativeDstBehaviourTest}): a match in a gap is <em>skipped</em> (the daily 02:30 does not
 * fire at all on the spring-forward day), and in an overlap it fires on the <em>second</em>
 * occurrence only (standard time), skipping the whole first pass of the repeated hour. AX keeps
 * Quartz's "once per wall-clock match" in the overlap but moves it to the first occurrence, and
 * replaces the skip in a gap with one late firing at the gap's end.
 *
 * <p>To do so, Quartz evaluates the expression on a DST-free clock (its time zone is UTC) that
 * holds the zone's local wall-clock time; each match is then mapped to an instant with the zone's
 * rules and the policy above. If the instant a match maps to is not after the reference (only in
 * the second pass of an overlap), the search resumes at the wall-clock end of the overlap.
 *
 * <h2>Thread safety</h2>
 *
 * Quartz documents {@link CronExpression} as not thread-safe. Each {@code CronSchedule} owns one
 * parsed instance, never lets it out, and calls it only under a private lock (calls take
 * microseconds; a long search such as {@link #latestIn} takes the lock once per step, so threads
 * sharing an instance interleave rather than wait for each other's whole search). {@code
 * CronSchedule} itself is immutable and thread-safe, and {@link FireTimes} shares instances through
 * a bounded cache.
 *
 * <p>Note: Quartz stops at the year {@link CronExpression#MAX_YEAR} (the year its class loaded +
 * 100, read from the system clock by Quartz, not by AX); beyond it {@link #nextAfter} is empty.
 */
public final class CronSchedule implements Slots {

  /** Quartz's clock: UTC has no DST, so it counts local wall-clock time unbroken. */
  private static final TimeZone WALL_CLOCK = TimeZone.getTimeZone(ZoneOffset.UTC);

  /** A match maps to an instant in one step; an overlap's second pass adds one more. */
  private static final int MAX_STEPS = 4;

  private final String expression;
  private final ZoneId zone;
  private final ZoneRules rules;
  private final Object lock = new Object();

  /** Guarded by {@link #lock}. Evaluated on {@link #WALL_CLOCK}. */
  private final CronExpression wallClockCron;

  private CronSchedule(String expression, ZoneId zone, CronExpression wallClockCron) {
    this.expression = expression;
    this.zone = zone;
    this.rules = zone.getRules();
    this.wallClockCron = wallClockCron;
  }

  /**
   * Parses {@code expression} for {@code zone}.
   *
   * @throws IllegalArgumentException with the reason when the expression is not valid Quartz cron
   *     syntax (validate input with {@link #problem} instead)
   */
  public static CronSchedule parse(String expression, ZoneId zone) {
    Objects.requireNonNull(expression, "expression");
    Objects.requireNonNull(zone, "zone");
    try {
      return new CronSchedule(expression, zone, quartz(expression));
    } catch (ParseException e) {
      throw new IllegalArgumentException(
          "not a valid Quartz cron expression: '" + expression + "': " + e.getMessage(), e);
    }
  }

  /**
   * Why {@code expression} cannot be used, or empty when it can: not Quartz cron syntax, or a
   * syntax that matches no date at all (such as 30 February). An expression whose years are all in
   * the past is valid here: whether it still fires depends on "now". Microseconds for a usable
   * expression; one that matches no date makes Quartz search up to its last year (tens of ms).
   */
  public static Optional<String> problem(String expression) {
    if (expression == null || expression.isBlank()) {
      return Optional.of("the expression is empty");
    }
    CronExpression cron;
    try {
      cron = quartz(expression);
    } catch (ParseException e) {
      return Optional.of(e.getMessage());
    } catch (RuntimeException e) {
      // Quartz's parser lets some malformed input escape as a runtime exception.
      return Optional.of("unparseable (" + e + ")");
    }
    if (cron.getNextValidTimeAfter(new Date(0)) == null) {
      return Optional.of("it matches no date (e.g. a day that no month has)");
    }
    return Optional.empty();
  }

  private static CronExpression quartz(String expression) throws ParseException {
    CronExpression cron = new CronExpression(expression);
    cron.setTimeZone(WALL_CLOCK);
    return cron;
  }

  public String expression() {
    return expression;
  }

  public ZoneId zone() {
    return zone;
  }

  /** The first firing strictly after {@code after}, with the DST policy of this class. */
  @Override
  public Optional<Instant> nextAfter(Instant after) {
    if (SaturatingMillis.isNever(SaturatingMillis.epochMillis(after))) {
      return Optional.empty(); // beyond AX's far-future bound (and Quartz's last year)
    }
    if (after.isBefore(SaturatingMillis.FAR_PAST)) {
      after = SaturatingMillis.FAR_PAST; // no cron matches before the year 1; keeps Date exact
    }
    LocalDateTime wallClock = LocalDateTime.ofInstant(after, zone);
    for (int step = 0; step < MAX_STEPS; step++) {
      Optional<LocalDateTime> match = nextMatchAfter(wallClock);
      if (match.isEmpty()) {
        return Optional.empty();
      }
      LocalDateTime local = match.get();
      Instant firing = firingOf(local);
      if (firing.isAfter(after)) {
        return Optional.of(firing);
      }
      // Only in the second pass of an overlap: its wall-clock times fired in the first pass.
      ZoneOffsetTransition transition = rules.getTransition(local);
      wallClock =
          transition != null && transition.isOverlap()
              ? transition.getDateTimeBefore().minusNanos(1)
              : local;
    }
    throw new IllegalStateException(
        "no firing after " + after + " found in " + MAX_STEPS + " steps for " + this);
  }

  @Override
  public Optional<Instant> latestIn(Instant floor, Instant ceiling) {
    return SlotSearch.latestIn(this::nextAfter, floor, ceiling);
  }

  @Override
  public SlotCount count(Instant floor, Instant ceiling, long limit) {
    return SlotSearch.count(this::nextAfter, floor, ceiling, limit);
  }

  @Override
  public List<Instant> newest(int n, Instant floor, Instant ceiling) {
    return SlotSearch.newest(this::nextAfter, n, floor, ceiling);
  }

  /** The instant a wall-clock match fires at: the DST policy in one place. */
  private Instant firingOf(LocalDateTime local) {
    List<ZoneOffset> offsets = rules.getValidOffsets(local);
    if (offsets.isEmpty()) {
      // Gap: the first valid instant after it.
      return rules.getTransition(local).getInstant();
    }
    // One offset, or an overlap: the earlier of the two instants.
    return local.atZone(zone).withEarlierOffsetAtOverlap().toInstant();
  }

  /** Quartz's next wall-clock match strictly after {@code wallClock} (whole seconds). */
  private Optional<LocalDateTime> nextMatchAfter(LocalDateTime wallClock) {
    Date after = Date.from(wallClock.toInstant(ZoneOffset.UTC));
    Date next;
    synchronized (lock) {
      next = wallClockCron.getNextValidTimeAfter(after);
    }
    return next == null
        ? Optional.empty()
        : Optional.of(LocalDateTime.ofInstant(next.toInstant(), ZoneOffset.UTC));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CronSchedule other
        && expression.equals(other.expression)
        && zone.equals(other.zone);
  }

  @Override
  public int hashCode() {
    return Objects.hash(expression, zone);
  }

  @Override
  public String toString() {
    return "CronSchedule['" + expression + "' in " + zone + "]";
  }
}
