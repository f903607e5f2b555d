package dev.ax.common.store;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One Kafka record an outcome owes, as the outbox keeps it until the broker has it.
 *
 * @param topic the full topic name (with its prefix)
 * @param key the record key (a task id or a flow run id); may be null
 * @param payload the record value
 * @param headers the record headers, as strings
 */
public record OutboxMessage(String topic, String key, byte[] payload, Map<String, String> headers) {

  public OutboxMessage {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    headers = Map.copyOf(headers);
  }

  /**
   * The completion event {@code stored} (built with the task's stored, qualified id) on its
   * namespace's topic, keyed and written with the id the namespace's users wrote, with {@code
   * traced} and, when the event names it, the trigger type header (what the FIXED_DELAY chainer
   * filters by without parsing the event).
   */
  public static OutboxMessage completion(
      Topics topics, TaskCompletedEvent stored, Map<String, String> traced) {
    TaskCompletedEvent visible = stored.forItsNamespace();
    Map<String, String> headers = new java.util.HashMap<>(traced);
    if (stored.triggerType() != null) {
      headers.put(RejectHeaders.TRIGGER_TYPE, stored.triggerType().name());
    }
    return new OutboxMessage(
        topics.completed(Namespace.of(stored.taskId())),
        visible.taskId(),
        AxJson.write(visible),
        headers);
  }

  /** The Kafka record to send, headers as UTF-8. */
  public ProducerRecord<String, byte[]> toRecord() {
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, payload);
    headers.forEach((name, value) -> record.headers().add(name, value.getBytes(UTF_8)));
    return record;
  }
}
