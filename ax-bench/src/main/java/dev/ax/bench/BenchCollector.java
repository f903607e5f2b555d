package dev.ax.bench;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the completion events of one bench run: the first event per instance, and how many
 * events each instance had (more than one is a duplicate run). Events of other runs are counted and
 * ignored. Not thread-safe: fed and read by the bench's main thread.
 *
 * <p>It keeps the times of each instance's first event in primitive arrays indexed by the task's
 * number in the plan, not the events themselves: the bench runs in the JVM it measures, and 20,000
 * events held for the whole run (each with its ids, trace and node strings) would survive every
 * young collection of the run and lengthen its pauses.
 */
public final class BenchCollector {

  private static final InstanceStatus[] STATUSES = InstanceStatus.values();

  /** The times and status of an instance's first completion event, times in ms. */
  public record Completion(
      long dueAtMs, long claimedAtMs, long startedAtMs, long finishedAtMs, InstanceStatus status) {}

  private final BenchPlan plan;
  private final String prefix;
  private final long[] dueAtMs;
  private final long[] claimedAtMs;
  private final long[] startedAtMs;
  private final long[] finishedAtMs;

  /** The first event's status ordinal + 1; 0 while no event arrived. */
  private final byte[] status;

  private final int[] events;
  private int completed;
  private long duplicateEvents;
  private long foreignEvents;

  public BenchCollector(BenchPlan plan) {
    this.plan = plan;
    this.prefix = plan.instanceIdPrefix();
    int n = plan.tasks();
    this.dueAtMs = new long[n];
    this.claimedAtMs = new long[n];
    this.startedAtMs = new long[n];
    this.finishedAtMs = new long[n];
    this.status = new byte[n];
    this.events = new int[n];
  }

  public void accept(TaskCompletedEvent event) {
    int index = indexOf(event.instanceId());
    if (index < 0) {
      foreignEvents++;
      return;
    }
    if (events[index]++ > 0) {
      duplicateEvents++;
      return;
    }
    completed++;
    dueAtMs[index] = event.dueAtMs();
    claimedAtMs[index] = event.claimedAtMs();
    startedAtMs[index] = event.startedAtMs();
    finishedAtMs[index] = event.finishedAtMs();
    status[index] = (byte) (event.status().ordinal() + 1);
  }

  /**
   * The task's number in the plan from {@code <runId>-<number>@<fire time>}; -1 if not this run's.
   */
  private int indexOf(String instanceId) {
    int at = instanceId.indexOf('@');
    if (!instanceId.startsWith(prefix) || at <= prefix.length()) {
      return -1;
    }
    try {
      int index = Integer.parseInt(instanceId, prefix.length(), at, 10);
      return index >= 0 && index < plan.tasks() ? index : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Instances of this run with at least one completion event. */
  public int completed() {
    return completed;
  }

  public boolean allCompleted() {
    return completed >= plan.tasks();
  }

  /** Completion events beyond the first, summed over instances. */
  public long duplicateEvents() {
    return duplicateEvents;
  }

  /** The first event of every instance that completed, in plan order. */
  public List<Completion> firstCompletions() {
    List<Completion> firsts = new ArrayList<>(completed);
    for (int i = 0; i < plan.tasks(); i++) {
      if (status[i] != 0) {
        firsts.add(
            new Completion(
                dueAtMs[i],
                claimedAtMs[i],
                startedAtMs[i],
                finishedAtMs[i],
                STATUSES[status[i] - 1]));
      }
    }
    return firsts;
  }

  /** Events on the topic that belong to no instance of this run (there should be none). */
  public long foreignEvents() {
    return foreignEvents;
  }
}
