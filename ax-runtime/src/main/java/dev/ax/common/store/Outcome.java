package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;

/**
 * How one attempt ended, to be recorded by the dispatcher that owns it.
 *
 * @param status SUCCESS, FAILED or TIMEOUT
 * @param error one-line summary, null on success
 * @param after for a failure: retry or dead, recorded in the same transaction; null leaves the
 *     instance FAILED or TIMEOUT
 * @param shardOf the firing the instance is a shard of ({@link ShardFirings}), null when it is
 *     none: when this outcome ends the shard, the firing is settled in the same transaction if it
 *     was its last
 * @param output what the run said, stored with the outcome in {@code ax_run_output}; null for none
 */
public record Outcome(
    String instanceId,
    String taskId,
    int attempt,
    InstanceStatus status,
    String error,
    long finishedAtMs,
    AfterFailure after,
    String shardOf,
    RunOutput output) {

  /** Without output. */
  public Outcome(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus status,
      String error,
      long finishedAtMs,
      AfterFailure after,
      String shardOf) {
    this(instanceId, taskId, attempt, status, error, finishedAtMs, after, shardOf, null);
  }

  public Outcome(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus status,
      String error,
      long finishedAtMs,
      AfterFailure after) {
    this(instanceId, taskId, attempt, status, error, finishedAtMs, after, null, null);
  }

  /** Whether this outcome, once recorded, ends a shard: a success, or a failure left DEAD. */
  public boolean endsShard() {
    return shardOf != null
        && (status == InstanceStatus.SUCCESS || after instanceof AfterFailure.Dead);
  }

  public Outcome(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus status,
      String error,
      long finishedAtMs) {
    this(instanceId, taskId, attempt, status, error, finishedAtMs, null);
  }
}
