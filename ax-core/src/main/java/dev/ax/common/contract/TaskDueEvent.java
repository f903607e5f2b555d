package dev.ax.common.contract;

/**
 * On {@code ax.task.due}: the ticker marked the instance DISPATCHED; a dispatcher should claim it.
 *
 * <p>The last five fields are the instance row as the emitter read it, for readers of the topic
 * (tools, traces). The dispatcher's claim does not depend on them: it reads the row it won back in
 * the same round trip, so a row that moved on since (its run taken back, its dead letter replayed)
 * is claimed as it is now. They are null from emitters that do not know them (a dead letter's
 * replay, events from before they were added), and readers ignore them as they ignore any field.
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
    String flowRunId) {}
