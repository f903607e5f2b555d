package dev.ax.common.contract;

/**
 * A TRIGGER command on {@code ax.task.commands} (key = the downstream task id), as the dependency
 * resolver sends it: run {@code taskId} in {@code flowRunId}. Plain JSON like every command. {@code
 * upstreamSucceededAtMs} is when the upstream attempt that completed the join finished: the
 * downstream instance is due then, so its lateness counts from the upstream's success.
 */
public record TriggerCommand(
    int v,
    String type,
    String taskId,
    String flowRunId,
    String traceId,
    long triggeredAtMs,
    long upstreamSucceededAtMs) {

  public static TriggerCommand of(
      String taskId, String flowRunId, String traceId, long nowMs, long upstreamSucceededAtMs) {
    return new TriggerCommand(
        AxJson.VERSION, "TRIGGER", taskId, flowRunId, traceId, nowMs, upstreamSucceededAtMs);
  }
}
