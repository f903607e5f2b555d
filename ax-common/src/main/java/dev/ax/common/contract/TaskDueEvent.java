package dev.ax.common.contract;

/**
 * On {@code ax.task.due}: the ticker marked the instance DISPATCHED; a dispatcher should claim it.
 *
 * @param epoch the ticker leader's fencing epoch (0 until leader election lands)
 * @param emittedAtMs when the ticker emitted it, on the database clock
 * @param group the task's group (its bulkhead in the dispatcher); null when the emitter did not
 *     know it (the reaper), and the dispatcher looks it up
 */
public record TaskDueEvent(
    int v,
    String taskId,
    String instanceId,
    long dueAtMs,
    long epoch,
    long emittedAtMs,
    String traceId,
    String group) {}
