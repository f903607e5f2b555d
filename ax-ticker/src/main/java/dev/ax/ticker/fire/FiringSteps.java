package dev.ax.ticker.fire;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.model.InstanceStatus.SKIPPED;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.LeaseFence;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The batch moves one firing is made of ({@code FiringStore.fire}), each fenced by the leader's
 * lease and audited: the dispatch first, then the skips by reason, the holds by reason, the
 * cancellations by status. Stateless.
 */
final class FiringSteps {

  /** What a step does to its rows. */
  enum Kind {
    DISPATCH,
    SKIP,
    HOLD,
    CANCEL
  }

  /**
   * The rows keyed by {@code seqs} to move with {@code move}, as one step of a firing.
   *
   * @param notRun the status a row this step moves ends in when it is a firing that did not run (it
   *     owes a completion event), else null
   * @param reason the audit reason
   */
  record Step(
      Kind kind,
      List<Long> seqs,
      BatchMove<DueInstance> move,
      InstanceStatus notRun,
      String reason) {}

  /**
   * The owner a held firing's row carries while it waits (SCHEDULED, past its due time), so the
   * backlog's oldest-due gauge can leave it out: it waits by its task's policy, not for AX.
   */
  static final String HELD_OWNER = "ax-held";

  private FiringSteps() {}

  static List<Step> of(FirePlan plan, LeaseFence fence, long nowMs) {
    List<Step> steps = new ArrayList<>();
    if (!plan.dispatch().isEmpty()) {
      steps.add(
          new Step(
              Kind.DISPATCH, List.copyOf(plan.dispatch()), dispatch(fence, nowMs), null, "due"));
    }
    for (Map.Entry<String, List<Long>> group : plan.skip().entrySet()) {
      if (!group.getValue().isEmpty()) {
        steps.add(
            new Step(
                Kind.SKIP,
                List.copyOf(group.getValue()),
                toStatus(SCHEDULED, SKIPPED, fence, group.getKey(), nowMs),
                SKIPPED,
                group.getKey()));
      }
    }
    for (Map.Entry<String, List<Long>> group : plan.hold().entrySet()) {
      steps.add(
          new Step(
              Kind.HOLD,
              List.copyOf(group.getValue()),
              hold(fence, group.getKey()),
              null,
              group.getKey()));
    }
    // A run to cancel may have moved since it was read (claimed, failed into its retry, sent again
    // by the retry stage): each seq is tried in every status of a run in flight, so it is
    // cancelled wherever it stands now.
    List<Long> toCancel = new ArrayList<>();
    plan.cancel().values().forEach(toCancel::addAll);
    if (!toCancel.isEmpty()) {
      for (InstanceStatus status : FiringStore.IN_FLIGHT) {
        steps.add(
            new Step(
                Kind.CANCEL,
                List.copyOf(toCancel),
                toStatus(status, CANCELLED, fence, FirePlanner.CANCELLED_BY_NEXT, nowMs),
                CANCELLED,
                FirePlanner.CANCELLED_BY_NEXT));
      }
    }
    return steps;
  }

  /** SCHEDULED → DISPATCHED at this leader's epoch: the epoch the due event carries. */
  private static BatchMove<DueInstance> dispatch(LeaseFence fence, long nowMs) {
    return BatchMove.from(SCHEDULED)
        .<DueInstance>to(DISPATCHED)
        .set("epoch = ?, dispatched_at_ms = ?, owner = NULL", fence.epoch(), nowMs)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), "due");
  }

  /** {@code from} → a status that ends the instance, {@code reason} in the audit. */
  private static BatchMove<DueInstance> toStatus(
      InstanceStatus from, InstanceStatus to, LeaseFence fence, String reason, long nowMs) {
    return BatchMove.from(from)
        .<DueInstance>to(to)
        .set("finished_at_ms = ?", nowMs)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), reason);
  }

  /** SCHEDULED → SCHEDULED: held by its overlap policy, due unchanged, {@code reason} recorded. */
  private static BatchMove<DueInstance> hold(LeaseFence fence, String reason) {
    return BatchMove.from(SCHEDULED)
        .<DueInstance>to(SCHEDULED)
        .set("owner = ?, dispatched_at_ms = NULL", HELD_OWNER) // held: not dispatched
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), reason);
  }
}
