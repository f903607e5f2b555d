package dev.ax.common.schedule;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A task's next firings as {@code ax task next}, the API and the console show them: each slot, its
 * due time with the task's jitter ({@link Jitter}), and whether one of the task's calendars
 * excludes it (such a firing is listed as skipped, with the calendar, and counts toward the number
 * asked for, since the ticker records it SKIPPED too). Pure: every input is passed in.
 *
 * <ul>
 *   <li>CRON, FIXED_RATE: from the task's stored next firing (the chain's SCHEDULED or PAUSED
 *       instance; without one, the first slot after now), slot after slot, up to {@code endAt}.
 *   <li>FIXED_DELAY: only the stored next firing; the ones after count from the end of each run.
 *   <li>ONCE: its stored firing if it has not fired.
 *   <li>DEPENDENCY: none; it fires when its upstream tasks succeed.
 * </ul>
 *
 * A task that is CANCELLED, DELETED or ENDED has none; a PAUSED one lists what would fire after a
 * RESUME, and says so. Thread-safe ({@link FireTimes} is).
 */
public final class UpcomingFirings {

  public static final int DEFAULT_COUNT = 10;

  public static final int MAX_COUNT = 1_000;

  /** One firing ahead; {@code skippedBy} is the calendar's reason, or null when it runs. */
  public record Upcoming(long slotMs, long dueAtMs, String skippedBy) {}

  /** The firings ahead and what a reader must know about them (empty notes: nothing). */
  public record Listing(List<Upcoming> firings, List<String> notes) {}

  /**
   * What is asked.
   *
   * @param state the task's state
   * @param acceptedAt when the task was accepted (a FIXED_RATE without startAt is on its grid)
   * @param nextSlotMs the slot of the task's stored next firing (SCHEDULED or PAUSED), or null
   * @param count how many firings, {@code 1..MAX_COUNT}
   */
  public record Query(
      TaskSpec spec, TaskState state, Instant acceptedAt, Long nextSlotMs, Instant now, int count) {
    public Query {
      requireCount(count);
    }
  }

  private final FireTimes fireTimes;

  public UpcomingFirings(FireTimes fireTimes) {
    this.fireTimes = fireTimes;
  }

  /**
   * {@code count} unchanged.
   *
   * @throws IllegalArgumentException when it is outside {@code 1..MAX_COUNT}
   */
  public static int requireCount(int count) {
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException("n must be in 1.." + MAX_COUNT + ": " + count);
    }
    return count;
  }

  /**
   * The listing for {@code query}.
   *
   * @param calendars a calendar by its stored name, empty when it does not exist
   */
  public Listing next(Query query, Function<String, Optional<ExclusionCalendar>> calendars) {
    TaskSpec spec = query.spec();
    Trigger trigger = spec.trigger();
    List<String> notes = new ArrayList<>();
    if (query.state() != TaskState.ACTIVE && query.state() != TaskState.PAUSED) {
      notes.add("task is " + query.state() + ": nothing fires");
      return new Listing(List.of(), notes);
    }
    if (query.state() == TaskState.PAUSED) {
      notes.add("task is PAUSED: nothing fires until it is resumed; listed is what fires then");
    }
    if (trigger instanceof Trigger.Dependency) {
      notes.add("a DEPENDENCY task fires when its upstream tasks succeed; it has no fire times");
      return new Listing(List.of(), notes);
    }
    Map<String, ExclusionCalendar.Lookup> lookups = lookups(spec, calendars, notes);
    List<Instant> slots = slots(query, notes);
    List<Upcoming> firings = new ArrayList<>(slots.size());
    for (Instant slot : slots) {
      long slotMs = slot.toEpochMilli();
      boolean periodic = !(trigger instanceof Trigger.Once);
      firings.add(
          new Upcoming(
              slotMs,
              periodic ? Jitter.dueAtMs(spec.taskId(), slotMs, spec.rules()) : slotMs,
              periodic ? excludedBy(lookups, slot) : null));
    }
    if (firings.isEmpty() && notes.isEmpty()) {
      notes.add("no firing ahead");
    }
    return new Listing(firings, notes);
  }

  private List<Instant> slots(Query query, List<String> notes) {
    Trigger trigger = query.spec().trigger();
    Instant stored = query.nextSlotMs() == null ? null : Instant.ofEpochMilli(query.nextSlotMs());
    if (trigger instanceof Trigger.Once) {
      if (stored == null) {
        notes.add("a ONCE task fires once: it has fired or is firing now");
        return List.of();
      }
      return List.of(stored);
    }
    if (trigger instanceof Trigger.FixedDelay delay) {
      if (stored == null || FireTimes.isAfterEnd(delay, stored.toEpochMilli())) {
        notes.add(
            stored == null
                ? "a FIXED_DELAY task's next firing is created when its run in flight ends"
                : "the schedule ends at " + delay.endAt());
        return List.of();
      }
      if (query.count() > 1) {
        notes.add(
            "a FIXED_DELAY task's later firings count from the end of each run ("
                + delay.interval()
                + " after it): only the next one is known");
      }
      return List.of(stored);
    }
    Slots grid = fireTimes.slots(trigger, query.acceptedAt());
    List<Instant> slots = new ArrayList<>(query.count());
    Optional<Instant> next = stored != null ? Optional.of(stored) : grid.nextAfter(query.now());
    while (next.isPresent() && slots.size() < query.count()) {
      slots.add(next.get());
      next = grid.nextAfter(next.get());
    }
    if (next.isEmpty() && trigger.endAt() != null) {
      notes.add("the schedule ends at " + trigger.endAt());
    }
    return slots;
  }

  private static Map<String, ExclusionCalendar.Lookup> lookups(
      TaskSpec spec, Function<String, Optional<ExclusionCalendar>> calendars, List<String> notes) {
    Map<String, ExclusionCalendar.Lookup> lookups = new LinkedHashMap<>();
    for (String name : spec.rules().calendars()) {
      Optional<ExclusionCalendar> calendar = calendars.apply(name);
      if (calendar.isPresent()) {
        lookups.put(name, new ExclusionCalendar.Lookup(calendar.get()));
      } else {
        notes.add(
            "calendar "
                + name.substring(name.indexOf('~') + 1)
                + " does not exist: it excludes nothing");
      }
    }
    return lookups;
  }

  private static String excludedBy(Map<String, ExclusionCalendar.Lookup> lookups, Instant slot) {
    for (ExclusionCalendar.Lookup lookup : lookups.values()) {
      Optional<String> reason = lookup.exclusion(slot);
      if (reason.isPresent()) {
        return reason.get();
      }
    }
    return null;
  }
}
