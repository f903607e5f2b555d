package dev.ax.bench;

import dev.ax.bench.SeedSchedule.ScheduleClass;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.schedule.CronSchedule;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.HdrHistogram.Histogram;

/**
 * The seed mix's firings, expected against observed: every slot of every task's cron schedule due
 * in [{@code fromMs}, {@code untilMs}] is expected to complete exactly once, not before it is due.
 * Completion events are matched by (task, due time); {@link #settle} closes the slots due up to a
 * moment, counting a slot with no event as missed, and an event for no slot as unexpected, then
 * forgets them, so memory stays bounded by the events of the last minutes however long the run. Per
 * schedule class: start lateness (started − due) of each slot's first event, and the counts. Not
 * thread-safe: used by the bench's main thread.
 */
final class SeedFirings {

  /** Per schedule class: what was expected and what happened. */
  static final class Counts {
    long expected;
    long observed;
    long missed;
    long doubled;
    long repeatedEvents;
    long early;
    long unexpected;
    final Histogram lateness = new Histogram(3);
  }

  /** One slot of one task: its index in the schedule and the slot's due time. */
  private record Slot(int task, long dueAtMs) {}

  /**
   * The start an event reports: the same event sent again (completion events are at least once: an
   * outbox row whose delete did not commit is sent again by the relay) names the same instance,
   * attempt and start time; a second start of the slot does not.
   */
  private record Start(String instanceId, int attempt, long startedAtMs) {}

  /** At most this many doubled slots are kept, with both events, for the report. */
  static final int DOUBLED_SAMPLES = 5;

  private final List<String> doubledSamples = new ArrayList<>();

  /** The events of the first doubled slots: the first event and the other start. */
  List<String> doubledSamples() {
    return List.copyOf(doubledSamples);
  }

  private static Start startOf(TaskCompletedEvent e) {
    return new Start(e.instanceId(), e.attempt(), e.startedAtMs());
  }

  private static String describe(TaskCompletedEvent e) {
    return e.instanceId()
        + " attempt "
        + e.attempt()
        + " "
        + e.status()
        + " (instance "
        + e.instanceStatus()
        + ") started "
        + e.startedAtMs()
        + " on "
        + e.node()
        + (e.error() == null ? "" : ": " + e.error());
  }

  private final SeedSchedule schedule;
  private final String idPrefix;
  private final long fromMs;
  private final long untilMs;
  private final CronSchedule[] crons;
  private final long[] nextExpectedMs;

  /** The slots with an event, not yet settled, and their first event. */
  private final Map<Slot, TaskCompletedEvent> open = new HashMap<>();

  private final Map<ScheduleClass, Counts> counts = new EnumMap<>(ScheduleClass.class);
  private final Set<Long> dueInstants = new HashSet<>();
  private long settledUntilMs;
  private long afterSettle;
  private long outside;

  /**
   * @param idPrefix the schedule's task ids are {@code <idPrefix>-<index>}
   * @param fromMs the first due time counted (every task exists by then)
   * @param untilMs the last due time counted
   */
  SeedFirings(SeedSchedule schedule, String idPrefix, long fromMs, long untilMs) {
    this.schedule = schedule;
    this.idPrefix = idPrefix + "-";
    this.fromMs = fromMs;
    this.untilMs = untilMs;
    this.settledUntilMs = fromMs - 1;
    Map<String, CronSchedule> parsed = new HashMap<>();
    this.crons = new CronSchedule[schedule.size()];
    this.nextExpectedMs = new long[schedule.size()];
    for (SeedSchedule.SeedTask task : schedule.tasks()) {
      CronSchedule cron =
          parsed.computeIfAbsent(task.expression(), e -> CronSchedule.parse(e, ZoneOffset.UTC));
      crons[task.index()] = cron;
      nextExpectedMs[task.index()] = next(cron, fromMs - 1);
    }
    for (ScheduleClass kind : ScheduleClass.values()) {
      counts.put(kind, new Counts());
    }
  }

