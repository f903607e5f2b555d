package dev.ax.ticker.fire;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.CatchUp;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Firing;
import dev.ax.common.schedule.MisfirePlanner;
import dev.ax.common.schedule.Slots;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceIds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides, for a batch of instances the wheel found due, which to dispatch, which to skip and what
 * comes next. Pure: everything it needs is passed in, time included.
 *
 * <h2>Periodic tasks form a chain</h2>
 *
 * A CRON or FIXED_RATE task always has its next firing stored as a SCHEDULED instance, id {@code
 * taskId@slotMillis}, due at its slot. When that instance fires, its successor is created in the
 * same transaction (see {@code FiringStore.fire}), so a crash never breaks the chain, and the
 * deterministic id makes a repeated firing create nothing new.
 *
 * <h2>Misfires</h2>
 *
 * An instance more than {@code misfireThreshold} past its due time (the ticker was down, or the
 * task paused) is planned by {@link MisfirePlanner} from its slot to now:
 *
 * <ul>
 *   <li>FIRE_ONCE_NOW: the late instance itself is the one firing for every missed slot; slots just
 *       due fire as scheduled; the chain goes on from the first slot after now.
 *   <li>SKIP: the late instance is SKIPPED (reason in the audit log); slots just due fire; the
 *       chain goes on from the first slot after now.
 *   <li>FIRE_ALL: each missed slot fires, oldest first, at most {@code maxFireAll} (the newest);
 *       the late instance is dispatched if it is among them, otherwise SKIPPED as dropped.
 * </ul>
 *
 * Catch-up instances created this way are due now, long after their slot; they fire like any other
 * but never extend the chain (the late instance already did), which is how they are told apart.
 *
 * <h2>Concurrency</h2>
 *
 * A task with {@code concurrent=false} whose previous instance is still DISPATCHED, RUNNING or
 * RETRYING (or that already fires in this batch) is SKIPPED (policy SKIP, the default; the chain
 * goes on) or held back to be looked at again shortly (policy DELAY).
 *
 * <p>ONCE tasks have no successor; FIXED_DELAY successors are created when the run ends (from the
 * completion event), not here. Thread-safe (immutable; {@link FireTimes} is thread-safe).
 */
public final class FirePlanner {

  public static final String SKIP_MISFIRE = "misfire: skipped (policy SKIP)";
  public static final String SKIP_DROPPED = "misfire: dropped beyond maxFireAll (policy FIRE_ALL)";
  public static final String SKIP_CONCURRENT =
      "previous run still in flight (concurrent=false, policy SKIP)";
  public static final String REASON_NEXT = "next firing";
  public static final String REASON_CATCH_UP = "misfire catch-up";

  private final FireTimes fireTimes;
  private final MisfirePlanner misfires;
  private final long misfireThresholdMs;

  public FirePlanner(FireTimes fireTimes, Duration misfireThreshold) {
    this.fireTimes = fireTimes;
    this.misfires = new MisfirePlanner(misfireThreshold);
    this.misfireThresholdMs = SaturatingMillis.toMillis(misfireThreshold);
  }

