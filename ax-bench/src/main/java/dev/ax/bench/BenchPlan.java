package dev.ax.bench;

import java.time.Duration;

/**
 * The tasks of one {@code ax bench} run: {@code tasks} ONCE tasks whose due times are spread evenly
 * over {@code spread}, starting {@code dueIn} after {@code startMs}. Task ids are {@code
 * <runId>-<index>}, so a run's rows can be told apart in a shared database. Immutable.
 *
 * @param runId unique per run, [a-z0-9-] only (it is used in a SQL LIKE pattern)
 * @param startMs the moment the plan is made, on the database clock
 */
public record BenchPlan(String runId, int tasks, long startMs, Duration dueIn, Duration spread) {

  public BenchPlan {
    if (!runId.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException("runId must match [a-z0-9-]+: " + runId);
    }
    if (tasks < 1) {
      throw new IllegalArgumentException("tasks must be at least 1: " + tasks);
    }
    if (dueIn.isNegative() || spread.isNegative()) {
      throw new IllegalArgumentException("dueIn and spread must not be negative");
    }
  }

  public String taskId(int index) {
    return String.format("%s-%07d", runId, index);
  }

  /** Task {@code index}'s due time: evenly spaced, the first at {@code startMs + dueIn}. */
  public long dueAtMs(int index) {
    return firstDueAtMs() + spread.toMillis() * index / tasks;
  }

  public long firstDueAtMs() {
    return startMs + dueIn.toMillis();
  }

  public long lastDueAtMs() {
    return dueAtMs(tasks - 1);
  }

  /** The prefix every instance id of this run starts with, for SQL LIKE. */
  public String instanceIdPrefix() {
    return runId + "-";
  }
}
