package dev.ax.common.contract;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TriggerType;

/**
 * On {@code ax.task.completed} (key = taskId): how one attempt of one instance ended. Times are
 * epoch milliseconds on the database clock.
 *
 * @param lateMs claim time minus due time
 * @param error a one-line summary for FAILED and TIMEOUT, null on SUCCESS
 * @param node the dispatcher that ran it
 * @param instanceStatus where the instance stands after this attempt: SUCCESS; RETRYING (another
 *     attempt follows); DEAD (no more attempts: a dead letter); FAILED or TIMEOUT only from a
 *     dispatcher older than retries. Null from such a dispatcher too.
 * @param flowRunId the flow run the instance belongs to (its own id when it started one): what the
 *     dependency resolver joins on
 * @param triggerType the task's trigger type, so a consumer that cares about one type (the
 *     FIXED_DELAY chainer) need not look the task up; null when the task was not found, or from a
 *     dispatcher older than this field
 * @param namespace the task's namespace; {@code taskId} is the id its users wrote (without the
 *     namespace) and the event is on that namespace's topic ({@code ax.<namespace>.task.completed},
 *     {@code ax.task.completed} for {@code default}); null from a dispatcher older than namespaces,
 *     read as {@code default}
 * @param shards for a sharded task: which shard this is, or, on the firing's aggregate event, how
 *     its shards ended (see {@link ShardSummary}); null otherwise
 * @param result a summary of what the run said (its output), null when it said nothing or from a
 *     dispatcher older than this field
 */
public record TaskCompletedEvent(
    int v,
    String taskId,
    String instanceId,
    int attempt,
    InstanceStatus status,
    long dueAtMs,
    long claimedAtMs,
    long startedAtMs,
    long finishedAtMs,
    long durationMs,
    long lateMs,
    String traceId,
    String error,
    String node,
    InstanceStatus instanceStatus,
    String flowRunId,
    TriggerType triggerType,
    String namespace,
    ShardSummary shards,
    RunResult result) {

  /** An event of a task that is not sharded, without a result. */
  public TaskCompletedEvent(
      int v,
      String taskId,
      String instanceId,
      int attempt,
      InstanceStatus status,
      long dueAtMs,
      long claimedAtMs,
      long startedAtMs,
      long finishedAtMs,
      long durationMs,
      long lateMs,
      String traceId,
      String error,
      String node,
      InstanceStatus instanceStatus,
      String flowRunId,
      TriggerType triggerType,
      String namespace) {
    this(
        v,
        taskId,
        instanceId,
        attempt,
        status,
        dueAtMs,
        claimedAtMs,
        startedAtMs,
        finishedAtMs,
        durationMs,
        lateMs,
        traceId,
        error,
        node,
        instanceStatus,
        flowRunId,
        triggerType,
        namespace,
        null,
        null);
  }

  /**
   * The event as its namespace's users see it: built inside AX with the stored (qualified) task id
   * and no namespace, returned with the id they wrote and the namespace named.
   */
  public TaskCompletedEvent forItsNamespace() {
    return withTask(Namespace.localId(taskId), Namespace.of(taskId).name());
  }

  /**
   * The event as AX stores its task: read from {@code topicNamespace}'s topic (the namespace comes
   * from the topic, never the message), the task id qualified with it.
   */
  public TaskCompletedEvent storedIn(Namespace topicNamespace) {
    return withTask(topicNamespace.qualify(taskId), null);
  }

  private TaskCompletedEvent withTask(String newTaskId, String newNamespace) {
    return new TaskCompletedEvent(
        v,
        newTaskId,
        instanceId,
        attempt,
        status,
        dueAtMs,
        claimedAtMs,
        startedAtMs,
        finishedAtMs,
        durationMs,
        lateMs,
        traceId,
        error,
        node,
        instanceStatus,
        flowRunId,
        triggerType,
        newNamespace,
        shards,
        result);
  }
}
