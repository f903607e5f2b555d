package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.CatchUp;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Firing;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.schedule.MisfirePlanner;
import dev.ax.common.schedule.SlotCount;
import dev.ax.common.schedule.Slots;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceIds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Optional;

/**
 * The trigger side of one due row of a CRON or FIXED_RATE task: its successors (the chain), and
 * whether the row itself fires or is recorded as not run because it is too late. See {@link
 * FirePlanner} for the chain and the misfire policies; this class adds the catch-up window and
 * jitter:
 *
 * <ul>
 *   <li><b>Catch-up window</b> (when the task has one, in place of its misfire policy): of the
 *       slots missed by now, those older than {@code now - window} are <em>missed</em>: none runs,
 *       and the late row, the oldest of them, is SKIPPED with reason {@code missed: ...} standing
 *       for all of them; the newer ones fire late, the newest {@code maxFireAll} (the rest are
 *       recorded with them).
 *   <li><b>Jitter</b>: a successor for a slot is due at {@link Jitter#dueAtMs}, its id still the
 *       slot's. A row due more than {@code misfireThreshold + jitter} after its slot is a catch-up
 *       instance (it fires, extends nothing).
 * </ul>
 *
 * Immutable and thread-safe.
 */
final class TriggerPlanner {

  static final String SKIP_MISFIRE = "misfire: skipped (policy SKIP)";
  static final String SKIP_DROPPED = "misfire: dropped beyond maxFireAll (policy FIRE_ALL)";
  static final String REASON_NEXT = "next firing";
  static final String REASON_CATCH_UP = "misfire catch-up";

  private final FireTimes fireTimes;
  private final MisfirePlanner misfires;
  private final long misfireThresholdMs;

  TriggerPlanner(FireTimes fireTimes, Duration misfireThreshold) {
    this.fireTimes = fireTimes;
    this.misfires = new MisfirePlanner(misfireThreshold);
    this.misfireThresholdMs = SaturatingMillis.toMillis(misfireThreshold);
  }

  /**
   * Plans the trigger side of one row: successors, and whether the row itself should fire.
   *
   * @return true to dispatch the row (subject to its overlap policy), false when it was skipped
   */
  boolean plan(DueInstance row, StoredTask task, long nowMs, FirePlan plan) {
    Trigger trigger = task.spec().trigger();
    if (!(trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate)) {
      return true;
    }
    if (!InstanceIds.isSlotId(row.instanceId())) {
      return true; // an extra instance (RUN_NOW, backfill): fires, is no slot, extends no chain
    }
    long slotMs = InstanceIds.slotOf(row.instanceId());
    ScheduleRules rules = task.spec().rules();
    // Saturating: both come from stored rows and may be anything.
    long catchUpAfterMs = SaturatingMillis.atMs(misfireThresholdMs, rules.jitter().toMillis());
    if (SaturatingMillis.subtract(row.dueAtMs(), slotMs) > catchUpAfterMs) {
      return true; // a catch-up instance: fires, does not extend the chain
    }
    Instant slot = Instant.ofEpochMilli(slotMs);
    Slots slots = fireTimes.slots(trigger, slot);
    // Late by the later of its due time and its slot: under symmetric jitter a row may be due
    // before its slot, and one whose slot has not come yet is never a misfire.
    if (SaturatingMillis.subtract(nowMs, Math.max(row.dueAtMs(), slotMs)) <= misfireThresholdMs) {
      Optional<Instant> next = slots.nextAfter(slot);
      if (next.isPresent()) {
        addJittered(plan, row, task, next.get().toEpochMilli(), REASON_NEXT);
      } else {
        plan.chainsEndedByInstanceId.put(row.instanceId(), row.taskId());
      }
      return true;
    }
    return rules.catchUpWindow() != null
        ? planWindow(row, task, slots, slot, nowMs, plan)
        : planMisfire(row, task, slots, slot, nowMs, plan);
  }

