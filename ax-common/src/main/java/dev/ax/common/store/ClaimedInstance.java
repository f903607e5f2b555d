package dev.ax.common.store;

/**
 * An instance this dispatcher won: its status is RUNNING, owned by this node, for {@code attempt}.
 */
public record ClaimedInstance(
    String instanceId,
    String taskId,
    int taskVersion,
    int attempt,
    long dueAtMs,
    long claimedAtMs,
    String traceId,
    int retryBase,
    long seq,
    String flowRunId) {

  /** The number of this attempt within its retry budget (1 = the first of the budget). */
  public int attemptInBudget() {
    return attempt - retryBase;
  }
}
