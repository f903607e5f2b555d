package dev.ax.common.store;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.Topics;
import dev.ax.common.kafka.TraceHeaders;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TriggerType;

/**
 * The completion event of a firing that did not run: status and instance status SKIPPED (by an
 * overlap policy, a catch-up window or misfire policy, a calendar, a pause) or CANCELLED (a run
 * cancelled by its task's next firing), {@code error} the reason, whose first word before the colon
 * is its category ({@code overlap}, {@code missed}, {@code misfire}, {@code calendar}, {@code
 * paused}); attempt as stored, no claim and no start. Written to the outbox in the transaction that
 * records the firing. Stateless.
 */
public final class NotRunEvent {

  private NotRunEvent() {}

  /**
   * @param row the instance as the move read it back
   * @param type the task's trigger type, null when unknown
   * @param actor the node that recorded it
   */
  public static OutboxMessage of(
      Topics topics,
      DueInstance row,
      InstanceStatus status,
      String reason,
      TriggerType type,
      String actor,
      long nowMs) {
    TaskCompletedEvent event =
        new TaskCompletedEvent(
            AxJson.VERSION,
            row.taskId(),
            row.instanceId(),
            row.attempt(),
            status,
            row.dueAtMs(),
            0,
            0,
            nowMs,
            0,
            Math.max(0, nowMs - row.dueAtMs()),
            row.traceId(),
            reason,
            actor,
            status,
            row.flowRunId() == null ? row.instanceId() : row.flowRunId(),
            type,
            null);
    return OutboxMessage.completion(
        topics,
        event,
        TraceHeaders.of(row.traceId(), "completed:" + row.instanceId() + '#' + row.attempt()));
  }
}
