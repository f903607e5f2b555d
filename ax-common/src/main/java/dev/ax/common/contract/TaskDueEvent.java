package dev.ax.common.contract;

/**
 * On {@code ax.task.due}: the ticker marked the instance DISPATCHED; a dispatcher should claim it.
 *
 * <p>The last five fields are the instance row as the emitter read it. A dispatcher claims on the
 * condition that the attempt columns are still these, and then knows the claimed row without
 * reading it back; when they changed (the run was taken back, a dead letter replayed) it claims as
 * it would without them. They are null from emitters that do not know them (a dead letter's replay,
 * events from before they were added), and readers ignore them as they ignore any field.
 *
 * @param epoch the ticker leader's fencing epoch (0 until leader election lands)
 * @param emittedAtMs when the ticker emitted it, on the database clock
 * @param group the task's group (its bulkhead in the dispatcher); null when the emitter did not
 *     know it (the reaper), and the dispatcher looks it up
 * @param attempt attempts started so far when emitted (the claim starts attempt + 1)
 * @param retryBase the attempt count at which the current retry budget began
 * @param seq the instance row's numeric key
 * @param taskVersion the version of the task spec the instance belongs to
 * @param flowRunId the flow run as stored (null also when it is the instance's own id)
 */
public record TaskDueEvent(
    int v,
    String taskId,
    String instanceId,
    long dueAtMs,
    long epoch,
    long emittedAtMs,
    String traceId,
    String group,
    Integer attempt,
    Integer retryBase,
    Long seq,
    Integer taskVersion,
    String flowRunId) {

  /** An event without the instance row: the dispatcher reads the row when it claims. */
  public TaskDueEvent(
      int v,
      String taskId,
      String instanceId,
      long dueAtMs,
      long epoch,
      long emittedAtMs,
      String traceId,
      String group) {
    this(
        v,
        taskId,
        instanceId,
        dueAtMs,
        epoch,
        emittedAtMs,
        traceId,
        group,
        null,
        null,
        null,
        null,
        null);
  }
}
