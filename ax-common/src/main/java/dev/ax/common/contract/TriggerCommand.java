package dev.ax.common.contract;

/**
 * A TRIGGER command on {@code ax.task.commands} (key = the downstream task id), as the dependency
 * resolver sends it: run {@code taskId} in {@code flowRunId}. Plain JSON like every command.
 */
public record TriggerCommand(
    int v, String type, String taskId, String flowRunId, String traceId, long triggeredAtMs) {

  public static TriggerCommand of(String taskId, String flowRunId, String traceId, long nowMs) {
    return new TriggerCommand(AxJson.VERSION, "TRIGGER", taskId, flowRunId, traceId, nowMs);
  }
}
