package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sheds the held events of stalled groups, as {@link HoldBudget} allows, when a poll's worth is
 * held: counted in {@code ax.dispatcher.shed.events}, the start of each shedding episode logged
 * once at INFO.
 *
 * <p>Not thread-safe: confined to the {@link ClaimLoop}'s thread.
 */
final class StalledGroups {

  private static final Logger log = LoggerFactory.getLogger(StalledGroups.class);

  private final HoldBudget budget;
  private final Counter shed;

  StalledGroups(HoldBudget budget, MeterRegistry meters) {
    this.budget = budget;
    this.shed = meters.counter("ax.dispatcher.shed.events");
  }

  /**
   * Leaves to the reaper the held events of each group whose pool has been full for {@code
   * AX_DISPATCHER_HOLD_FOR} beyond what that pool started in the last {@code
   * AX_DISPATCHER_HOLD_FOR}, latest due first. Their rows stay DISPATCHED and unclaimed, so the
   * reaper emits them again after {@code AX_REAPER_UNCLAIMED_AFTER}, to this dispatcher or another.
   */
  void shed(HeldEvents held, long nowMs) {
    for (String group : held.groups()) {
      int keep = budget.keep(group, nowMs);
      List<TaskDueEvent> left = held.keepOldest(group, keep);
      if (left.isEmpty()) {
        continue;
      }
      shed.increment(left.size());
      if (budget.startsShedding(group)) {
        log.info(
            "Group '{}' has had no room in its pool for over {} ms: it keeps its {} oldest held"
                + " due event(s), as many as its pool started in that time, and leaves {} later"
                + " one(s) DISPATCHED for the reaper (re-emitted after AX_REAPER_UNCLAIMED_AFTER),"
                + " so fetching goes on for the other groups",
            group,
            budget.holdFor().toMillis(),
            keep,
            left.size());
      } else {
        log.debug(
            "Group '{}' still stalled: {} due event(s) left for the reaper", group, left.size());
      }
    }
  }
}
