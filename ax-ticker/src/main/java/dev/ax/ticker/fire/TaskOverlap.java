package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceStatus;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one task has live when a firing of it falls due: its runs in flight (DISPATCHED, RUNNING,
 * RETRYING) and its firings already due and waiting (SCHEDULED, due by now: held by a buffering
 * overlap policy, or in this very batch), oldest first. Read for the tasks of a batch whose overlap
 * policy is not ALLOW_ALL; immutable.
 */
public record TaskOverlap(List<RunInFlight> runs, List<Waiting> waiting) {

  /** Order of waiting firings: due time, then instance id (the window's order). */
  static final Comparator<Waiting> OLDEST_FIRST =
      Comparator.comparingLong(Waiting::dueAtMs).thenComparing(Waiting::instanceId);

  /** A task with nothing in flight and nothing waiting. */
  public static final TaskOverlap IDLE = new TaskOverlap(List.of(), List.of());

  public TaskOverlap {
    runs = List.copyOf(runs);
    waiting = waiting.stream().sorted(OLDEST_FIRST).toList();
  }

  /**
   * What only knowing which tasks have a run in flight gives: for each, one run of unknown row (seq
   * -1, never cancelled) and nothing waiting.
   */
  static Map<String, TaskOverlap> ofInFlight(Collection<String> inFlight) {
    Map<String, TaskOverlap> live = new HashMap<>();
    for (String taskId : inFlight) {
      live.put(
          taskId, new TaskOverlap(List.of(new RunInFlight(-1, taskId + "@?", null)), List.of()));
    }
    return live;
  }

  /** A run of the task in flight. */
  public record RunInFlight(long seq, String instanceId, InstanceStatus status) {}

  /** A firing of the task due and not fired yet. */
  public record Waiting(long seq, String instanceId, long dueAtMs) {}
}
