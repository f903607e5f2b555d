package dev.ax.ticker.fire;

import dev.ax.common.model.OverlapPolicy;
import java.util.List;
import java.util.Set;

/**
 * What a firing of a periodic task does when it falls due, by the task's {@link OverlapPolicy},
 * given what the task has live ({@link TaskOverlap}) and what this batch already decided. Pure and
 * stateless.
 *
 * <p>The task is <em>busy</em> when a run of it is in flight or this batch dispatches one. A busy
 * task's firing that is not due yet (the ticker fires ahead of the due time) is not decided: it is
 * looked at again at its due time, so a run that ends in the last moments before the next slot does
 * not cost that firing (with {@code AX_TICKER_EMIT_AHEAD} at 1 s, an every-second task would
 * otherwise skip every other firing). Under a buffering policy the waiting firings go oldest first:
 * a firing with an older one still waiting waits too, even when nothing runs (the older one fires
 * at its next look, within a second).
 *
 * <ul>
 *   <li>ALLOW_ALL: always dispatched.
 *   <li>SKIP: busy: skipped.
 *   <li>BUFFER_ONE, BUFFER_ALL: neither busy nor behind an older waiting firing: dispatched; else
 *       held while fewer than {@link OverlapPolicy#bufferLimit} older firings wait, skipped when
 *       that many do ("buffer full").
 *   <li>CANCEL_OTHER: the runs in flight are cancelled and the firing is dispatched in the same
 *       transaction (their dispatchers interrupt the attempts at their next lease renewal); when
 *       the run it would cancel is one this batch dispatches, it is held and looked at again.
 * </ul>
 */
final class OverlapRules {

  /** The decision for one firing. */
  sealed interface Decision {}

  record Dispatch() implements Decision {}

  record Skip(String reason) implements Decision {}

  record Hold(String reason) implements Decision {}

  record CancelOthers(List<TaskOverlap.RunInFlight> runs) implements Decision {}

  /**
   * Not decided yet: the task is busy and the firing is not due (the ticker fires ahead of the due
   * time); it is looked at again at its due time, when the run in flight may have ended.
   */
  record NotYet() implements Decision {}

  static final Decision DISPATCH = new Dispatch();

  static final Decision NOT_YET = new NotYet();

  private OverlapRules() {}

  /**
   * @param row the firing
   * @param live what the task has live, as read for this batch
   * @param firingNow whether this batch already dispatches a run of the task
   * @param decided seqs this batch already dispatched or skipped (no longer waiting)
   * @param nowMs the planning time: a firing due after it is fired ahead of its due time
   */
  static Decision decide(
      OverlapPolicy policy,
      DueRow row,
      TaskOverlap live,
      boolean firingNow,
      Set<Long> decided,
      long nowMs) {
    boolean running = !live.runs().isEmpty();
    boolean busy = running || firingNow;
    if (policy != OverlapPolicy.ALLOW_ALL && busy && row.dueAtMs() > nowMs) {
      return NOT_YET; // decided at its due time, not ahead of it on a run that may end meanwhile
    }
    return switch (policy) {
      case ALLOW_ALL -> DISPATCH;
      case SKIP -> busy ? new Skip(OverlapReasons.skipped(live)) : DISPATCH;
      case CANCEL_OTHER -> {
        if (firingNow) {
          yield new Hold(OverlapReasons.held(policy, live));
        }
        yield running ? new CancelOthers(live.runs()) : DISPATCH;
      }
      case BUFFER_ONE, BUFFER_ALL -> buffer(policy, row, live, busy, decided);
    };
  }

  private static Decision buffer(
      OverlapPolicy policy, DueRow row, TaskOverlap live, boolean busy, Set<Long> decided) {
    long olderWaiting =
        live.waiting().stream()
            .filter(w -> w.seq() != row.seq() && !decided.contains(w.seq()))
            .filter(w -> TaskOverlap.OLDEST_FIRST.compare(w, row.asWaiting()) < 0)
            .count();
    if (!busy && olderWaiting == 0) {
      return DISPATCH;
    }
    if (olderWaiting >= policy.bufferLimit()) {
      return new Skip(OverlapReasons.bufferFull(policy, olderWaiting));
    }
    return new Hold(OverlapReasons.held(policy, live));
  }

  /** The row as the rules see it. */
  record DueRow(long seq, String instanceId, long dueAtMs) {
    TaskOverlap.Waiting asWaiting() {
      return new TaskOverlap.Waiting(seq, instanceId, dueAtMs);
    }
  }
}
