package dev.ax.dispatcher.store;

import dev.ax.common.model.RetryBudget;

/**
 * An instance this dispatcher won: its status is RUNNING, owned by this node, for {@code attempt}.
 *
 * @param takenBack runs of the current retry budget the reaper took back (their dispatcher died):
 *     attempts that used up no retry
 * @param shardOf the firing this instance is a shard of, null when it is not a shard
 * @param shardIndex its shard index, from 0 (0 when not a shard)
 * @param shardTotal its firing's shards (1 when not a shard)
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
    String flowRunId,
    int takenBack,
    String shardOf,
    int shardIndex,
    int shardTotal) {

  /** An instance that is not a shard. */
  public ClaimedInstance(
      String instanceId,
      String taskId,
      int taskVersion,
      int attempt,
      long dueAtMs,
      long claimedAtMs,
      String traceId,
      int retryBase,
      long seq,
      String flowRunId,
      int takenBack) {
    this(
        instanceId,
        taskId,
        taskVersion,
        attempt,
        dueAtMs,
        claimedAtMs,
        traceId,
        retryBase,
        seq,
        flowRunId,
        takenBack,
        null,
        0,
        1);
  }

  /** Whether this instance is one shard of a sharded firing. */
  public boolean isShard() {
    return shardOf != null;
  }

  /** The number of this attempt within its retry budget (1 = the first of the budget). */
  public int attemptInBudget() {
    return attempt - retryBase;
  }

  /**
   * The failed attempts of the budget should this one fail: the attempts of the budget less the
   * runs taken back, which used up no retry (1 = this is the first failure).
   */
  public int failedInBudgetIfThisFails() {
    return RetryBudget.failed(attemptInBudget(), takenBack, true);
  }
}
