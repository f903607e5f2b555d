package dev.ax.cli.demo;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.TriggerType;
import java.util.ArrayList;
import java.util.List;

/**
 * How late the demo's timed starts were: every first attempt but a DEPENDENCY task's (whose
 * lateness counts from its upstream's end and is shown with the flow) and a retry's or replay's
 * (whose lateness counts from the instance's first due time); the seeds allow {@value #LIMIT_MS}
 * ms. Not thread-safe.
 */
public final class DemoLateness {

  /** The most a timed start may be late, in milliseconds. */
  public static final long LIMIT_MS = 500;

  private final List<TaskCompletedEvent> timed = new ArrayList<>();

  /**
   * A completion event; {@code byDesign} when its start is late on purpose (a firing missed while
   * its task was paused, run at the resume).
   */
  public void completed(TaskCompletedEvent event, boolean byDesign) {
    if (event.triggerType() != TriggerType.DEPENDENCY && event.attempt() == 1 && !byDesign) {
      timed.add(event);
    }
  }

  /** One difference per start later than the limit. */
  public List<String> differences() {
    List<String> differences = new ArrayList<>();
    for (TaskCompletedEvent e : timed) {
      if (e.lateMs() > LIMIT_MS) {
        differences.add(
            e.instanceId() + " started " + e.lateMs() + " ms late (at most " + LIMIT_MS + ")");
      }
    }
    return differences;
  }

  /** E.g. {@code 31 timed starts, late at most 12 ms (median 1 ms; the limit is 500 ms)}. */
  public String describe() {
    long[] late = timed.stream().mapToLong(TaskCompletedEvent::lateMs).sorted().toArray();
    if (late.length == 0) {
      return "no timed start";
    }
    return late.length
        + " timed starts, late at most "
        + late[late.length - 1]
        + " ms (median "
        + late[late.length / 2]
        + " ms; the limit is "
        + LIMIT_MS
        + " ms)";
  }
}