  private boolean planMisfire(
      DueInstance row, StoredTask task, Slots slots, Instant slot, long nowMs, FirePlan plan) {
    CatchUp catchUp =
        misfires.plan(
            slots,
            slot.minusMillis(1),
            Instant.ofEpochMilli(nowMs),
            task.spec().misfirePolicy(),
            task.spec().maxFireAll());
    boolean rowFires = follow(catchUp, row, task, slot, plan);
    if (!rowFires) {
      String reason =
          switch (task.spec().misfirePolicy()) {
            case SKIP -> SKIP_MISFIRE;
            default -> SKIP_DROPPED;
          };
      plan.skipMissed(
          reason + counted(catchUp.dropped(), catchUp.missedCountExact()),
          row.seq(),
          catchUp.dropped());
    }
    return rowFires;
  }

  private boolean planWindow(
      DueInstance row, StoredTask task, Slots slots, Instant slot, long nowMs, FirePlan plan) {
    Duration window = task.spec().rules().catchUpWindow();
    Instant lastHandled = slot.minusMillis(1);
    // Missed: slots before now - window, i.e. up to the nanosecond before it; never a slot within
    // the misfire threshold, which runs as scheduled whatever the window (as under every policy).
    long windowMs = Math.max(SaturatingMillis.toMillis(window), misfireThresholdMs);
    Instant missedCeiling =
        Instant.ofEpochMilli(SaturatingMillis.atMs(nowMs, -windowMs)).minusNanos(1);
    SlotCount missed =
        missedCeiling.isAfter(lastHandled)
            ? slots.count(lastHandled, missedCeiling, MisfirePlanner.MAX_COUNTED_SLOTS)
            : new SlotCount(0, true);
    Instant floor =
        missed.count() > 0
            ? slots.latestIn(lastHandled, missedCeiling).orElse(lastHandled)
            : lastHandled;
    CatchUp catchUp =
        misfires.plan(
            slots,
            floor,
            Instant.ofEpochMilli(nowMs),
            MisfirePolicy.FIRE_ALL,
            task.spec().maxFireAll());
    boolean rowFires = follow(catchUp, row, task, slot, plan);
    if (!rowFires && missed.count() == 0) {
      // Within the window, but beyond maxFireAll: dropped, as FIRE_ALL drops.
      plan.skipMissed(
          SKIP_DROPPED + " within the catch-up window" + counted(catchUp.dropped(), true),
          row.seq(),
          catchUp.dropped());
    } else if (!rowFires) {
      long notRun = missed.count() + catchUp.dropped();
      plan.skipMissed(
          "missed: "
              + notRun
              + (missed.exact() && catchUp.missedCountExact() ? "" : "+")
              + " firing(s) from "
              + slot
              + " older than the catch-up window of "
              + window,
          row.seq(),
          notRun);
    }
    return rowFires;
  }

  /**
   * Adds the catch-up's firings and next slot as successors of {@code row}.
   *
   * @return whether the row itself stands for one of the firings (and so fires)
   */
  private boolean follow(
      CatchUp catchUp, DueInstance row, StoredTask task, Instant slot, FirePlan plan) {
    boolean rowFires = false;
    long slotMs = slot.toEpochMilli();
    for (Firing firing : catchUp.firings()) {
      long fireMs = firing.fireTime().toEpochMilli();
      if (fireMs == slotMs || firing.kind() == Firing.Kind.COALESCED) {
        rowFires = true; // the late row itself stands for this firing
        continue;
      }
      boolean onTime = firing.kind() == Firing.Kind.ON_TIME;
      if (onTime) {
        addJittered(plan, row, task, fireMs, REASON_NEXT);
      } else {
        addSuccessor(plan, row, task, fireMs, firing.dueAt().toEpochMilli(), REASON_CATCH_UP);
      }
    }
    Optional<Instant> next = catchUp.next();
    if (next.isPresent()) {
      addJittered(plan, row, task, next.get().toEpochMilli(), REASON_NEXT);
    } else {
      plan.chainsEndedByInstanceId.put(row.instanceId(), row.taskId());
    }
    return rowFires;
  }

  private static String counted(long dropped, boolean exact) {
    return dropped <= 1 ? "" : ", " + dropped + (exact ? "" : "+") + " firings";
  }

  /** A successor for slot {@code fireMs}, due at its jittered time. */
  private static void addJittered(
      FirePlan plan, DueInstance row, StoredTask task, long fireMs, String why) {
    long dueMs = Jitter.dueAtMs(row.taskId(), fireMs, task.spec().rules());
    addSuccessor(plan, row, task, fireMs, dueMs, why);
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
}
