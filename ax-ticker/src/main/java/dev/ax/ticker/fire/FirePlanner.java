package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoredTask;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides, for a batch of instances the wheel found due, which to dispatch, which to skip, which to
 * hold, which runs to cancel and what comes next. Pure: everything it needs is passed in, time
 * included.
 *
 * <h2>Periodic tasks form a chain</h2>
 *
 * A CRON or FIXED_RATE task always has its next firing stored as a SCHEDULED instance, id {@code
 * taskId@slotMillis}, due at its slot (moved by the task's jitter, {@link
 * dev.ax.common.schedule.Jitter}). When that instance fires (or is skipped, or held), its successor
 * is created in the same transaction (see {@code FiringStore.fire}), so a crash never breaks the
 * chain, and the deterministic id makes a repeated firing create nothing new.
 *
 * <h2>Late rows</h2>
 *
 * An instance more than {@code misfireThreshold} past its due time (the ticker was down, or the
 * task paused) is planned from its slot to now ({@link TriggerPlanner}): by the task's catch-up
 * window when it has one, else by its misfire policy:
 *
 * <ul>
 *   <li>FIRE_ONCE_NOW: the late instance itself is the one firing for every missed slot; slots just
 *       due fire as scheduled; the chain goes on from the first slot after now.
 *   <li>SKIP: the late instance is SKIPPED (reason in the audit log, with how many slots it stands
 *       for); slots just due fire; the chain goes on from the first slot after now.
 *   <li>FIRE_ALL: each missed slot fires, oldest first, at most {@code maxFireAll} (the newest);
 *       the late instance is dispatched if it is among them, otherwise SKIPPED as dropped.
 * </ul>
 *
 * Catch-up instances created this way are due now, long after their slot; they fire like any other
 * but never extend the chain (the late instance already did), which is how they are told apart.
 *
 * <h2>Overlap</h2>
 *
 * A firing of a periodic task (CRON, FIXED_RATE, FIXED_DELAY) then follows the task's {@link
 * OverlapPolicy} ({@link OverlapRules}): dispatched, SKIPPED, held (left SCHEDULED and looked at
 * again {@code TickLoop.DELAY_RECHECK_MS} later; the first hold is recorded and creates the row's
 * successors, so the chain never waits for a held firing), or dispatched after cancelling the runs
 * in flight. One-shot and dependency tasks run every firing (each dependency firing is its own flow
 * run), and an operator's RUN_NOW always runs (though it counts as a run in flight for the
 * schedule's own firings): their policy is ALLOW_ALL whatever the spec says.
 *
 * <p>ONCE tasks have no successor; FIXED_DELAY successors are created when the run ends (from the
 * completion event), not here. Thread-safe (immutable; {@link FireTimes} is thread-safe).
 */
public final class FirePlanner {

  public static final String SKIP_MISFIRE = TriggerPlanner.SKIP_MISFIRE;
  public static final String SKIP_DROPPED = TriggerPlanner.SKIP_DROPPED;
  public static final String REASON_NEXT = TriggerPlanner.REASON_NEXT;
  public static final String REASON_CATCH_UP = TriggerPlanner.REASON_CATCH_UP;

  /** The audit reason of runs cancelled by CANCEL_OTHER. */
  public static final String CANCELLED_BY_NEXT =
      "overlap: cancelled by the task's next firing (policy CANCEL_OTHER)";

  private final TriggerPlanner triggers;
  private final CalendarCheck calendars;

  public FirePlanner(FireTimes fireTimes, Duration misfireThreshold) {
    this(fireTimes, misfireThreshold, CalendarCheck.NONE);
  }

  /**
   * @param calendars which firings a task's calendars exclude (see {@link CalendarCheck})
   */
  public FirePlanner(FireTimes fireTimes, Duration misfireThreshold, CalendarCheck calendars) {
    this.triggers = new TriggerPlanner(fireTimes, misfireThreshold);
    this.calendars = calendars;
  }

  /**
   * As {@link #plan(List, Map, Map, Set, long)} with only which tasks have a run in flight known
   * (no run to cancel, nothing waiting, nothing held before).
   */
  public FirePlan plan(
      List<DueInstance> due, Map<String, StoredTask> tasks, Set<String> inFlight, long nowMs) {
    return plan(due, tasks, TaskOverlap.ofInFlight(inFlight), Set.of(), nowMs);
  }

