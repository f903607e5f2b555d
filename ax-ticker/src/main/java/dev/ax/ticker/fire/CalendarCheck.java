package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.trace.TraceIds;
import java.util.ArrayList;
import java.util.Optional;

/**
 * Whether a firing about to be dispatched falls on a day one of its task's calendars excludes: if
 * so it is recorded SKIPPED with the reason {@code calendar <name>: excluded <local date>} and does
 * not run. {@link FirePlanner} asks once per row it would dispatch, after the row's successor is
 * planned, so a CRON or FIXED_RATE chain goes on past an excluded day. A FIXED_DELAY chain goes on
 * from a run's end, and a skipped firing has no run: its next firing is planned here, {@code
 * interval} after now (unless that is past {@code endAt}), as if a run had ended at once.
 *
 * <p>The day judged is the slot's ({@code taskId@<slot>}), not its jittered due time, so every
 * firing of one excluded day is skipped; a firing whose id names no slot is judged by its due time.
 * A RUN_NOW ({@code taskId@run:<command>}) is an operator's explicit run and is never excluded, nor
 * are ONCE and DEPENDENCY tasks (calendars shape a schedule, and those have none). A calendar the
 * task names that does not exist excludes nothing ({@link CalendarDirectory} warns).
 *
 * <p>Threading: the firing thread only, as its {@link CalendarDirectory}.
 */
public final class CalendarCheck {

  /** Checks nothing: no firing is excluded. */
  public static final CalendarCheck NONE = new CalendarCheck(null);

  public static final String REASON_AFTER_SKIP = "next firing (after a calendar skip)";

  /** A firing excluded: why, and the FIXED_DELAY successor to create (null: none). */
  record Exclusion(String reason, NewInstance successor) {

    /** Records it in {@code plan}: {@code row} SKIPPED with the reason, its successor if any. */
    void applyTo(FirePlan plan, DueInstance row) {
      plan.skip(reason, row.seq());
      if (successor != null) {
        plan.successorsByInstanceId
            .computeIfAbsent(row.instanceId(), id -> new ArrayList<>())
            .add(successor);
      }
    }
  }

  private final CalendarDirectory directory;

  public CalendarCheck(CalendarDirectory directory) {
    this.directory = directory;
  }

  /** Whether {@code row} of {@code task}, about to be dispatched at {@code nowMs}, is excluded. */
  Optional<Exclusion> check(DueInstance row, StoredTask task, long nowMs) {
    Trigger trigger = task.spec().trigger();
    if (directory == null
        || task.spec().rules().calendars().isEmpty()
        || trigger instanceof Trigger.Once
        || trigger instanceof Trigger.Dependency
        || row.instanceId().startsWith(row.taskId() + "@run:")) {
      return Optional.empty();
    }
    long atMs =
        InstanceIds.isSlotId(row.instanceId())
            ? InstanceIds.slotOf(row.instanceId())
            : row.dueAtMs();
    for (String name : task.spec().rules().calendars()) {
      Optional<String> reason =
          directory
              .lookup(name)
              .flatMap(lookup -> lookup.exclusion(java.time.Instant.ofEpochMilli(atMs)));
      if (reason.isPresent()) {
        return Optional.of(new Exclusion(reason.get(), fixedDelaySuccessor(row, task, nowMs)));
      }
    }
    return Optional.empty();
  }

  private static NewInstance fixedDelaySuccessor(DueInstance row, StoredTask task, long nowMs) {
    if (!(task.spec().trigger() instanceof Trigger.FixedDelay delay)) {
      return null;
    }
    long nextMs = FireTimes.afterRunEndedMs(delay, nowMs);
    if (FireTimes.isAfterEnd(delay, nextMs)) {
      return null;
    }
    String instanceId = InstanceIds.of(row.taskId(), nextMs);
    return new NewInstance(
        instanceId,
        row.taskId(),
        task.version(),
        nextMs,
        TraceIds.ofInstance(delay, task.traceId(), instanceId),
        REASON_AFTER_SKIP,
        null,
        false);
  }
}