  private static long next(CronSchedule cron, long afterMs) {
    Optional<Instant> next = cron.nextAfter(Instant.ofEpochMilli(afterMs));
    return next.map(Instant::toEpochMilli).orElse(Long.MAX_VALUE);
  }

  /** One completion event; events of other tasks and of slots outside the window are ignored. */
  void accept(TaskCompletedEvent event) {
    int index = indexOf(event.taskId());
    if (index < 0) {
      return;
    }
    if (event.startedAtMs() == 0
        && (event.status() == InstanceStatus.SKIPPED
            || event.status() == InstanceStatus.CANCELLED)) {
      return; // a firing that did not run (its task's overlap policy): missed, when settled
    }
    long dueAtMs = event.dueAtMs();
    if (dueAtMs < fromMs || dueAtMs > untilMs) {
      outside++;
      return;
    }
    if (dueAtMs <= settledUntilMs) {
      afterSettle++; // its slot was judged already: a late duplicate, or a miss that came late
      return;
    }
    Counts c = counts.get(schedule.task(index).scheduleClass());
    TaskCompletedEvent first = open.putIfAbsent(new Slot(index, dueAtMs), event);
    if (first != null) {
      if (startOf(first).equals(startOf(event))) {
        c.repeatedEvents++;
      } else {
        c.doubled++;
        if (doubledSamples.size() < DOUBLED_SAMPLES) {
          doubledSamples.add(describe(first) + " | then " + describe(event));
        }
      }
      return;
    }
    long startLateMs = event.startedAtMs() - dueAtMs;
    if (startLateMs < 0) {
      c.early++;
    }
    c.lateness.recordValue(Math.max(0, startLateMs));
    dueInstants.add(dueAtMs);
  }

  /**
   * Judges every slot due up to {@code throughMs} (at most the window's end): an expected slot with
   * no event is missed, an event for a time that is no slot is unexpected.
   */
  void settle(long throughMs) {
    long through = Math.min(throughMs, untilMs);
    if (through <= settledUntilMs) {
      return;
    }
    for (int i = 0; i < crons.length; i++) {
      Counts c = counts.get(schedule.task(i).scheduleClass());
      while (nextExpectedMs[i] <= through) {
        c.expected++;
        if (open.remove(new Slot(i, nextExpectedMs[i])) == null) {
          c.missed++;
        } else {
          c.observed++;
        }
        nextExpectedMs[i] = next(crons[i], nextExpectedMs[i]);
      }
    }
    for (Iterator<Slot> it = open.keySet().iterator(); it.hasNext(); ) {
      Slot slot = it.next();
      if (slot.dueAtMs() <= through) {
        counts.get(schedule.task(slot.task()).scheduleClass()).unexpected++;
        it.remove();
      }
    }
    settledUntilMs = through;
  }

  private int indexOf(String taskId) {
    if (taskId == null || !taskId.startsWith(idPrefix)) {
      return -1;
    }
    try {
      int index = Integer.parseInt(taskId.substring(idPrefix.length()));
      return index >= 0 && index < schedule.size() ? index : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  Counts counts(ScheduleClass kind) {
    return counts.get(kind);
  }

  /** Every class together. */
  Counts total() {
    Counts all = new Counts();
    for (Counts c : counts.values()) {
      all.expected += c.expected;
      all.observed += c.observed;
      all.missed += c.missed;
      all.doubled += c.doubled;
      all.repeatedEvents += c.repeatedEvents;
      all.early += c.early;
      all.unexpected += c.unexpected;
      all.lateness.add(c.lateness);
    }
    return all;
  }

  /** Distinct due times that fired in the window: the ticker's firing instants. */
  long dueInstants() {
    return dueInstants.size();
  }

  /** Events whose slot had been judged already (late duplicates or misses that came late). */
  long afterSettle() {
    return afterSettle;
  }

  /** Events of the mix's tasks due outside the window (before it starts or after it ends). */
  long outside() {
    return outside;
  }
}