  /**
   * @param due SCHEDULED rows the wheel found due, oldest first
   * @param tasks their tasks by id (a row whose task is missing is dispatched: the dispatcher
   *     records the failure)
   * @param inFlight tasks with an instance DISPATCHED, RUNNING or RETRYING now
   */
  public FirePlan plan(
      List<DueInstance> due, Map<String, StoredTask> tasks, Set<String> inFlight, long nowMs) {
    FirePlan plan = new FirePlan();
    Set<String> firingNow = new HashSet<>();
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
        plan.dispatch.add(row.seq());
        continue;
      }
      TaskSpec spec = task.spec();
      boolean dispatch = planTrigger(row, task, nowMs, plan);
      if (!dispatch) {
        continue;
      }
      boolean busy = inFlight.contains(row.taskId()) || firingNow.contains(row.taskId());
      if (!spec.concurrent() && busy) {
        if (spec.concurrencyPolicy() == ConcurrencyPolicy.DELAY) {
          plan.delay.add(row.seq());
          plan.successorsByInstanceId.remove(row.instanceId());
          plan.chainsEndedByInstanceId.remove(row.instanceId()); // looked at again later
        } else {
          plan.skip(SKIP_CONCURRENT, row.seq());
        }
        continue;
      }
      firingNow.add(row.taskId());
      plan.dispatch.add(row.seq());
    }
    return plan;
  }

  /**
   * Plans the trigger side of one row: successors, and whether the row itself should fire.
   *
   * @return true to dispatch the row (subject to concurrency), false when it was skipped
   */
  private boolean planTrigger(DueInstance row, StoredTask task, long nowMs, FirePlan plan) {
    Trigger trigger = task.spec().trigger();
    if (!(trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate)) {
      return true;
    }
    if (!isSlotId(row.instanceId())) {
      return true; // an extra instance (RUN_NOW): fires, is no slot, extends no chain
    }
    long slotMs = slotOf(row);
    // Saturating: both come from stored rows and may be anything.
    if (SaturatingMillis.subtract(row.dueAtMs(), slotMs) > misfireThresholdMs) {
      return true; // a catch-up instance: fires, does not extend the chain
    }
    Instant slot = Instant.ofEpochMilli(slotMs);
    Slots slots = fireTimes.slots(trigger, slot);
    if (SaturatingMillis.subtract(nowMs, row.dueAtMs()) <= misfireThresholdMs) {
      Optional<Instant> next = slots.nextAfter(slot);
      if (next.isPresent()) {
        addSuccessor(
            plan, row, task, next.get().toEpochMilli(), next.get().toEpochMilli(), REASON_NEXT);
      } else {
        plan.chainsEndedByInstanceId.put(row.instanceId(), row.taskId());
      }
      return true;
    }
    CatchUp catchUp =
        misfires.plan(
            slots,
            slot.minusMillis(1),
            Instant.ofEpochMilli(nowMs),
            task.spec().misfirePolicy(),
            task.spec().maxFireAll());
    boolean rowFires = false;
    for (Firing firing : catchUp.firings()) {
      long fireMs = firing.fireTime().toEpochMilli();
      if (fireMs == slotMs || firing.kind() == Firing.Kind.COALESCED) {
        rowFires = true; // the late row itself stands for this firing
        continue;
      }
      addSuccessor(
          plan,
          row,
          task,
          fireMs,
          firing.dueAt().toEpochMilli(),
          firing.kind() == Firing.Kind.ON_TIME ? REASON_NEXT : REASON_CATCH_UP);
    }
    Optional<Instant> next = catchUp.next();
    if (next.isPresent()) {
      long nextMs = next.get().toEpochMilli();
      addSuccessor(plan, row, task, nextMs, nextMs, REASON_NEXT);
    } else {
      plan.chainsEndedByInstanceId.put(row.instanceId(), row.taskId());
    }
    if (!rowFires) {
      plan.skip(
          switch (task.spec().misfirePolicy()) {
            case SKIP -> SKIP_MISFIRE;
            default -> SKIP_DROPPED;
          },
          row.seq());
    }
    return rowFires;
  }

  private static void addSuccessor(
      FirePlan plan, DueInstance row, StoredTask task, long fireMs, long dueMs, String reason) {
    String instanceId = InstanceIds.of(row.taskId(), fireMs);
    plan.successorsByInstanceId
        .computeIfAbsent(row.instanceId(), id -> new ArrayList<>())
        .add(
            new NewInstance(
                instanceId,
                row.taskId(),
                task.version(),
                dueMs,
                TraceIds.ofInstance(task.spec().trigger(), task.traceId(), instanceId),
                reason,
                null,
                task.spec().trigger() instanceof Trigger.Once));
  }

  /** True for {@code taskId@<digits>}: an instance of one of the trigger's slots. */
  static boolean isSlotId(String instanceId) {
    return InstanceIds.isSlotId(instanceId);
  }

  /** The slot (fire time) an instance stands for: the millis in its id {@code taskId@slot}. */
  static long slotOf(DueInstance row) {
    return InstanceIds.slotOf(row.instanceId());
  }

  /** The tasks among {@code rows} whose runs may not overlap ({@code concurrent=false}). */
  public static Set<String> nonConcurrent(List<DueInstance> rows, Map<String, StoredTask> tasks) {
    Set<String> nonConcurrent = new HashSet<>();
    for (DueInstance row : rows) {
      StoredTask task = tasks.get(row.taskId());
      if (task != null && !task.spec().concurrent()) {
        nonConcurrent.add(row.taskId());
      }
    }
    return nonConcurrent;
  }

  /** The task group of each task, by task id: the due events carry it. */
  public static Map<String, String> groupsOf(Map<String, StoredTask> tasks) {
    Map<String, String> groupByTask = new HashMap<>();
    tasks.forEach((id, task) -> groupByTask.put(id, task.spec().group()));
    return groupByTask;
  }
}
