package dev.ax.common.schedule;

import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import dev.ax.common.time.SaturatingMillis;
import java.time.Instant;
import java.util.Optional;

/**
 * Where a task's chain of firings goes on from, given what it did so far: the first firing of a
 * task's new version after an UPDATE, and the firing the reaper restores when a periodic task was
 * found with no live instance. Pure: the task's history is passed in as a {@link History}, read in
 * the caller's transaction.
 *
 * <p>The rule is "the schedule's next slot, never an extra run":
 *
 * <ul>
 *   <li><b>CRON</b>: the first match strictly after both now and the last slot that fired.
 *   <li><b>FIXED_RATE</b>: the first slot strictly after both now and the last slot that fired, on
 *       the grid of {@code startAt} when the new trigger has one, else on the grid through the last
 *       slot that fired (the task keeps its phase), else through the task's acceptance.
 *   <li><b>FIXED_DELAY</b>: {@code startAt} when it is still ahead; else, while a run is in flight,
 *       none (its end chains the next firing, with the new interval), or, when that run is of
 *       another trigger type (no chainer follows it), {@code interval} from now; else {@code
 *       interval} after the last run ended (firing at once when that is past; the id is the one the
 *       chainer gives that firing, so a late chainer creates nothing twice); else, never run, the
 *       first firing counted from the acceptance, as at creation.
 *   <li><b>ONCE</b>: none when the one-shot task fired already (an UPDATE never runs a finished
 *       one-shot task again); else {@code at}, or the acceptance plus {@code delay}: the delay
 *       counts from the task's acceptance, not from the UPDATE. A periodic task that becomes ONCE
 *       fires once, at {@code at} or {@code delay} after the UPDATE.
 * </ul>
 *
 * An empty answer means "no firing of the new version now"; whether that refuses the UPDATE is
 * {@link #neverFires}'s question. Thread-safe (stateless; {@link FireTimes} is thread-safe).
 */
public final class NextFiring {

  /**
   * What the UPDATE's transaction read of the task's instances.
   *
   * @param acceptedAtMs when the task was created
   * @param lastFiredSlotMs the latest slot (the millis of a {@code taskId@slot} id) among the
   *     instances that fired (left SCHEDULED/PAUSED), or null when none did
   * @param lastEndedAtMs the latest {@code finished_at_ms} of the task's instances, or null
   * @param inFlight an instance is DISPATCHED, RUNNING or RETRYING now
   * @param firedAs the task's trigger type before this change (what its past runs fired as): a
   *     FIXED_DELAY run in flight ends into the chainer, which creates the next firing; a task that
   *     becomes ONCE by an UPDATE fires once, counted from then
   */
  public record History(
      long acceptedAtMs,
      Long lastFiredSlotMs,
      Long lastEndedAtMs,
      boolean inFlight,
      TriggerType firedAs) {

    /** A task that never fired. */
    public static History fresh(long acceptedAtMs, TriggerType type) {
      return new History(acceptedAtMs, null, null, false, type);
    }

    /** The runs in flight end into the FIXED_DELAY chainer, which creates the next firing. */
    boolean chainerFollows() {
      return firedAs == TriggerType.FIXED_DELAY;
    }
  }

  private final FireTimes fireTimes;

  public NextFiring(FireTimes fireTimes) {
    this.fireTimes = fireTimes;
  }

  /** The first firing of {@code trigger} from {@code nowMs} on, or empty for none. */
  public Optional<Long> firstDueAtMs(Trigger trigger, long nowMs, History history) {
    if (trigger instanceof Trigger.Once once) {
      if (history.firedAs() != TriggerType.ONCE) {
        return fireTimes.first(once, Instant.ofEpochMilli(nowMs)).map(Instant::toEpochMilli);
      }
      if (history.lastFiredSlotMs() != null) {
        return Optional.empty();
      }
      return fireTimes
          .first(once, Instant.ofEpochMilli(history.acceptedAtMs()))
          .map(Instant::toEpochMilli);
    }
    if (trigger instanceof Trigger.FixedDelay delay) {
      return fixedDelay(delay, nowMs, history);
    }
    if (trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate) {
      long afterMs =
          history.lastFiredSlotMs() == null ? nowMs : Math.max(nowMs, history.lastFiredSlotMs());
      Instant origin = Instant.ofEpochMilli(gridOrigin(trigger, history));
      return fireTimes
          .slots(trigger, origin)
          .nextAfter(Instant.ofEpochMilli(afterMs))
          .map(Instant::toEpochMilli)
          .filter(ms -> !SaturatingMillis.isNever(ms));
    }
    return Optional.empty(); // DEPENDENCY: fired by flow runs, not by time
  }

  /**
   * True when an empty {@link #firstDueAtMs} means the new trigger has no fire time at all (a cron
   * whose years are over), which refuses the UPDATE; false when it only means "nothing to fire now"
   * (a finished ONCE task, a FIXED_DELAY run in flight).
   */
  public static boolean neverFires(Trigger trigger) {
    return trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate;
  }

  private Optional<Long> fixedDelay(Trigger.FixedDelay delay, long nowMs, History history) {
    return fixedDelayUnbounded(delay, nowMs, history)
        .filter(dueMs -> !FireTimes.isAfterEnd(delay, dueMs));
  }

  private Optional<Long> fixedDelayUnbounded(
      Trigger.FixedDelay delay, long nowMs, History history) {
    if (delay.startAt() != null && delay.startAt().toEpochMilli() > nowMs) {
      return Optional.of(delay.startAt().toEpochMilli());
    }
    if (history.inFlight()) {
      // The chainer follows the run's end; a run of another trigger type reaches no chainer, so
      // the new chain starts an interval from now.
      return history.chainerFollows()
          ? Optional.<Long>empty()
          : Optional.of(SaturatingMillis.atMs(nowMs, delay.interval()));
    }
    if (history.lastEndedAtMs() != null) {
      // Possibly past (it then fires at once); the id is the one the chainer gives that firing.
      return Optional.of(FireTimes.afterRunEndedMs(delay, history.lastEndedAtMs()));
    }
    return fireTimes
        .first(delay, Instant.ofEpochMilli(history.acceptedAtMs()))
        .map(Instant::toEpochMilli);
  }

  private static long gridOrigin(Trigger trigger, History history) {
    if (trigger instanceof Trigger.FixedRate rate && rate.startAt() != null) {
      return rate.startAt().toEpochMilli();
    }
    return history.lastFiredSlotMs() != null ? history.lastFiredSlotMs() : history.acceptedAtMs();
  }
}