  /**
   * @param due SCHEDULED rows the wheel found due, oldest first
   * @param tasks their tasks by id (a row whose task is missing is dispatched: the dispatcher
   *     records the failure)
   * @param live what the batch's tasks with an overlap policy other than ALLOW_ALL have live
   *     (absent: nothing)
   * @param held rows this ticker held before (their successors exist; their trigger is not planned
   *     again)
   */
  public FirePlan plan(
      List<DueInstance> due,
      Map<String, StoredTask> tasks,
      Map<String, TaskOverlap> live,
      Set<Long> held,
      long nowMs) {
    FirePlan plan = new FirePlan();
    Set<String> firingNow = new HashSet<>();
    Set<Long> decided = new HashSet<>();
    Set<Long> cancelled = new HashSet<>();
    for (DueInstance row : due) {
      StoredTask task = tasks.get(row.taskId());
      if (task == null) {
        plan.dispatch.add(row.seq());
        continue;
      }
      if (InstanceIds.isBackfillId(row.instanceId())) {
        // A backfill's firing: its creator applied the backfill's pace and overlap policy
        // (dev.ax.ticker.backfill); it is no slot of the chain, and the task's own policy is not
        // for it.
        dispatch(plan, row, firingNow, decided);
        continue;
      }
      boolean wasHeld = held.contains(row.seq());
      if (!wasHeld && !triggers.plan(row, task, nowMs, plan)) {
        decided.add(row.seq());
        continue;
      }
      if (!wasHeld) {
        Optional<CalendarCheck.Exclusion> excluded = calendars.check(row, task, nowMs);
        if (excluded.isPresent()) { // an excluded day: SKIPPED, the chain goes on
          excluded.get().applyTo(plan, row);
          decided.add(row.seq());
          continue;
        }
      }
      OverlapRules.Decision decision =
          OverlapRules.decide(
              overlapOf(task.spec(), row),
              new OverlapRules.DueRow(row.seq(), row.instanceId(), row.dueAtMs()),
              live.getOrDefault(row.taskId(), TaskOverlap.IDLE),
              firingNow.contains(row.taskId()),
              decided,
              nowMs);
      if (decision instanceof OverlapRules.NotYet) {
        plan.notYet.put(row.seq(), row.dueAtMs()); // nothing moves, nothing is created yet
      } else if (decision instanceof OverlapRules.Skip skip) {
        plan.skip(skip.reason(), row.seq());
        decided.add(row.seq());
      } else if (decision instanceof OverlapRules.Hold hold) {
        if (wasHeld) {
          plan.delay.add(row.seq());
        } else {
          plan.hold(hold.reason(), row.seq());
        }
      } else {
        if (decision instanceof OverlapRules.CancelOthers cancel) {
          for (TaskOverlap.RunInFlight run : cancel.runs()) {
            if (run.seq() >= 0 && cancelled.add(run.seq())) {
              plan.cancel(run);
            }
          }
        }
        dispatch(plan, row, firingNow, decided);
      }
    }
    return plan;
  }

  private static void dispatch(
      FirePlan plan, DueInstance row, Set<String> firingNow, Set<Long> decided) {
    firingNow.add(row.taskId());
    plan.dispatch.add(row.seq());
    decided.add(row.seq());
  }

  /**
   * The overlap policy {@code row} follows: its task's for a firing of the schedule (a slot id);
   * ALLOW_ALL for an operator's RUN_NOW (or any other firing that is no slot), which always runs,
   * though it counts as a run in flight for the schedule's own firings.
   */
  static OverlapPolicy overlapOf(TaskSpec spec, DueInstance row) {
    return InstanceIds.isSlotId(row.instanceId()) ? overlapOf(spec) : OverlapPolicy.ALLOW_ALL;
  }

  /** The task's overlap policy; ALLOW_ALL for triggers that are not periodic. */
  static OverlapPolicy overlapOf(TaskSpec spec) {
    Trigger trigger = spec.trigger();
    boolean periodic =
        trigger instanceof Trigger.Cron
            || trigger instanceof Trigger.FixedRate
            || trigger instanceof Trigger.FixedDelay;
    return periodic ? spec.overlap() : OverlapPolicy.ALLOW_ALL;
  }

  /** True for {@code taskId@<digits>}: an instance of one of the trigger's slots. */
  static boolean isSlotId(String instanceId) {
    return InstanceIds.isSlotId(instanceId);
  }

  /** The tasks among {@code rows} whose firings follow an overlap policy other than ALLOW_ALL. */
  public static Set<String> nonConcurrent(List<DueInstance> rows, Map<String, StoredTask> tasks) {
    Set<String> watched = new HashSet<>();
    for (DueInstance row : rows) {
      StoredTask task = tasks.get(row.taskId());
      if (task != null && overlapOf(task.spec()) != OverlapPolicy.ALLOW_ALL) {
        watched.add(row.taskId());
      }
    }
    return watched;
  }

  /** The task group of each task, by task id: the due events carry it. */
  public static Map<String, String> groupsOf(Map<String, StoredTask> tasks) {
    Map<String, String> groupByTask = new HashMap<>();
    tasks.forEach((id, task) -> groupByTask.put(id, task.spec().group()));
    return groupByTask;
  }
}
