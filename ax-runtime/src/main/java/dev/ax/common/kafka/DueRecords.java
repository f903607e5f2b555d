package dev.ax.common.kafka;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.store.DueInstance;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The record of a due event, as the ticker, the retry stage and a dead-letter replay send it: key =
 * task id, the event as JSON, the trace id in a header. Stateless.
 */
public final class DueRecords {

  private DueRecords() {}

  /**
   * @param epoch the sender's ticker epoch (0 from the retry stage: dispatchers do not check epochs
   *     on the retry topic)
   * @param group the task's group when the sender knows it, else null
   */
  public static ProducerRecord<String, byte[]> of(
      String topic, DueInstance instance, long epoch, long nowMs, String group) {
    return of(topic, eventOf(instance, epoch, nowMs, group));
  }

  /** The due event of {@code instance}, as {@link #of(String, DueInstance, long, long, String)}. */
  public static TaskDueEvent eventOf(DueInstance instance, long epoch, long nowMs, String group) {
    return new TaskDueEvent(
        AxJson.VERSION,
        instance.taskId(),
        instance.instanceId(),
        instance.dueAtMs(),
        epoch,
        nowMs,
        instance.traceId(),
        group,
        instance.attempt(),
        instance.retryBase(),
        instance.seq(),
        instance.taskVersion(),
        instance.flowRunId());
  }

  /** The record of {@code event}: key = its task id, the trace id (if any) in a header. */
  public static ProducerRecord<String, byte[]> of(String topic, TaskDueEvent event) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, event.taskId(), AxJson.write(event));
    TraceHeaders.addTo(
        record.headers(), event.traceId(), "due:" + event.instanceId() + '#' + event.attempt());
    return record;
  }
}
