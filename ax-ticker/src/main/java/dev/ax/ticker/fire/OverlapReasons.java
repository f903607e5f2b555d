package dev.ax.ticker.fire;

import dev.ax.common.model.OverlapPolicy;

/**
 * The audit reasons of the overlap decisions: each starts with {@code "overlap"}, the category the
 * not-run counter and the completion event's reason share ({@link NotRunReason}). Stateless.
 */
final class OverlapReasons {

  private OverlapReasons() {}

  static String skipped(TaskOverlap live) {
    return "overlap: a run of the task is in flight" + runNamed(live) + " (policy SKIP)";
  }

  static String bufferFull(OverlapPolicy policy, long waiting) {
    return "overlap: buffer full, " + waiting + " firing(s) wait already (policy " + policy + ")";
  }

  static String held(OverlapPolicy policy, TaskOverlap live) {
    return "held: waits for the run in flight" + runNamed(live) + " (policy " + policy + ")";
  }

  private static String runNamed(TaskOverlap live) {
    return live.runs().isEmpty() ? "" : " (" + live.runs().get(0).instanceId() + ")";
  }
}
