package dev.ax.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;

/**
 * Ingest's counts of lifecycle commands: {@code ax.ingest.<verb>} for the tasks each transition
 * changed ({@code ax.ingest.paused}, {@code ax.ingest.run_now}, ...), and {@code
 * ax.ingest.lifecycle.duplicates} for commands (or a group command's tasks) applied before, and
 * {@code ax.firings.not.run{reason=paused}} for the held firings a RESUME skipped.
 *
 * <p>Thread-safe: the map is filled once, and the counters are.
 */
final class LifecycleCounters {

  private final Map<TaskLifecycleStore.Transition, Counter> applied = new HashMap<>();
  private final Counter duplicates;
  private final Counter pausedFiringsSkipped;

  LifecycleCounters(MeterRegistry meters) {
    for (TaskLifecycleStore.Transition transition : TaskLifecycleStore.Transition.ALL) {
      applied.put(transition, meters.counter("ax.ingest." + transition.verb().replace(' ', '_')));
    }
    this.duplicates = meters.counter("ax.ingest.lifecycle.duplicates");
    // The ticker counts the other reasons under the same name.
    this.pausedFiringsSkipped = meters.counter("ax.firings.not.run", "reason", "paused");
  }

  /** {@code tasks} tasks changed by {@code transition}. */
  void applied(TaskLifecycleStore.Transition transition, int tasks) {
    applied.get(transition).increment(tasks);
  }

  /**
   * Held firings of paused tasks a RESUME recorded SKIPPED, another held firing standing for them.
   */
  void pausedFiringsSkipped(int firings) {
    pausedFiringsSkipped.increment(firings);
  }

  /** {@code tasks} tasks the command had changed before: nothing changed this time. */
  void duplicates(int tasks) {
    duplicates.increment(tasks);
  }
}
