package dev.ax.common.kafka;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.store.NewInstance;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The record that announces a created instance to the ticker on {@code ax.task.scheduled}, as every
 * creator sends it (ingest's creates and triggers, the FIXED_DELAY chainer): key = task id, the
 * event as JSON, the trace id in a header. Stateless.
 */
public final class AnnouncementRecords {

  private AnnouncementRecords() {}

  /**
   * @param seq the instance's {@code ax_instance.seq}, the ticker's key for it
   * @param triggerGroup the task's trigger-group key ({@code TriggerGroups.keyOf})
   */
  public static ProducerRecord<String, byte[]> of(
      String topic, NewInstance instance, long seq, String triggerGroup) {
    return of(
        topic,
        instance.taskId(),
        instance.instanceId(),
        instance.dueAtMs(),
        instance.traceId(),
        seq,
        triggerGroup);
  }

  /** As {@link #of(String, NewInstance, long, String)}, from the instance's parts. */
  public static ProducerRecord<String, byte[]> of(
      String topic,
      String taskId,
      String instanceId,
      long dueAtMs,
      String traceId,
      long seq,
      String triggerGroup) {
    TaskScheduledEvent event =
        new TaskScheduledEvent(
            AxJson.VERSION, taskId, instanceId, dueAtMs, traceId, seq, triggerGroup);
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, taskId, AxJson.write(event));
    TraceHeaders.addTo(record.headers(), traceId, "scheduled:" + instanceId);
    return record;
  }
}
